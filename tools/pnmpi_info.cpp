// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-info: what the core would load, without an MPI job. It finds and parses the
// configuration, searches the module path and reads every module file with the core's own
// code (pnmpi_core_objects), then prints the link stack of every wrapped routine. It never
// loads a module (that would need MPI), so it cannot see unresolved symbols; everything
// else the core checks before loading, it checks too.

#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "config.h"
#include "elf_image.h"
#include "error.h"
#include "handles.h"
#include "layer_plan.h"
#include "link_stack.h"
#include "module_loader.h"
#include "module_path.h"
#include "pnmpi_routine_ids.h"

// PNMPI_VERSION, PNMPI_MPI_FLAVOR, PNMPI_BINDIR_TO_LIBDIR: defined by tools/CMakeLists.txt.

namespace pnmpi {
namespace {

const char *const kUsage =
    "usage: pnmpi-info [-c CONF] [-L DIR]... [--check] [-r ROUTINE]\n"
    "\n"
    "Shows what pnmpi would load for an MPI job started here, without running one: the\n"
    "configuration file it reads, each module with its file and arguments, and the link\n"
    "stack of every wrapped routine (which modules wrap MPI_Send, in order). It reads the\n"
    "configuration and the module files exactly as the core does.\n"
    "\n"
    "  -c, --config CONF    read CONF (as PNMPI_CONF=CONF would)\n"
    "  -L, --lib-path DIR   search DIR for modules before $PNMPI_LIB_PATH (repeatable)\n"
    "      --check          print only problems (FILE:LINE: message); exit 1 if any\n"
    "  -r, --routine NAME   show only the link stacks of routine NAME (MPI_Send or Send)\n"
    "  -h, --help           show this help\n"
    "      --version        show the version and the MPI pnmpi was built for\n"
    "\n"
    "Environment: PNMPI_CONF, PNMPI_LIB_PATH (as for the core). Exit status: 0 no problem,\n"
    "1 problems found, 2 usage error.\n";

struct Options {
  std::optional<std::string> config;
  std::vector<std::string> lib_path;
  bool check = false;
  std::optional<std::string> routine;
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
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "-r" || a == "--routine") {
      o.routine = value("a routine name");
    } else {
      usage_error("unknown argument '" + a + "'");
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

/// Everything the report prints, and the problems found while gathering it.
struct Report {
  std::string config_path;
  std::string config_source;
  bool parsed = false; ///< the configuration was read without error
  LayerPlan plan;      ///< config and files; a layer whose file failed has none
  std::vector<std::string> search_path;
  std::size_t lib_path_options = 0; ///< how many of search_path came from -L
  LinkStacks stacks;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

void gather(Report &r, const Options &o) {
  SearchPathInputs search;
  for (const std::string &d : o.lib_path)
    search.first.push_back(absolute(d));
  r.lib_path_options = o.lib_path.size();
  const char *lib_path = std::getenv("PNMPI_LIB_PATH");
  search.lib_path = lib_path != nullptr && *lib_path != '\0' ? lib_path : nullptr;
  search.libdir = install_libdir();
  r.search_path = module_search_path(search);

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
  if (!path)
    return;
  r.config_path = *path;
  r.config_source = o.config                         ? "-c"
                    : config_search.named != nullptr ? "$PNMPI_CONF"
                    : *path == ".pnmpi-conf"         ? "the working directory"
                                                     : "the home directory";
  try {
    r.plan = plan_layers(*path, r.search_path,
                         RoutineIndex(pnmpi_routine_names, PNMPI_NUM_ROUTINES), &r.errors);
  } catch (const Error &e) {
    r.errors.push_back(e.what());
    return;
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
      r.warnings.push_back(where(r.plan.config.path, m.pcontrol_line) + ": warning: module '" +
                           m.name + "' does not wrap MPI_Pcontrol: 'pcontrol' has no effect");
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

void print_report(const Report &r, const std::optional<unsigned> &only) {
  std::ostream &out = std::cout;
  out << "pnmpi-info " << PNMPI_VERSION << " (built for " << PNMPI_MPI_FLAVOR << ", "
      << PNMPI_NUM_ROUTINES << " MPI routines)\n";
  if (r.config_path.empty()) {
    out << "configuration: none ($PNMPI_CONF, ./.pnmpi-conf, ~/.pnmpi-conf): no modules, every "
           "MPI call goes straight to MPI\n";
    return;
  }
  out << "configuration: " << r.config_path << " (from " << r.config_source << ")\n";
  out << "module search path:\n";
  for (std::size_t i = 0; i < r.search_path.size(); ++i)
    out << "  " << r.search_path[i]
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
    out << "  [" << handles.layer_handles[i] << "] " << m.name << " (line " << m.line << ", stack "
        << r.plan.config.stacks[m.stack] << ")\n";
    const ModuleFile *f = r.plan.layers[i].file;
    out << "      file: " << (f != nullptr ? f->path : "(not loadable, see above)") << "\n";
    for (const Argument &a : m.arguments)
      out << "      argument " << a.key << " = " << a.value << " (line " << a.line << ")\n";
    if (f == nullptr)
      continue;
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
    print_report(r, only);
  for (const std::string &w : r.warnings)
    std::cerr << "pnmpi-info: " << w << "\n";
  for (const std::string &e : r.errors)
    std::cerr << "pnmpi-info: " << e << "\n";
  if (o.check && r.errors.empty()) {
    if (r.config_path.empty())
      std::cout << "pnmpi-info: no configuration file: nothing to check\n";
    else
      std::cout << "pnmpi-info: " << r.config_path << ": ok (" << r.plan.config.modules.size()
                << " module(s), " << r.plan.config.stacks.size() << " stack(s))\n";
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
