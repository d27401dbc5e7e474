// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "run_mpi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pnmpi_test_config.h"

extern char **environ;

namespace pnmpi::test {

RunResult run(const std::vector<std::string> &argv, const std::map<std::string, std::string> &env,
              int timeout_s) {
  std::map<std::string, std::string> merged;
  for (char **e = environ; *e != nullptr; ++e) {
    const char *eq = std::strchr(*e, '=');
    if (eq != nullptr)
      merged[std::string(*e, static_cast<std::size_t>(eq - *e))] = eq + 1;
  }
  for (const auto &[k, v] : env)
    merged[k] = v;
  std::vector<std::string> env_strings;
  for (const auto &[k, v] : merged)
    env_strings.push_back(k + "=" + v);
  std::vector<char *> envp, args;
  for (std::string &s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (std::string &s : argv_copy)
    args.push_back(s.data());
  args.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  RunResult result;
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    result.err = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return result;
  }

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd &f : fds)
    if (f.fd >= 0)
      ::close(f.fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::kill(-pid, SIGKILL); // stray ranks of a failed job must not outlive the test
  if (result.timed_out)
    result.exit_code = -1;
  else if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.exit_code = 128 + WTERMSIG(status);
  return result;
}

namespace {

/// Open MPI 4's launcher can report a rank that finished normally as "process rank N with
/// PID 0 ... exiting improperly" and exit 1: its daemon saw the rank's output close before
/// waitpid() told it the exit status (open-mpi/ompi#7833, #9389; seen here once in 235
/// jobs beside `stress-ng --cpu 4`). PID 0 means the launcher lost the process, not that
/// the process failed (a rank that really exits early is named with its PID).
bool open_mpi_lost_a_finished_rank(const RunResult &r) {
  return std::string(PNMPI_TEST_MPI_FLAVOR) == "openmpi" && r.exit_code == 1 &&
         r.err.find(" with PID 0 on\nnode ") != std::string::npos &&
         r.err.find("exiting improperly") != std::string::npos;
}

/// Debian's MPICH 4.0.2 launcher (Hydra) can write to a proxy's socket after a rank that ended
/// quickly closed it, and die of SIGPIPE with the job's output lost: 14 of 150 runs of
/// `mpirun.mpich -np 3 /bin/false` beside `stress-ng --cpu 4` on 2 cores, none of 300 on a
/// quiet machine. The job's own result is then unknown, whatever pnmpi did.
bool hydra_died_of_sigpipe(const RunResult &r) {
  return std::string(PNMPI_TEST_MPI_FLAVOR) == "mpich" && !r.timed_out &&
         r.exit_code == 128 + SIGPIPE;
}

RunResult run_mpi_once(const MpiJob &job) {
  std::vector<std::string> argv{PNMPI_TEST_MPIEXEC};
  std::map<std::string, std::string> env = job.env;
  if (!job.banner)
    env.emplace("PNMPI_BE_SILENT", "1");
  if (std::string(PNMPI_TEST_MPI_FLAVOR) == "openmpi") {
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1";
    argv.insert(argv.end(), {"--oversubscribe", "-np", std::to_string(job.ranks)});
    if (!job.preload.empty())
      argv.insert(argv.end(), {"-x", "LD_PRELOAD=" + job.preload});
  } else {
    argv.insert(argv.end(), {"-np", std::to_string(job.ranks)});
    if (!job.preload.empty())
      argv.insert(argv.end(), {"-genv", "LD_PRELOAD", job.preload});
  }
  std::string rank_dir;
  if (job.stderr_per_rank) {
    static int jobs = 0;
    rank_dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/stderr-" + std::to_string(::getpid()) + "-" +
               std::to_string(++jobs);
    ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
    ::mkdir(rank_dir.c_str(), 0755);
    // Both launchers export the rank: Open MPI as OMPI_COMM_WORLD_RANK, Hydra as PMI_RANK.
    argv.insert(argv.end(), {"/bin/sh", "-c",
                             "exec \"$0\" \"$@\" 2>\"" + rank_dir +
                                 "/rank.${OMPI_COMM_WORLD_RANK:-$PMI_RANK}\""});
  }
  argv.insert(argv.end(), job.program.begin(), job.program.end());
  RunResult result = run(argv, env, job.timeout_s);
  for (int rank = 0; job.stderr_per_rank && rank < job.ranks; ++rank) {
    const std::string path = rank_dir + "/rank." + std::to_string(rank);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    result.rank_err.push_back(text.str());
    result.err += result.rank_err.back();
    ::unlink(path.c_str());
  }
  if (!rank_dir.empty())
    ::rmdir(rank_dir.c_str());
  return result;
}

} // namespace

RunResult run_mpi(const MpiJob &job) {
  RunResult result = run_mpi_once(job);
  if (open_mpi_lost_a_finished_rank(result)) {
    // The job once more, said in the test's output; its result is the one checked.
    std::fprintf(stderr, "run_mpi: Open MPI's launcher lost a finished rank (PID 0, "
                         "open-mpi/ompi#7833): the job runs once more\n");
    result = run_mpi_once(job);
  } else if (hydra_died_of_sigpipe(result)) {
    std::fprintf(stderr, "run_mpi: MPICH's mpiexec (Hydra) was killed by SIGPIPE with the job's "
                         "output lost (a launcher defect on a loaded machine): the job runs once "
                         "more\n");
    result = run_mpi_once(job);
  }
  return result;
}

std::string write_temp_file(const std::string &name, const std::string &text) {
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR);
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

std::string test_name() {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

std::string test_conf_file(const std::string &text) {
  return write_temp_file(test_name() + ".conf", text);
}

std::vector<std::string> lines_with(const std::string &text, const std::string &needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos)
      lines.push_back(line);
  return lines;
}

std::vector<std::string> lines_starting_with(const std::string &text, const std::string &prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0)
      lines.push_back(line);
  return lines;
}

std::string joined_lines(const std::vector<std::string> &lines) {
  std::string text;
  for (const std::string &l : lines)
    text += l + "\n";
  return text;
}

std::string describe(const RunResult &r) {
  return "exit code " + std::to_string(r.exit_code) + (r.timed_out ? " (timed out)" : "") +
         "\n--- stdout ---\n" + r.out + "--- stderr ---\n" + r.err;
}

} // namespace pnmpi::test
