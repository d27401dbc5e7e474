// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// libpnmpi_support (support/include/pnmpi/support.h): names, JSON strings, atomic files,
// the job id, and part files marked by signals and exits in child processes, whose exit
// status and signal must be what they would be without pnmpi.
#include <pnmpi/support.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

std::string file_name(const char *in) {
  char out[256];
  pnmpi_file_name(in, out, sizeof out);
  return out;
}

std::string json(const char *in) {
  char out[256];
  pnmpi_json_string(in, out, sizeof out);
  return out;
}

TEST(SupportText, FileNames) {
  EXPECT_EQ(file_name("1234.0"), "1234.0");
  EXPECT_EQ(file_name("a/b c\n"), "a_b_c_");
  EXPECT_EQ(file_name(""), "_");
  EXPECT_EQ(file_name(".."), "_");
  EXPECT_EQ(file_name(std::string(300, 'x').c_str()), std::string(128, 'x'));
}

TEST(SupportText, JsonStrings) {
  EXPECT_EQ(json("plain"), "\"plain\"");
  EXPECT_EQ(json("q\"b\\"), "\"q\\\"b\\\\\"");
  // The short escapes every JSON writer uses, \u00XX for the other controls and DEL.
  EXPECT_EQ(json("tab\there\x1b"), "\"tab\\there\\u001b\"");
  EXPECT_EQ(json("\b\f\n\r\t\x01\x1f\x7f"), "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(json("bad\xff"), "\"bad\\ufffd\"");
  // Not UTF-8, each byte U+FFFD: a lone continuation byte, a sequence cut by the end, an
  // overlong '/', a surrogate (U+D800), a code point above U+10FFFF.
  EXPECT_EQ(json("\x80"), "\"\\ufffd\"");
  EXPECT_EQ(json("a\xe2\x82"), "\"a\\ufffd\\ufffd\"");
  EXPECT_EQ(json("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
  EXPECT_EQ(json("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
  char small[4];
  EXPECT_EQ(pnmpi_json_string("abcdef", small, sizeof small), 8u);
  EXPECT_STREQ(small, "\"ab");
}

std::string scratch(const char *name) {
  std::string d = std::string(PNMPI_SUPPORT_TEST_SCRATCH) + "/" + name;
  mkdir(PNMPI_SUPPORT_TEST_SCRATCH, 0777);
  std::string cmd = "rm -rf '" + d + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  mkdir(d.c_str(), 0777);
  return d;
}

std::vector<std::string> list(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.' || std::strlen(e->d_name) > 2)
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
          out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

TEST(SupportFiles, AtomicWrite) {
  const std::string d = scratch("atomic");
  const std::string f = d + "/out.txt";
  ASSERT_EQ(pnmpi_write_file_atomic(f.c_str(), "one", 3), 0);
  ASSERT_EQ(pnmpi_write_file_atomic(f.c_str(), "second", 6), 0);
  char buf[16] = "";
  FILE *in = std::fopen(f.c_str(), "r");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(std::fread(buf, 1, sizeof buf, in), 6u);
  std::fclose(in);
  EXPECT_STREQ(buf, "second");
  EXPECT_EQ(list(d), std::vector<std::string>{"out.txt"}); // no temporary file left
  EXPECT_EQ(pnmpi_write_file_atomic((d + "/missing/x").c_str(), "x", 1), ENOENT);
}

TEST(SupportFiles, Mantissa) {
  EXPECT_EQ(pnmpi_round_mantissa(1.0f, 12), 1.0f);
  EXPECT_EQ(pnmpi_round_mantissa(1.0f + 1.0f / 8192, 12), 1.0f + 1.0f / 4096); // half up
  EXPECT_EQ(pnmpi_round_mantissa(1.0f + 1.0f / 16384, 12), 1.0f);
}

/// Runs f in a child with a clean environment for the job id; its exit status.
template <class F> int in_child(F f) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    for (const char *v : {"SLURM_JOB_ID", "SLURM_STEP_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID",
                          "OMPI_MCA_orte_ess_jobid", "PMIX_NAMESPACE", "PMI_KVS", "PMI_KVSNAME"})
      unsetenv(v);
    f();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(SupportJob, IdOrder) {
  auto expect = [](std::vector<std::pair<const char *, const char *>> env, const char *want) {
    const int status = in_child([&] {
      for (auto &e : env)
        setenv(e.first, e.second, 1);
      _exit(std::strcmp(pnmpi_job_id(), want) == 0 ? 0 : 1);
    });
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << want;
  };
  expect({{"SLURM_JOB_ID", "77"}, {"SLURM_STEP_ID", "2"}, {"PBS_JOBID", "9.pbs"}}, "77.2");
  expect({{"SLURM_JOB_ID", "77"}}, "77");
  expect({{"PBS_JOBID", "9.pbs"}, {"LSB_JOBID", "5"}}, "9.pbs");
  expect({{"LSB_JOBID", "5"}, {"FLUX_JOB_ID", "f1"}}, "5");
  expect({{"FLUX_JOB_ID", "f1"}, {"OMPI_MCA_orte_ess_jobid", "123"}}, "f1");
  expect({{"OMPI_MCA_orte_ess_jobid", "123"}}, "123");
  expect({}, ("pid-" + std::to_string(getpid())).c_str());
}

/// The part file the child left in `dir`, read back.
pnmpi_part_header_t read_part(const std::string &dir) {
  pnmpi_part_header_t h{};
  for (const std::string &name : list(dir)) {
    const std::string path = dir + "/" + name;
    FILE *in = std::fopen(path.c_str(), "rb");
    if (in != nullptr) {
      EXPECT_EQ(std::fread(&h, sizeof h, 1, in), 1u);
      std::fclose(in);
    }
  }
  return h;
}

void start_part(const std::string &dir) {
  pnmpi_part_configure(dir.c_str());
  auto *counters = static_cast<uint64_t *>(pnmpi_part_region("test", 4096, 1));
  if (counters == nullptr)
    _exit(90);
  counters[0] = 42;
  pnmpi_part_started(3, 4, pnmpi_ticks(), pnmpi_monotonic_ns());
}

TEST(SupportMarks, DefaultSignalKeepsItsStatus) {
  const std::string d = scratch("sigterm");
  const int status = in_child([&] {
    start_part(d);
    raise(SIGTERM);
    _exit(91); // not reached
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  const pnmpi_part_header_t h = read_part(d);
  EXPECT_EQ(std::string(h.magic, 8), PNMPI_PART_MAGIC);
  EXPECT_EQ(h.rank, 3);
  EXPECT_EQ(h.size, 4);
  EXPECT_EQ(h.state, static_cast<uint32_t>(PNMPI_PART_SIGNALED));
  EXPECT_EQ(h.detail, SIGTERM);
  EXPECT_EQ(std::string(h.regions[0].name), "test");
}

int g_handled = 0;
void app_handler(int) {
  _exit(40 + ++g_handled);
}

TEST(SupportMarks, ChainsToTheApplicationsHandler) {
  const std::string d = scratch("chain");
  const int status = in_child([&] {
    signal(SIGUSR1, app_handler);
    start_part(d);
    raise(SIGUSR1);
    _exit(92);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 41) << status;
  EXPECT_EQ(read_part(d).state, static_cast<uint32_t>(PNMPI_PART_SIGNALED));
}

TEST(SupportMarks, IgnoredSignalStaysIgnored) {
  const std::string d = scratch("ignored");
  const int status = in_child([&] {
    signal(SIGTERM, SIG_IGN);
    start_part(d);
    raise(SIGTERM);
    std::exit(5);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 5) << status;
  EXPECT_EQ(read_part(d).state, static_cast<uint32_t>(PNMPI_PART_EXITED));
}

TEST(SupportMarks, ExitWithoutFinalizeAndFinalized) {
  const std::string d = scratch("exit");
  int status = in_child([&] {
    start_part(d);
    std::exit(3);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << status;
  EXPECT_EQ(read_part(d).state, static_cast<uint32_t>(PNMPI_PART_EXITED));
  const std::string f = scratch("finalized");
  status = in_child([&] {
    start_part(f);
    pnmpi_part_mark(PNMPI_PART_FINALIZED, 0);
    raise(SIGTERM); // after finalize: the mark stays, the signal still ends the process
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(read_part(f).state, static_cast<uint32_t>(PNMPI_PART_FINALIZED));
}

TEST(SupportMarks, AbortCodeAndSigkill) {
  const std::string d = scratch("abort");
  int status = in_child([&] {
    start_part(d);
    pnmpi_part_mark(PNMPI_PART_ABORTED, 7);
    abort(); // SIGABRT after the MPI_Abort mark does not replace it
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << status;
  pnmpi_part_header_t h = read_part(d);
  EXPECT_EQ(h.state, static_cast<uint32_t>(PNMPI_PART_ABORTED));
  EXPECT_EQ(h.detail, 7);
  const std::string k = scratch("sigkill");
  status = in_child([&] {
    start_part(k);
    raise(SIGKILL);
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  h = read_part(k);
  EXPECT_EQ(h.state, static_cast<uint32_t>(PNMPI_PART_RUNNING)); // no mark: killed
  EXPECT_EQ(h.rank, 3);
}

} // namespace
