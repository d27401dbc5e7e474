// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-run: runs an unchanged MPI program under pnmpi. It preloads this install's
// libpnmpi.so, sets pnmpi's environment from its options and replaces itself with the
// program, so it goes between the launcher and each rank:
//   mpirun -np 4 pnmpi-run -c my.conf ./app
// It finds libpnmpi relative to its own location (bin/ -> lib/), in an install and in the
// build tree alike.

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

// PNMPI_VERSION, PNMPI_MPI_FLAVOR, PNMPI_BINDIR_TO_LIBDIR, PNMPI_LIBRARY_NAME: defined by
// tools/CMakeLists.txt.

namespace {

const char *const kUsage =
    "usage: pnmpi-run [-c CONF] [-L DIR]... [-d LEVEL] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM, an unchanged MPI program, with pnmpi: preloads libpnmpi.so and sets\n"
    "pnmpi's environment, then executes PROGRAM with ARGS in its place. Put it between the\n"
    "launcher and the program:  mpirun -np 4 pnmpi-run -c my.conf ./app\n"
    "\n"
    "  -c, --config CONF    the configuration to use (sets PNMPI_CONF to its absolute path)\n"
    "  -L, --lib-path DIR   search DIR for modules, before $PNMPI_LIB_PATH (repeatable)\n"
    "  -d, --debug LEVEL    pnmpi's debug output (sets PNMPI_DEBUG; 1 to 4)\n"
    "  -h, --help           show this help\n"
    "      --version        show the version and the MPI pnmpi was built for\n"
    "\n"
    "libpnmpi.so is put first on LD_PRELOAD (kept once if already there); PNMPI_LIB_PATH\n"
    "and LD_PRELOAD keep their other entries. Options end at the first word that is not\n"
    "one, or at '--'. Exit status: PROGRAM's; 2 usage error; 126 PROGRAM cannot be run; 127\n"
    "PROGRAM not found.\n";

[[noreturn]] void fail(const std::string &message, int status) {
  std::cerr << "pnmpi-run: " << message << "\n";
  std::exit(status);
}

[[noreturn]] void usage_error(const std::string &message) {
  fail(message + "\nTry 'pnmpi-run --help'.", 2);
}

std::string absolute(const std::string &path) {
  if (!path.empty() && path[0] == '/')
    return path;
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr)
    fail(std::string("cannot tell the working directory: ") + std::strerror(errno), 2);
  return std::string(cwd) + "/" + path;
}

/// libpnmpi.so of this install (or build tree), found from our own bin/ directory.
std::string find_library() {
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    fail(std::string("cannot tell where pnmpi-run is: ") + std::strerror(errno), 2);
  self[n] = '\0';
  std::string bindir(self);
  bindir.erase(bindir.rfind('/'));
  // The directory is resolved, the file name kept: it is the SONAME the application's own
  // DT_NEEDED (if it links libpnmpi) names, so the preloaded copy is the one it gets.
  std::string tried;
  std::vector<std::string> libdirs{PNMPI_BINDIR_TO_LIBDIR};
  if (libdirs[0] != "../lib")
    libdirs.emplace_back("../lib");
  for (const std::string &libdir : libdirs) {
    const std::string dir = bindir + "/" + libdir;
    tried += (tried.empty() ? "" : " or ") + dir + "/" + PNMPI_LIBRARY_NAME;
    char resolved[PATH_MAX];
    if (::realpath(dir.c_str(), resolved) == nullptr)
      continue;
    const std::string lib = std::string(resolved) + "/" + PNMPI_LIBRARY_NAME;
    if (::access(lib.c_str(), R_OK) == 0)
      return lib;
  }
  fail("cannot find libpnmpi at " + tried +
           "; pnmpi-run must stay in the bin/ directory of its pnmpi install",
       2);
}

/// `first`, then the entries of `rest` (separated by colons or blanks, as the dynamic linker
/// reads LD_PRELOAD) other than `first`, joined by colons.
std::string prepend(const std::string &first, const char *rest) {
  std::string out = first;
  if (rest == nullptr)
    return out;
  const std::string r(rest);
  std::size_t pos = 0;
  while (pos <= r.size()) {
    std::size_t end = r.find_first_of(": \t", pos);
    if (end == std::string::npos)
      end = r.size();
    const std::string item = r.substr(pos, end - pos);
    if (!item.empty() && item != first)
      out += ":" + item;
    pos = end + 1;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string config, debug;
  std::vector<std::string> lib_path;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char *what) -> std::string {
      if (i + 1 >= argc)
        usage_error("option " + a + " needs " + what);
      // An empty value is a mistake (often an unset variable), never "the default": an
      // empty -L would be the working directory, an empty -c ./.pnmpi-conf.
      if (*argv[i + 1] == '\0')
        usage_error("option " + a + " needs " + what + ", not an empty string");
      return argv[++i];
    };
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-')
      break;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version") {
      std::cout << "pnmpi-run " << PNMPI_VERSION << " (built for " << PNMPI_MPI_FLAVOR << ")\n";
      return 0;
    } else if (a == "-c" || a == "--config") {
      config = value("a configuration file");
    } else if (a == "-L" || a == "--lib-path") {
      lib_path.push_back(value("a directory"));
    } else if (a == "-d" || a == "--debug") {
      debug = value("a level");
    } else {
      usage_error("unknown option '" + a + "'");
    }
  }
  if (i >= argc)
    usage_error("no program to run");

  const std::string library = find_library();
  if (!config.empty()) {
    struct stat st;
    if (::stat(config.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      usage_error("-c " + config + ": no such configuration file");
    ::setenv("PNMPI_CONF", absolute(config).c_str(), 1);
  }
  if (!lib_path.empty()) {
    std::string dirs;
    for (const std::string &d : lib_path)
      dirs += (dirs.empty() ? "" : ":") + absolute(d);
    const char *old = std::getenv("PNMPI_LIB_PATH");
    if (old != nullptr && *old != '\0')
      dirs += std::string(":") + old;
    ::setenv("PNMPI_LIB_PATH", dirs.c_str(), 1);
  }
  if (!debug.empty())
    ::setenv("PNMPI_DEBUG", debug.c_str(), 1);
  ::setenv("LD_PRELOAD", prepend(library, std::getenv("LD_PRELOAD")).c_str(), 1);

  ::execvp(argv[i], argv + i);
  const int err = errno;
  fail(std::string("cannot run '") + argv[i] + "': " + std::strerror(err),
       err == ENOENT ? 127 : 126);
}
