// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The start-up banner: which modules and stacks a run had, printed once on rank 0 after
// MPI_Init in the original PnMPI's layout (section titles and indentation), so that what
// users and scripts looked for there is still where they expect it.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mpi.h>
#include <sstream>
#include <string>

#include "compat.h"
#include "core.h"
#include "log.h"

namespace pnmpi {

namespace {

/// PnMPI's number for a `globalpcontrol` mode (its PNMPI_PCONTROL_* constants).
int pnmpi_pcontrol_number(PcontrolPolicy::Mode mode) {
  switch (mode) {
  case PcontrolPolicy::Mode::Off:
    return 1;
  case PcontrolPolicy::Mode::On:
    return 2;
  case PcontrolPolicy::Mode::Int:
    return 5;
  case PcontrolPolicy::Mode::Typed:
    return 6;
  }
  return 5;
}

/// "Fortran" when the application entered MPI_Init through the MPI's Fortran binding
/// (whose library is the first code outside pnmpi and the layers on the stack), else "C".
const char *mpi_interface() {
  Dl_info info;
  void *caller = application_return_address();
  if (caller == nullptr || ::dladdr(caller, &info) == 0 || info.dli_fname == nullptr)
    return "C";
  // Open MPI's libmpi_mpifh, libmpi_usempi*, MPICH's libmpichfort; the file name only, so
  // that no directory name can match.
  std::string file = info.dli_fname;
  file = file.substr(file.rfind('/') + 1);
  for (const char *fortran : {"libmpi_mpifh", "libmpi_usempi", "libmpichfort"})
    if (file.rfind(fortran, 0) == 0)
      return "Fortran";
  return "C";
}

std::string banner_text() {
  const Core &core = Core::instance();
  const Config &config = core.config();
  std::ostringstream out;
  out << " pnmpi " << PNMPI_VERSION << "\n\n";
  out << " Application:\n  MPI interface: " << mpi_interface() << "\n\n";
  if (core.layers().empty()) {
    out << " No modules loaded.\n\n";
    return out.str();
  }
  out << " Global settings:\n  Pcontrol: " << pnmpi_pcontrol_number(config.pcontrol.mode) << " ("
      << config.pcontrol.describe() << ")\n\n";
  out << " Loaded modules:\n";
  for (std::size_t s = 0; s < config.stacks.size(); ++s) {
    out << "  Stack " << config.stacks[s] << ":\n";
    for (std::size_t i = 0; i < core.layers().size(); ++i) {
      const ModuleSpec &spec = *core.layers()[i].spec;
      if (spec.stack != static_cast<int>(s))
        continue;
      const LayerRegistrations reg = layer_registrations(static_cast<int>(i));
      out << "    " << spec.name;
      if (reg.name != spec.name)
        out << " (registered as: " << reg.name << ")";
      if (core.pcontrol_receives(static_cast<int>(i)))
        out << " (Pcontrol: 1)";
      out << "\n";
      if (!spec.arguments.empty()) {
        out << "      Arguments:\n";
        for (const Argument &a : spec.arguments)
          out << "        " << a.key << ": " << a.value << "\n";
      }
      if (!reg.services.empty()) {
        out << "      Services:\n";
        for (const auto &[name, sig] : reg.services)
          out << "        " << name << " (signature: " << sig << ")\n";
      }
      if (!reg.globals.empty()) {
        out << "      Globals:\n";
        for (const auto &[name, sig] : reg.globals)
          out << "        " << name << " (" << sig << ")\n";
      }
    }
  }
  out << "\n";
  return out.str();
}

} // namespace

void print_banner() {
  static std::atomic<bool> printed{false};
  if (printed.exchange(true))
    return;
  int rank = -1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank != 0)
    return;
  const bool silent = std::getenv("PNMPI_BE_SILENT") != nullptr;
  if (silent && debug_level() < 1)
    return;
  const std::string text = banner_text();
  if (!silent) {
    // Whatever the application or the modules printed before comes first.
    std::fflush(stderr);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty())
      debug(1, "banner:" + line);
}

} // namespace pnmpi
