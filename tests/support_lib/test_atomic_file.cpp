// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// Output files written atomically (pnmpi_atomic_open/commit/discard): what is refused at
// open and at commit, a taken temporary name, a write that fails, the mode of the file.
#include <pnmpi/support.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

/// When nonzero, getrandom() (below) gives this value once, then this value plus one.
std::atomic<std::uint64_t> g_forced_random{0};
std::atomic<int> g_forced_calls{0};

} // namespace

// The library's source of temporary names, interposed by this executable: a test can make
// the first name one it planted something at.
extern "C" ssize_t getrandom(void *buffer, size_t length, unsigned int flags) {
  const std::uint64_t forced = g_forced_random.load();
  if (forced == 0 || length != sizeof forced)
    return syscall(SYS_getrandom, buffer, length, flags);
  const std::uint64_t value = forced + (g_forced_calls.fetch_add(1) == 0 ? 0 : 1);
  std::memcpy(buffer, &value, sizeof value);
  return static_cast<ssize_t>(length);
}

namespace {

std::string fresh_dir(const char *name) {
  std::string d = std::string(PNMPI_SUPPORT_TEST_SCRATCH) + "/" + name;
  mkdir(PNMPI_SUPPORT_TEST_SCRATCH, 0777);
  EXPECT_EQ(std::system(("rm -rf '" + d + "'").c_str()), 0);
  mkdir(d.c_str(), 0777);
  return d;
}

std::string read_all(const std::string &path) {
  std::string text;
  if (FILE *f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
      text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

void put(const std::string &path, const std::string &text) {
  FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

/// The names in `dir`, sorted, hidden ones included.
std::vector<std::string> names_in(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        out.push_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_link(const std::string &path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

TEST(SupportAtomicFile, StreamsAndReplacesAWholeFile) {
  const std::string d = fresh_dir("atomic-stream");
  const std::string out = d + "/out.json";
  put(out, "old\n");
  char why[256] = "untouched";
  pnmpi_atomic_file_t *f = pnmpi_atomic_open(out.c_str(), why, sizeof why);
  ASSERT_NE(f, nullptr) << why;
  EXPECT_STREQ(why, "untouched");
  std::fprintf(pnmpi_atomic_stream(f), "new %d\n", 42);
  // Until the commit the old file is what a reader sees, beside one hidden temporary file.
  EXPECT_EQ(read_all(out), "old\n");
  const std::vector<std::string> during = names_in(d);
  ASSERT_EQ(during.size(), 2u);
  EXPECT_EQ(during[0].rfind(".out.json.tmp." + std::to_string(getpid()) + ".", 0), 0u) << during[0];
  EXPECT_EQ(pnmpi_atomic_commit(f, why, sizeof why), 0) << why;
  EXPECT_EQ(read_all(out), "new 42\n");
  EXPECT_EQ(names_in(d), std::vector<std::string>{"out.json"});
}

TEST(SupportAtomicFile, WhatIsNotARegularFileIsRefusedAtOpen) {
  const std::string d = fresh_dir("atomic-refused");
  const std::string victim = d + "/victim", link = d + "/link", sub = d + "/sub",
                    fifo = d + "/fifo";
  put(victim, "precious\n");
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  char why[512];
  errno = 0;
  EXPECT_EQ(pnmpi_atomic_open(link.c_str(), why, sizeof why), nullptr);
  EXPECT_EQ(errno, ELOOP);
  EXPECT_EQ(std::string(why), "cannot write '" + link +
                                  "': it is a symbolic link, not a regular file, and is left "
                                  "as it is");
  EXPECT_EQ(pnmpi_atomic_open(sub.c_str(), why, sizeof why), nullptr);
  EXPECT_EQ(errno, EISDIR);
  EXPECT_EQ(std::string(why), "cannot write '" + sub +
                                  "': it is a directory, not a regular file, and is left as it is");
  EXPECT_EQ(pnmpi_atomic_open(fifo.c_str(), why, sizeof why), nullptr);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(std::string(why),
            "cannot write '" + fifo + "': it is a FIFO, not a regular file, and is left as it is");
  EXPECT_EQ(pnmpi_write_file_atomic(link.c_str(), "x", 1), ELOOP);
  // A missing directory, a name to escape: the message shows it escaped.
  const std::string missing = d + "/no\ndir/x";
  EXPECT_EQ(pnmpi_atomic_open(missing.c_str(), why, sizeof why), nullptr);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(std::string(why), "cannot write '" + d + "/no\\ndir/x': No such file or directory");
  // A message cut to its buffer stays terminated.
  char small[8];
  EXPECT_EQ(pnmpi_atomic_open(link.c_str(), small, sizeof small), nullptr);
  EXPECT_STREQ(small, "cannot ");
  EXPECT_TRUE(is_link(link));
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"fifo", "link", "sub", "victim"}));
}

TEST(SupportAtomicFile, ALinkPutInTheWayWhileWritingIsRefusedAtCommit) {
  const std::string d = fresh_dir("atomic-commit-link");
  const std::string victim = d + "/victim", out = d + "/out.prof";
  put(victim, "precious\n");
  char why[512];
  pnmpi_atomic_file_t *f = pnmpi_atomic_open(out.c_str(), why, sizeof why);
  ASSERT_NE(f, nullptr) << why;
  std::fputs("mine\n", pnmpi_atomic_stream(f));
  ASSERT_EQ(symlink(victim.c_str(), out.c_str()), 0);
  EXPECT_EQ(pnmpi_atomic_commit(f, why, sizeof why), ELOOP);
  EXPECT_EQ(std::string(why), "cannot write '" + out +
                                  "': it is a symbolic link, not a regular file, and is left "
                                  "as it is");
  EXPECT_TRUE(is_link(out));
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"out.prof", "victim"})); // no temporary
}

TEST(SupportAtomicFile, ATakenTemporaryNameIsNeverOpenedAndAnotherIsTried) {
  const std::string d = fresh_dir("atomic-eexist");
  const std::string victim = d + "/victim", out = d + "/out.txt";
  put(victim, "precious\n");
  const std::uint64_t first = 0x0123456789abcdefull;
  char planted[64];
  std::snprintf(planted, sizeof planted, ".out.txt.tmp.%ld.%016" PRIx64,
                static_cast<long>(getpid()), first);
  ASSERT_EQ(symlink(victim.c_str(), (d + "/" + planted).c_str()), 0);
  g_forced_calls = 0;
  g_forced_random = first;
  const int rc = pnmpi_write_file_atomic(out.c_str(), "mine\n", 5);
  g_forced_random = 0;
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_forced_calls.load(), 2); // the planted name, then the next one
  EXPECT_EQ(read_all(out), "mine\n");
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_TRUE(is_link(d + "/" + planted));
  EXPECT_EQ(names_in(d), (std::vector<std::string>{planted, "out.txt", "victim"}));
}

TEST(SupportAtomicFile, AFailedWriteOrADiscardLeavesTheOldFile) {
  const std::string d = fresh_dir("atomic-failed");
  const std::string out = d + "/out.txt";
  put(out, "old\n");
  // In a child: a file size limit makes write(2) fail as a full disk would (EFBIG, as
  // SIGXFSZ is ignored). The child's exit status is the commit's result.
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {1000, 1000};
    setrlimit(RLIMIT_FSIZE, &limit);
    char why[512];
    pnmpi_atomic_file_t *f = pnmpi_atomic_open(out.c_str(), why, sizeof why);
    if (f == nullptr)
      _exit(100);
    const std::string big(8192, 'x');
    std::fwrite(big.data(), 1, big.size(), pnmpi_atomic_stream(f));
    const int rc = pnmpi_atomic_commit(f, why, sizeof why);
    const std::string want = "cannot write '" + out + "': File too large";
    _exit(rc == EFBIG && want == why ? 0 : 101);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(read_all(out), "old\n");
  EXPECT_EQ(names_in(d), std::vector<std::string>{"out.txt"});

  char why[512];
  pnmpi_atomic_file_t *f = pnmpi_atomic_open(out.c_str(), why, sizeof why);
  ASSERT_NE(f, nullptr) << why;
  std::fputs("never\n", pnmpi_atomic_stream(f));
  pnmpi_atomic_discard(f);
  EXPECT_EQ(read_all(out), "old\n");
  EXPECT_EQ(names_in(d), std::vector<std::string>{"out.txt"});
}

TEST(SupportAtomicFile, ModeIsTheUmasks) {
  const std::string d = fresh_dir("atomic-mode");
  const std::string out = d + "/out.txt";
  for (mode_t mask : {mode_t{022}, mode_t{027}, mode_t{077}}) {
    const mode_t old = umask(mask);
    const int rc = pnmpi_write_file_atomic(out.c_str(), "x", 1);
    umask(old);
    ASSERT_EQ(rc, 0);
    struct stat st;
    ASSERT_EQ(stat(out.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0666 & ~mask) << std::oct << mask;
  }
}

TEST(SupportAtomicFile, CppHelpersSayWhy) {
  const std::string d = fresh_dir("atomic-cpp");
  const std::string out = d + "/out.txt", link = d + "/link";
  std::string error;
  EXPECT_TRUE(pnmpi::support::write_file_atomically(out, "one\n", error)) << error;
  EXPECT_EQ(read_all(out), "one\n");
  ASSERT_EQ(symlink(out.c_str(), link.c_str()), 0);
  EXPECT_FALSE(pnmpi::support::write_file_atomically(link, "two\n", error));
  EXPECT_EQ(error, "cannot write '" + link +
                       "': it is a symbolic link, not a regular file, and is left as it is");
  // A message naming a long path is not cut.
  const std::string too_long = d + "/" + std::string(5000, 'a');
  EXPECT_FALSE(pnmpi::support::write_file_atomically(too_long, "x", error));
  EXPECT_EQ(error, "cannot write '" + too_long + "': File name too long");
  {
    pnmpi::support::AtomicFile dropped(out);
    ASSERT_NE(dropped.file(), nullptr) << dropped.error();
    std::fputs("dropped\n", dropped.file());
  } // destroyed uncommitted
  EXPECT_EQ(read_all(out), "one\n");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"link", "out.txt"}));
}

} // namespace
