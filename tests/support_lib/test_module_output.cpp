// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// libpnmpi_support's module output helpers: names escaped for messages, and the exit
// status of a process whose module lost its output (in child processes that exit).
#include <pnmpi/support.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

std::string escaped(const char *in) {
  const size_t n = pnmpi_escape_name(in, nullptr, 0);
  std::string out(n, '\0');
  EXPECT_EQ(pnmpi_escape_name(in, &out[0], n + 1), n);
  return out;
}

/// The exit status of a child that runs f and then calls exit(status).
template <class F> int exit_status_of(F f, int status) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    f();
    std::exit(status);
  }
  int raw = 0;
  waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

} // namespace

TEST(SupportOutput, EscapedNames) {
  EXPECT_EQ(escaped("out/trace-1.otf2"), "out/trace-1.otf2");
  EXPECT_EQ(escaped("a\nrank 0: forged"), "a\\nrank 0: forged");
  EXPECT_EQ(escaped("tab\there\\x"), "tab\\there\\\\x");
  EXPECT_EQ(escaped("\x01\x1f\x7f"), "\\x01\\x1f\\x7f");
  EXPECT_EQ(escaped("caf\xc3\xa9 'q'"), "caf\xc3\xa9 'q'"); // UTF-8 and quotes as they are
  EXPECT_EQ(escaped(""), "");
  EXPECT_EQ(escaped(nullptr), "");
  char small[4];
  EXPECT_EQ(pnmpi_escape_name("a\nbc", small, sizeof small), 5u); // as snprintf: cut, NUL
  EXPECT_STREQ(small, "a\\n");
}

TEST(SupportOutput, FailAtExit) {
  EXPECT_EQ(exit_status_of([] {}, 0), 0);
  EXPECT_EQ(exit_status_of([] { pnmpi_fail_at_exit(); }, 0), 1);
  EXPECT_EQ(exit_status_of(
                [] {
                  pnmpi_fail_at_exit();
                  pnmpi_fail_at_exit();
                },
                0),
            1);
  // The application's own failure status is kept.
  EXPECT_EQ(exit_status_of([] { pnmpi_fail_at_exit(); }, 3), 3);
  // What the process printed before is flushed, not lost with the early _exit.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const int status = exit_status_of(
      [&] {
        dup2(fds[1], STDOUT_FILENO);
        std::printf("kept");
        pnmpi_fail_at_exit();
      },
      0);
  close(fds[1]);
  char buf[16] = {};
  EXPECT_EQ(read(fds[0], buf, sizeof buf - 1), 4);
  close(fds[0]);
  EXPECT_EQ(status, 1);
  EXPECT_STREQ(buf, "kept");
}

TEST(SupportOutput, PartHosts) {
  const std::string dir = std::string(PNMPI_SUPPORT_TEST_SCRATCH) + "/part_hosts";
  mkdir(PNMPI_SUPPORT_TEST_SCRATCH, 0777);
  ASSERT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);
  // Five ranks on three hosts, as an allgather of 16-byte names gives them; the last name
  // fills its slot (no NUL) and the third is longer than a part file keeps.
  const std::string long_name(80, 'x');
  const int status = exit_status_of(
      [&] {
        char names[5][100] = {};
        std::strcpy(names[0], "node-a");
        std::strcpy(names[1], "node-b");
        std::strcpy(names[2], long_name.c_str());
        std::strcpy(names[3], "node-a");
        std::memset(names[4], 'b', sizeof names[4]);
        pnmpi_part_configure(dir.c_str());
        if (pnmpi_part_hosts(&names[0][0], sizeof names[0], 5) != 0)
          std::_Exit(91);
        if (pnmpi_part_hosts(nullptr, 1, 1) != EINVAL ||
            pnmpi_part_hosts(&names[0][0], 0, 1) != EINVAL)
          std::_Exit(92);
        pnmpi_part_mark(PNMPI_PART_FINALIZED, 0);
      },
      0);
  ASSERT_EQ(status, 0);
  std::string data;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.') {
        std::ifstream in(dir + "/" + e->d_name, std::ios::binary);
        data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    closedir(d);
  }
  ASSERT_GE(data.size(), sizeof(pnmpi_part_header_t));
  pnmpi_part_header_t h;
  std::memcpy(&h, data.data(), sizeof h);
  ASSERT_EQ(h.region_count, 1u);
  EXPECT_STREQ(h.regions[0].name, "hosts");
  EXPECT_EQ(h.regions[0].version, 1u);
  const char *region = data.data() + h.regions[0].offset;
  pnmpi_part_hosts_t head;
  std::memcpy(&head, region, sizeof head);
  EXPECT_EQ(head.ranks, 5u);
  EXPECT_EQ(head.hosts, 4u);
  EXPECT_EQ(head.name_bytes, PNMPI_PART_HOST_BYTES);
  const char *names = region + sizeof head;
  EXPECT_STREQ(names, "node-a");
  EXPECT_STREQ(names + 64, "node-b");
  EXPECT_EQ(std::string(names + 128), long_name.substr(0, 63));
  EXPECT_EQ(std::string(names + 192), std::string(63, 'b'));
  uint32_t index[5];
  std::memcpy(index, names + 4 * 64, sizeof index);
  EXPECT_EQ(std::vector<uint32_t>(index, index + 5), (std::vector<uint32_t>{0, 1, 2, 0, 3}));
  EXPECT_EQ(h.regions[0].bytes, sizeof head + 4 * 64 + sizeof index);
}
