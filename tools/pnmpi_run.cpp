// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-run: runs an unchanged MPI program under pnmpi. It preloads this install's
// libpnmpi.so, sets pnmpi's environment from its options and replaces itself with the
// program, so it goes between the launcher and each rank:
//   mpirun -np 4 pnmpi-run -c my.conf ./app
// It finds libpnmpi relative to its own location (bin/ -> lib/), in an install and in the
// build tree alike. It also takes the original PnMPI launcher's command line (its `pnmpi`,
// built from `pnmpize`), and is installed under those two names as well: the name it was
// called by is the one its messages give.

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "log.h"

// PNMPI_VERSION, PNMPI_MPI_FLAVOR, PNMPI_BINDIR_TO_LIBDIR, PNMPI_LIBRARY_NAME: defined by
// tools/CMakeLists.txt.

namespace {

/// The name we were called by (pnmpi-run, or PnMPI's pnmpize or pnmpi), for messages.
std::string g_name = "pnmpi-run";

std::string usage() {
  return "usage: " + g_name +
         " [OPTION]... [--] PROGRAM [ARGS...]\n"
         "\n"
         "Runs PROGRAM, an unchanged MPI program, with pnmpi: preloads libpnmpi.so and sets\n"
         "pnmpi's environment, then executes PROGRAM with ARGS in its place. Put it between the\n"
         "launcher and the program:  mpirun -np 4 " +
         g_name +
         " -c my.conf ./app\n"
         "\n"
         "  -c, --config CONF      the configuration to use (sets PNMPI_CONF to its absolute\n"
         "                         path)\n"
         "  -L, --lib-path DIR     search DIR for modules, before $PNMPI_LIB_PATH (repeatable)\n"
         "  -m, --modules DIR      the same as -L (PnMPI's name)\n"
         "  -d, --debug LEVEL      0 to 4: pnmpi's debug output (sets PNMPI_DEBUG); init,\n"
         "                         modules or call: the PNMPI_Debug messages of that class\n"
         "                         (sets PNMPI_DBGLEVEL; repeat the option to combine them)\n"
         "  -n, --debug-node RANK  PNMPI_Debug messages from this rank only (PNMPI_DBGNODE)\n"
         "  -q, --quiet            no start-up banner (sets PNMPI_BE_SILENT)\n"
         "  -s, --silent           the same as -q\n"
         "  -i, --interface LANG   C or Fortran, the program's MPI interface: accepted as\n"
         "                         PnMPI's launcher accepts it; one libpnmpi serves both\n"
         "  -f, --fortran          the same as -i Fortran\n"
         "  -h, -?, --help, --usage  show this help\n"
         "  -V, --version          show the version and the MPI pnmpi was built for\n"
         "\n"
         "A value follows its option as the next word, or joined: -cCONF, --config=CONF.\n"
         "Options without a value may be grouped (-qs). libpnmpi.so is put first on\n"
         "LD_PRELOAD (kept once if already there); PNMPI_LIB_PATH and LD_PRELOAD keep their\n"
         "other entries. Options end at the first word that is not one, or at '--'. Exit\n"
         "status: PROGRAM's; 2 usage error; 126 PROGRAM cannot be run; 127 PROGRAM not found.\n";
}

[[noreturn]] void fail(const std::string &message, int status) {
  std::cerr << g_name << ": " << message << "\n";
  std::exit(status);
}

[[noreturn]] void usage_error(const std::string &message) {
  fail(message + "\nTry '" + g_name + " --help'.", 2);
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
    fail(std::string("cannot tell where ") + g_name + " is: " + std::strerror(errno), 2);
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
    tried += (tried.empty() ? "" : " or ") + pnmpi::shown(dir + "/" + PNMPI_LIBRARY_NAME);
    char resolved[PATH_MAX];
    if (::realpath(dir.c_str(), resolved) == nullptr)
      continue;
    const std::string lib = std::string(resolved) + "/" + PNMPI_LIBRARY_NAME;
    if (::access(lib.c_str(), R_OK) == 0)
      return lib;
  }
  fail("cannot find libpnmpi at " + tried + "; " + g_name +
           " must stay in the bin/ directory of its pnmpi install",
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

/// An option: its short letter, long name, and what its value is (nullptr: it takes none).
struct Option {
  char letter;
  const char *name;
  const char *value;
};

// pnmpi-run's own options and the original PnMPI launcher's (-m, -n, -q/-s, -i, -f, -V,
// -?, --usage), which all mean what they meant there.
constexpr Option kOptions[] = {
    {'c', "config", "a configuration file"},
    {'L', "lib-path", "a directory"},
    {'m', "modules", "a directory"},
    {'d', "debug", "a level"},
    {'n', "debug-node", "a rank"},
    {'q', "quiet", nullptr},
    {'s', "silent", nullptr},
    {'i', "interface", "a language"},
    {'f', "fortran", nullptr},
    {'h', "help", nullptr},
    {'?', "usage", nullptr},
    {'V', "version", nullptr},
};

/// What the options ask for, applied to the environment once they are all read.
struct Settings {
  std::string config;
  std::vector<std::string> lib_path;
  std::string debug;
  long debug_classes = -1; // PNMPI_DBGLEVEL from -d init|modules|call; -1: not given
  std::string debug_node;
  bool silent = false;
};

/// PnMPI's debug classes (<pnmpi/debug_io.h>) by the names its launcher gave them.
long debug_class(const std::string &word) {
  if (word == "init")
    return 1;
  if (word == "modules")
    return 2;
  if (word == "call")
    return 4;
  return 0;
}

bool all_digits(const std::string &s) {
  return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

void apply(const Option &option, const std::string &shown, const std::string &value,
           Settings &settings) {
  switch (option.letter) {
  case 'c':
    settings.config = value;
    break;
  case 'L':
  case 'm':
    // A list, as in PNMPI_LIB_PATH: each directory is made absolute, none may be empty.
    for (std::size_t start = 0;;) {
      const std::size_t colon = value.find(':', start);
      const std::string dir = value.substr(start, colon - start);
      if (dir.empty())
        usage_error("option " + shown + " '" + pnmpi::shown(value) +
                    "': an empty directory in the list (it would be the working directory)");
      settings.lib_path.push_back(dir);
      if (colon == std::string::npos)
        break;
      start = colon + 1;
    }
    break;
  case 'd':
    if (all_digits(value)) {
      if (value.size() > 1 || value[0] > '4')
        usage_error("Unknown debug level " + value + " (-d takes 0 to 4, init, modules or call)");
      settings.debug = value;
    } else if (const long bit = debug_class(value); bit != 0) {
      settings.debug_classes = (settings.debug_classes < 0 ? 0 : settings.debug_classes) | bit;
    } else {
      // The first words are the original launcher's message, which scripts may look for.
      usage_error("Unknown debug level " + value + " (-d takes 0 to 4, init, modules or call)");
    }
    break;
  case 'n':
    if (!all_digits(value))
      usage_error("option " + shown + " needs a rank (a whole number from 0 up), not '" + value +
                  "'");
    settings.debug_node = value;
    break;
  case 'q':
  case 's':
    settings.silent = true;
    break;
  case 'i':
    // One libpnmpi serves C and Fortran programs alike (the MPI's Fortran binding is bound
    // to it at start-up), so the language only has to be one pnmpi knows.
    if (::strcasecmp(value.c_str(), "C") != 0 && ::strcasecmp(value.c_str(), "Fortran") != 0)
      usage_error("option " + shown + " needs C or Fortran, not '" + value + "'");
    break;
  case 'f':
    break;
  case 'h':
  case '?':
    std::cout << usage();
    std::exit(0);
  case 'V':
    std::cout << g_name << " " << PNMPI_VERSION << " (built for " << PNMPI_MPI_FLAVOR << ")\n";
    std::exit(0);
  }
}

/// Reads the options in argv[1..] up to the program; returns the program's index.
int parse_options(int argc, char **argv, Settings &settings) {
  int i = 1;
  // The value of `option`, given as `shown`: `joined` (after '=' or the letter) or the
  // next word.
  auto take = [&](const Option &option, const std::string &shown,
                  const char *joined) -> std::string {
    std::string value;
    if (joined != nullptr) {
      value = joined;
    } else {
      if (i + 1 >= argc)
        usage_error("option " + shown + " needs " + option.value);
      value = argv[++i];
    }
    // An empty value is a mistake (often an unset variable), never "the default": an
    // empty -L would be the working directory, an empty -c ./.pnmpi-conf.
    if (value.empty())
      usage_error("option " + shown + " needs " + option.value + ", not an empty string");
    return value;
  };
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--")
      return i + 1;
    if (a.size() < 2 || a[0] != '-')
      return i;
    if (a[1] == '-') {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const Option *found = nullptr;
      for (const Option &o : kOptions)
        if (name == o.name)
          found = &o;
      if (found == nullptr)
        usage_error("unknown option '--" + name + "'");
      const std::string shown = "--" + name;
      if (found->value == nullptr && eq != std::string::npos)
        usage_error("option " + shown + " takes no value");
      const std::string value =
          found->value != nullptr
              ? take(*found, shown, eq == std::string::npos ? nullptr : argv[i] + eq + 1)
              : "";
      apply(*found, shown, value, settings);
      continue;
    }
    // Short options, grouped as getopt groups them: -qs, -qc CONF, -cCONF.
    for (std::size_t k = 1; k < a.size(); ++k) {
      const Option *found = nullptr;
      for (const Option &o : kOptions)
        if (a[k] == o.letter)
          found = &o;
      const std::string shown = std::string("-") + a[k];
      if (found == nullptr)
        usage_error("unknown option '" + (k == 1 ? a : shown) + "'");
      if (found->value == nullptr) {
        apply(*found, shown, "", settings);
        continue;
      }
      const std::string value = take(*found, shown, k + 1 < a.size() ? argv[i] + k + 1 : nullptr);
      apply(*found, shown, value, settings);
      break;
    }
  }
  return i;
}

/// Whether this process is the first rank of its job, as far as the launcher says (or not
/// under a launcher at all): one line per job, not one per rank.
bool first_rank() {
  for (const char *var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char *v = std::getenv(var); v != nullptr && *v != '\0')
      return std::strcmp(v, "0") == 0;
  return true;
}

/// A ./.pnmpi-conf that no one named changes what the job does: say that it is taken.
void name_implicit_config(const Settings &settings) {
  const char *named = std::getenv("PNMPI_CONF");
  struct stat st;
  if (!settings.config.empty() || (named != nullptr && *named != '\0') || settings.silent ||
      ::stat(".pnmpi-conf", &st) != 0 || !S_ISREG(st.st_mode) || !first_rank())
    return;
  const std::string here = absolute("."); // the working directory + "/."
  std::cerr << g_name << ": configuration ./.pnmpi-conf in the working directory "
            << here.substr(0, here.size() - 2)
            << " (found there: neither PNMPI_CONF nor -c names a configuration)\n";
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 0 && argv[0] != nullptr && *argv[0] != '\0') {
    g_name = argv[0];
    g_name.erase(0, g_name.rfind('/') + 1);
  }
  Settings settings;
  const int program = parse_options(argc, argv, settings);
  if (program >= argc)
    usage_error("no program to run");

  const std::string library = find_library();
  name_implicit_config(settings);
  if (!settings.config.empty()) {
    struct stat st;
    if (::stat(settings.config.c_str(), &st) != 0)
      usage_error("-c " + pnmpi::shown(settings.config) + ": no such configuration file");
    if (!S_ISREG(st.st_mode))
      usage_error("-c " + pnmpi::shown(settings.config) + ": not a configuration file but a " +
                  (S_ISDIR(st.st_mode) ? "directory" : "special file") +
                  "; give the file (such as " + pnmpi::shown(settings.config + "/.pnmpi-conf") +
                  ")");
    ::setenv("PNMPI_CONF", absolute(settings.config).c_str(), 1);
  }
  if (!settings.lib_path.empty()) {
    std::string dirs;
    for (const std::string &d : settings.lib_path)
      dirs += (dirs.empty() ? "" : ":") + absolute(d);
    const char *old = std::getenv("PNMPI_LIB_PATH");
    if (old != nullptr && *old != '\0')
      dirs += std::string(":") + old;
    ::setenv("PNMPI_LIB_PATH", dirs.c_str(), 1);
  }
  if (!settings.debug.empty())
    ::setenv("PNMPI_DEBUG", settings.debug.c_str(), 1);
  if (settings.debug_classes >= 0)
    ::setenv("PNMPI_DBGLEVEL", std::to_string(settings.debug_classes).c_str(), 1);
  if (!settings.debug_node.empty())
    ::setenv("PNMPI_DBGNODE", settings.debug_node.c_str(), 1);
  if (settings.silent)
    ::setenv("PNMPI_BE_SILENT", "1", 1);
  ::setenv("LD_PRELOAD", prepend(library, std::getenv("LD_PRELOAD")).c_str(), 1);

  ::execvp(argv[program], argv + program);
  const int err = errno;
  fail("cannot run '" + pnmpi::shown(argv[program]) + "': " + std::strerror(err),
       err == ENOENT ? 127 : 126);
}
