// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-info: what the core would load, without an MPI job. It finds and parses the
// configuration, searches the module path and reads every module file with the core's own
// code (pnmpi_core_objects), then prints the link stack of every wrapped routine. It never
// loads a module (that would need MPI), so it cannot see unresolved symbols; everything
// else the core checks before loading, it checks too.

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "config.h"
#include "core.h"
#include "elf_image.h"
#include "error.h"
#include "handles.h"
#include "layer_plan.h"
#include "link_stack.h"
#include "log.h"
#include "module_loader.h"
#include "module_path.h"
#include "pnmpi_routine_ids.h"

// PNMPI_VERSION, PNMPI_MPI_FLAVOR, PNMPI_BINDIR_TO_LIBDIR, PNMPI_LIBRARY_NAME: defined by
// tools/CMakeLists.txt.

namespace pnmpi {
namespace {

const char *const kUsage =
    "usage: pnmpi-info [-c CONF] [-L DIR]... [-x PROGRAM] [--check] [-r ROUTINE]\n"
    "\n"
    "Shows what pnmpi would load for an MPI job started here, without running one: the\n"
    "configuration file it reads, each module with its file and arguments, and the link\n"
    "stack of every wrapped routine (which modules wrap MPI_Send, in order). It reads the\n"
    "configuration, the site's configuration and the module files exactly as the core does,\n"
    "and has every module that offers it check its argument values with its own code.\n"
    "\n"
    "  -c, --config CONF    read CONF (as PNMPI_CONF=CONF would)\n"
    "  -L, --lib-path DIR   search DIR for modules before $PNMPI_LIB_PATH (repeatable)\n"
    "  -x, --executable PROGRAM\n"
    "                       say whether the site's modules apply to PROGRAM\n"
    "      --check          print only problems (FILE:LINE: message); exit 1 if any\n"
    "  -r, --routine NAME   show only the link stacks of routine NAME (MPI_Send or Send)\n"
    "  -h, --help           show this help\n"
    "      --version        show the version and the MPI pnmpi was built for\n"
    "\n"
    "Environment: PNMPI_CONF, PNMPI_LIB_PATH, PNMPI_SITE_CONF, PNMPI_SITE_DISABLE (as for\n"
    "the core). Exit status: 0 no problem,\n"
    "1 problems found, 2 usage error.\n";

struct Options {
  std::optional<std::string> config;
  std::vector<std::string> lib_path;
  bool check = false;
  std::optional<std::string> routine;
  std::optional<std::string> executable;
};

[[noreturn]] void usage_error(const std::string &message) {
  std::cerr << "pnmpi-info: " << message << "\n"
            << "Try 'pnmpi-info --help'.\n";
  std::exit(2);
}

Options parse_options(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
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
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "pnmpi-info " << PNMPI_VERSION << " (built for " << PNMPI_MPI_FLAVOR << ", "
                << PNMPI_NUM_ROUTINES << " MPI routines)\n";
      std::exit(0);
    } else if (a == "-c" || a == "--config") {
      o.config = value("a configuration file");
    } else if (a == "-L" || a == "--lib-path") {
      o.lib_path.push_back(value("a directory"));
    } else if (a == "-x" || a == "--executable") {
      o.executable = value("a program");
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "-r" || a == "--routine") {
      o.routine = value("a routine name");
    } else {
      usage_error("unknown argument '" + shown(a) + "'");
    }
  }
  return o;
}

/// The absolute form of `path` (relative to the working directory), without resolving links.
/// `path` made absolute and lexically clean (`run/../build/modules` -> `build/modules`),
/// without resolving links: the directory as the user named it.
std::string absolute(const std::string &path) {
  std::filesystem::path p(path);
  if (!p.is_absolute()) {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr)
      return path;
    p = std::filesystem::path(cwd) / p;
  }
  std::string clean = p.lexically_normal().string();
  if (clean.size() > 1 && clean.back() == '/')
    clean.pop_back();
  return clean;
}

/// The directory where this install keeps libpnmpi.so, as seen from this program: the
/// install's libdir relative to bin/, else ../lib (the build tree).
std::string install_libdir() {
  const std::string bindir = directory_of("/proc/self/exe");
  std::vector<std::string> libdirs{PNMPI_BINDIR_TO_LIBDIR};
  if (libdirs[0] != "../lib")
    libdirs.emplace_back("../lib");
  for (const std::string &libdir : libdirs) {
    const std::string dir = bindir + "/" + libdir;
    char resolved[PATH_MAX];
    if (::realpath(dir.c_str(), resolved) != nullptr)
      return resolved;
  }
  return "";
}

/// What a layer's own argument check (pnmpi_module_check) said.
enum class ValueCheck { NotRun, Passed, Failed, NotOffered };

/// The site's configuration, as it applies to a job started here (docs/site.md).
struct SiteReport {
  std::string path;   ///< "" when there is none
  std::string source; ///< "$PNMPI_SITE_CONF" or "the install"
  bool parsed = false;
  SiteSettings settings;
  bool opted_out = false; ///< PNMPI_SITE_DISABLE=1 is set
};

/// Everything the report prints, and the problems found while gathering it.
struct Report {
  std::string config_path; ///< the user's; "" when none
  std::string config_source;
  bool parsed = false; ///< the configurations were read without error
  SiteReport site;
  LayerPlan plan; ///< config and files; a layer whose file failed has none
  std::vector<std::string> search_path;
  std::size_t lib_path_options = 0; ///< how many of search_path came from -L
  LinkStacks stacks;
  std::vector<ValueCheck> checks; ///< per layer
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

/// The mark of a problem with the site's configuration or one of its modules: they are the
/// site's to fix, and a job runs on without them.
const char *const kSiteProblem =
    " [the site configuration's: for the site's administrators to fix; a job runs on without "
    "the site's modules]";

/// Reads the site's configuration into r.site; its problems go to r.errors, marked.
std::optional<Config> gather_site(Report &r) {
  const SiteSearch search = SiteSearch::from_environment();
  const char *optout = std::getenv("PNMPI_SITE_DISABLE");
  r.site.opted_out = optout != nullptr && std::strcmp(optout, "1") == 0;
  try {
    const std::optional<std::string> found = find_site_config(search);
    if (!found)
      return std::nullopt;
    r.site.path = *found;
    r.site.source = search.named != nullptr ? "$PNMPI_SITE_CONF" : "the install";
    Config site = load_config_file(*found, ConfigKind::Site);
    r.site.settings = site.site;
    r.site.parsed = true;
    return site;
  } catch (const Error &e) {
    r.errors.push_back(e.what() + std::string(kSiteProblem));
    return std::nullopt;
  }
}

/// Runs layer `layer`'s own argument check (Core::check_arguments) in a child process that
/// opens this install's libpnmpi: the module's code reads its arguments exactly as at
/// MPI_Init, and what it prints (`pnmpi: FILE:LINE: ...`) is collected into r.errors. The
/// child's environment names the configuration and the search path this report used.
ValueCheck check_values(Report &r, std::size_t layer, const Options &o) {
  const std::string library = install_libdir() + "/" + PNMPI_LIBRARY_NAME;
  int out[2];
  if (::pipe(out) != 0) {
    r.errors.push_back("cannot check argument values: pipe: " + std::string(std::strerror(errno)));
    return ValueCheck::Failed;
  }
  std::string lib_path;
  for (const std::string &d : o.lib_path)
    lib_path += (lib_path.empty() ? "" : ":") + absolute(d);
  if (const char *env = std::getenv("PNMPI_LIB_PATH"); env != nullptr && *env != '\0')
    lib_path += (lib_path.empty() ? "" : ":") + std::string(env);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    if (r.config_path.empty())
      ::unsetenv("PNMPI_CONF"); // as here: none found
    else
      ::setenv("PNMPI_CONF", r.config_path.c_str(), 1);
    ::setenv("PNMPI_LIB_PATH", lib_path.c_str(), 1);
    void *core = ::dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
    void *fn = core != nullptr ? ::dlsym(core, "pnmpi_check_module_arguments") : nullptr;
    if (fn == nullptr) {
      const char *why = ::dlerror();
      const std::string line = "pnmpi: cannot open " + shown(library) +
                               " to check argument values: " + (why != nullptr ? why : "") + "\n";
      (void)!::write(STDERR_FILENO, line.data(), line.size());
      ::_exit(kCheckFailed);
    }
    ::_exit(reinterpret_cast<int (*)(int)>(fn)(static_cast<int>(layer)));
  }
  ::close(out[1]);
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) {
    r.errors.push_back("cannot check argument values: cannot start a process");
    return ValueCheck::Failed;
  }
  const ModuleSpec &m = *r.plan.layers[layer].spec;
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(at, end - at);
    if (line.rfind("pnmpi: ", 0) == 0)
      line.erase(0, 7);
    if (!line.empty())
      lines.push_back(line);
    at = end + 1;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == kCheckPassed || code == kCheckNotOffered || code == kCheckNoLayer)
    return code == kCheckPassed ? ValueCheck::Passed : ValueCheck::NotOffered;
  for (const std::string &line : lines)
    r.errors.push_back(line);
  if (WIFSIGNALED(status))
    r.errors.push_back(module_context(m, r.plan.config) +
                       ": its argument check (pnmpi_module_check) ended with signal " +
                       std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                       "): a bug in the module");
  else if (lines.empty())
    r.errors.push_back(module_context(m, r.plan.config) +
                       ": its argument check (pnmpi_module_check) failed without saying why "
                       "(exit status " +
                       std::to_string(code) + ")");
  return ValueCheck::Failed;
}

void gather(Report &r, const Options &o) {
  SearchPathInputs search;
  for (const std::string &d : o.lib_path)
    search.first.push_back(absolute(d));
  r.lib_path_options = o.lib_path.size();
  const char *lib_path = std::getenv("PNMPI_LIB_PATH");
  search.lib_path = lib_path != nullptr && *lib_path != '\0' ? lib_path : nullptr;
  search.libdir = install_libdir();
  r.search_path = module_search_path(search);

  std::optional<Config> site = gather_site(r);
  ConfigSearch config_search = ConfigSearch::from_environment();
  if (o.config) {
    config_search.named = o.config->c_str();
    config_search.named_by_option = true;
  }
  std::optional<std::string> path;
  try {
    path = find_config_file(config_search);
  } catch (const Error &e) {
    r.errors.push_back(e.what());
    return;
  }
  if (!path && !site)
    return;
  Config config;
  if (path) {
    r.config_path = *path;
    r.config_source = o.config                         ? "-c"
                      : config_search.named != nullptr ? "$PNMPI_CONF"
                      : *path == ".pnmpi-conf"         ? "the working directory"
                                                       : "the home directory";
    try {
      config = load_config_file(*path);
    } catch (const Error &e) {
      r.errors.push_back(e.what());
      return;
    }
  }
  if (site)
    config = compose_configs(std::move(config), std::move(*site));
  std::vector<std::string> errors;
  r.plan = plan_config(std::move(config), r.search_path,
                       RoutineIndex(pnmpi_routine_names, PNMPI_NUM_ROUTINES), &errors);
  for (std::string &e : errors) {
    // A site module's problem is the site's.
    for (const PlannedLayer &layer : r.plan.layers)
      if (layer.spec->site && layer.error == e) {
        e += kSiteProblem;
        break;
      }
    r.errors.push_back(std::move(e));
  }
  r.parsed = true;
  // Nothing is loaded: every address is zero, and the stacks show only their shape.
  const std::vector<std::uintptr_t> bases(r.plan.layers.size(), 0);
  const std::vector<std::uintptr_t> bottom(PNMPI_NUM_ROUTINES, 0);
  r.stacks = build_link_stacks(layer_views(r.plan, bases), PNMPI_NUM_ROUTINES,
                               static_cast<int>(r.plan.config.stacks.size()), bottom);

  // Lines that are valid but have no effect: worth a warning, not a failure.
  std::vector<bool> used(r.plan.config.stacks.size(), false);
  for (const ModuleSpec &m : r.plan.config.modules)
    used[static_cast<std::size_t>(m.stack)] = true;
  for (std::size_t s = 1; s < r.plan.config.stacks.size(); ++s) {
    if (!used[s])
      r.warnings.push_back(where(r.plan.config.path, r.plan.config.stack_lines[s]) +
                           ": warning: stack '" + r.plan.config.stacks[s] +
                           "' has no modules: calls sent into it go straight to MPI");
  }
  for (std::size_t i = 0; i < r.plan.config.modules.size(); ++i) {
    const ModuleSpec &m = r.plan.config.modules[i];
    if (m.pcontrol_line == 0 || r.plan.layers[i].file == nullptr)
      continue;
    bool wraps = false;
    for (const ElfImage::Wrapper &w : r.plan.layers[i].file->image.wrappers)
      wraps |= w.id == PNMPI_ID_MPI_Pcontrol;
    if (!wraps)
      r.warnings.push_back(where(source_of(m, r.plan.config), m.pcontrol_line) +
                           ": warning: module '" + m.name +
                           "' does not wrap MPI_Pcontrol: 'pcontrol' has no effect");
  }

  // Argument values, each checked by its module's own code where the module offers it.
  r.checks.assign(r.plan.layers.size(), ValueCheck::NotRun);
  for (std::size_t i = 0; i < r.plan.layers.size(); ++i) {
    const PlannedLayer &layer = r.plan.layers[i];
    if (layer.file == nullptr)
      continue;
    if (layer.file->image.pnmpi_syms.count("pnmpi_module_check") == 0) {
      r.checks[i] = ValueCheck::NotOffered; // said in the report and in --check's last line
      continue;
    }
    const std::size_t before = r.errors.size();
    r.checks[i] = check_values(r, i, o);
    if (layer.spec->site)
      for (std::size_t e = before; e < r.errors.size(); ++e)
        if (r.errors[e].find(kSiteProblem) == std::string::npos &&
            r.errors[e].find("[a module of the site configuration") == std::string::npos)
          r.errors[e] += kSiteProblem;
  }
}

/// The handles the services give the layers and stacks of `r` (the original PnMPI's
/// numbering: a `stack` line takes a number too), so that what pnmpi-info lists is what
/// PNMPI_Service_GetModuleSelf and PNMPI_Service_GetStackByName return.
HandleNumbers handles_of(const Report &r) {
  std::vector<int> layer_stacks;
  for (const ModuleSpec &m : r.plan.config.modules)
    layer_stacks.push_back(m.stack);
  return number_handles(r.plan.config.stack_lines, layer_stacks);
}

/// `tag[0] -> delay[1] -> MPI` for routine `id` in stack `stack`, each layer by its handle.
std::string chain_text(const Report &r, const HandleNumbers &handles, int stack, unsigned id) {
  std::string line;
  for (const LinkStacks::Entry &e : r.stacks.chain(stack, id))
    line += r.plan.config.modules[e.layer].name + "[" +
            std::to_string(handles.layer_handles[static_cast<std::size_t>(e.layer)]) + "] -> ";
  return line + "MPI";
}

/// The site's part of the report: which configuration, its records, opt-out and rules.
void print_site(const Report &r, const Options &o) {
  std::ostream &out = std::cout;
  if (r.site.path.empty()) {
    out << "site configuration: none ($PNMPI_SITE_CONF, or "
        << SiteSearch::from_environment().installed << ")\n";
    return;
  }
  out << "site configuration: " << shown(r.site.path) << " (from " << r.site.source << ")\n";
  if (!r.site.parsed)
    return;
  const SiteSettings &s = r.site.settings;
  out << "  records: "
      << (s.records.empty() ? std::string("none (no 'records' line): no job records")
                            : shown(s.records) + " (line " + std::to_string(s.records_line) + ")")
      << "\n";
  out << "  opt-out: "
      << (s.optout ? "allowed: PNMPI_SITE_DISABLE=1 turns the site's modules off"
                   : "denied (line " + std::to_string(s.optout_line) +
                         "): PNMPI_SITE_DISABLE=1 is ignored")
      << (r.site.opted_out
              ? (s.optout ? " (set here: the site's modules are off)" : " (set here, and ignored)")
              : "")
      << "\n";
  for (const SiteSettings::Rule &rule : s.rules)
    out << "  " << (rule.include ? "include " : "exclude ") << rule.pattern << " (line "
        << rule.line << ")\n";
  if (o.executable) {
    const std::string exe = absolute(*o.executable);
    out << "  executable " << shown(exe) << ": "
        << (site_applies_to(s, exe) ? "included: the site's modules apply"
                                    : "excluded: the site's modules do not apply")
        << "\n";
  } else if (!s.rules.empty()) {
    out << "  (-x PROGRAM says whether the site's modules apply to PROGRAM)\n";
  }
}

void print_report(const Report &r, const Options &o, const std::optional<unsigned> &only) {
  std::ostream &out = std::cout;
  out << "pnmpi-info " << PNMPI_VERSION << " (built for " << PNMPI_MPI_FLAVOR << ", "
      << PNMPI_NUM_ROUTINES << " MPI routines)\n";
  if (r.config_path.empty())
    out << "configuration: none ($PNMPI_CONF, ./.pnmpi-conf, ~/.pnmpi-conf)"
        << (r.site.parsed ? "" : ": no modules, every MPI call goes straight to MPI") << "\n";
  else
    out << "configuration: " << shown(r.config_path) << " (from " << r.config_source << ")\n";
  print_site(r, o);
  if (r.config_path.empty() && !r.site.parsed)
    return;
  out << "module search path:\n";
  for (std::size_t i = 0; i < r.search_path.size(); ++i)
    out << "  " << shown(r.search_path[i])
        << (i + 1 == r.search_path.size() ? " (the install's module directory)\n"
            : i < r.lib_path_options      ? " (-L)\n"
                                          : " (PNMPI_LIB_PATH)\n");
  if (!r.parsed)
    return; // the configuration did not parse: nothing more to show
  out << "globalpcontrol: " << r.plan.config.pcontrol.describe()
      << (r.plan.config.pcontrol.line == 0 ? " (default)" : "") << "\n";

  const HandleNumbers handles = handles_of(r);
  out << "\nmodules:\n";
  for (std::size_t i = 0; i < r.plan.config.modules.size(); ++i) {
    const ModuleSpec &m = r.plan.config.modules[i];
    out << "  [" << handles.layer_handles[i] << "] " << m.name << " ("
        << (m.site ? "the site's, " + shown(source_of(m, r.plan.config)) + " " : std::string())
        << "line " << m.line << ", stack " << r.plan.config.stacks[m.stack] << ")\n";
    const ModuleFile *f = r.plan.layers[i].file;
    out << "      file: " << (f != nullptr ? shown(f->path) : "(not loadable, see above)") << "\n";
    for (const Argument &a : m.arguments)
      out << "      argument " << a.key << " = " << shown(a.value) << " (line " << a.line << ")\n";
    if (f == nullptr)
      continue;
    if (!m.arguments.empty())
      out << "      values: "
          << (r.checks[i] == ValueCheck::Passed   ? "checked by the module: ok"
              : r.checks[i] == ValueCheck::Failed ? "checked by the module: refused (see above)"
                                                  : "not checked (the module exports no "
                                                    "pnmpi_module_check)")
          << "\n";
    out << "      wraps " << f->image.wrappers.size() << " routine(s)";
    bool pcontrol = false;
    for (const ElfImage::Wrapper &w : f->image.wrappers)
      pcontrol |= w.id == PNMPI_ID_MPI_Pcontrol;
    if (pcontrol)
      out << "; MPI_Pcontrol " << (receives_pcontrol(r.plan.config, m) ? "on" : "off");
    out << "\n";
    static const char *const kHooks[] = {
        "pnmpi_module_loaded", "PNMPI_RegistrationPoint", "PNMPI_Init",
        "PNMPI_Fini",          "pnmpi_module_finalize",   "PNMPI_UnregistrationPoint"};
    std::vector<std::string> hooks;
    for (const char *hook : kHooks)
      if (f->image.pnmpi_syms.count(hook) != 0)
        hooks.push_back(hook);
    if (!hooks.empty()) {
      out << "      hooks:"; // in the order they run
      for (const std::string &h : hooks)
        out << " " << h;
      out << "\n";
    }
  }

  out << "\nlink stacks:\n";
  for (std::size_t s = 0; s < r.plan.config.stacks.size(); ++s) {
    out << "  stack " << r.plan.config.stacks[s] << " [" << handles.stack_handles[s] << "]:\n";
    bool any = false;
    for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id) {
      if (only && id != *only)
        continue;
      if (r.stacks.chain(s, id).empty() && !only)
        continue;
      out << "    " << std::left << std::setw(28) << pnmpi_routine_names[id] << " "
          << chain_text(r, handles, static_cast<int>(s), id) << "\n";
      any = true;
    }
    if (!any)
      out << "    (no routine wrapped)\n";
  }
}

std::optional<unsigned> routine_id(const std::string &name) {
  const std::string full = name.rfind("MPI_", 0) == 0 ? name : "MPI_" + name;
  for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id)
    if (full == pnmpi_routine_names[id])
      return id;
  return std::nullopt;
}

/// For --check's last line: the modules given arguments whose values nothing checked here.
std::string unchecked_note(const Report &r) {
  std::string names;
  std::vector<std::string> seen; // each module named once, however many lines list it
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    const ModuleSpec &m = *r.plan.layers[i].spec;
    if (r.checks[i] != ValueCheck::NotOffered || m.arguments.empty() ||
        std::find(seen.begin(), seen.end(), m.name) != seen.end())
      continue;
    seen.push_back(m.name);
    names += (names.empty() ? "'" : ", '") + shown(m.name) + "'";
  }
  if (names.empty())
    return "";
  return "; the argument values of " + names +
         " are not checked here (no pnmpi_module_check): the job checks them when it starts";
}

int run(int argc, char **argv) {
  const Options o = parse_options(argc, argv);
  std::optional<unsigned> only;
  if (o.routine) {
    only = routine_id(*o.routine);
    if (!only)
      usage_error("no routine '" + *o.routine + "' in the MPI pnmpi was built for (" +
                  PNMPI_MPI_FLAVOR + ")");
  }
  Report r;
  gather(r, o);
  if (!o.check)
    print_report(r, o, only);
  for (const std::string &w : r.warnings)
    std::cerr << "pnmpi-info: " << w << "\n";
  for (const std::string &e : r.errors)
    std::cerr << "pnmpi-info: " << e << "\n";
  if (o.check && r.errors.empty()) {
    if (r.config_path.empty() && r.site.path.empty())
      std::cout << "pnmpi-info: no configuration file: nothing to check\n";
    else
      std::cout << "pnmpi-info: "
                << (r.config_path.empty()
                        ? std::string()
                        : shown(r.config_path) + (r.site.path.empty() ? "" : " and "))
                << (r.site.path.empty() ? std::string()
                                        : "site configuration " + shown(r.site.path))
                << ": ok (" << r.plan.config.modules.size() << " module(s), "
                << r.plan.config.stacks.size() << " stack(s))" << unchecked_note(r) << "\n";
  }
  return r.errors.empty() ? 0 : 1;
}

} // namespace
} // namespace pnmpi

int main(int argc, char **argv) {
  try {
    return pnmpi::run(argc, argv);
  } catch (const std::exception &e) {
    std::cerr << "pnmpi-info: " << e.what() << "\n";
    return 1;
  }
}
