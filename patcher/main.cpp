// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-patch: the command-line face of elf_rename. All errors are exceptions, caught once in
// main() and printed as "pnmpi-patch: <message>".

#include "elf_rename.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <new>
#include <string>
#include <sys/stat.h>
#include <vector>

#ifndef PNMPI_VERSION
#define PNMPI_VERSION "0.1.0"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitAlreadyPatched = 3;

const char kHelp[] = R"(Usage: pnmpi-patch [--dry-run | --list] IN OUT
       pnmpi-patch [--dry-run | --list] --in-place IN

Turns a binary PMPI tool (a shared object) into a pnmpi module: every imported
(undefined) dynamic symbol PMPI_* is renamed to XMPI_* of the same length, so
that the tool's calls reach the next pnmpi layer instead of the MPI library.
Defined symbols and all other strings stay as they are. Versioned imports
(PMPI_Send@VER) become unversioned so that they bind to pnmpi's definitions.

IN is never modified, unless --in-place is given or OUT names the same file.
IN must be a regular file of at most 1 GiB. The result is written to a new
temporary file in the target's directory, parsed and validated again, then
renamed over the target: there is never a partial output. A new OUT gets IN's
permission bits; a replaced file keeps its own mode and group. Only a regular
file that you own, that its mode lets you write and that has no other hard
link is replaced: never a device, FIFO, socket or directory, not even by root.
A symbolic link given as IN with --in-place, or as an existing OUT, is
followed: the file it names is replaced.

Options:
  --in-place   replace IN with the patched file
  --dry-run    plan the patch and validate it in memory; write nothing
  --list       print the imports that would be renamed; write nothing
  -h, --help   print this help and exit
  --version    print the version and exit

Exit status:
  0  patched, or (--dry-run, --list) would patch; also when there is nothing
     to rename: a warning is printed and OUT, if given, is a copy of IN
  1  error: IN cannot be read, is not ELF, is truncated or corrupt, or is
     refused (a static archive, an object without dynamic symbols, an MPI
     library that defines PMPI_* symbols, a name that cannot be changed
     safely), or the target cannot be replaced safely; nothing is written
  2  usage error
  3  IN is already patched (imports XMPI_* and no PMPI_*); nothing is written
)";

class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Options {
  bool in_place = false;
  bool dry_run = false;
  bool list = false;
  std::string in;
  std::string out;
};

/// Parses the arguments; returns false when --help or --version was answered.
bool parse_arguments(int argc, char **argv, Options &options) {
  std::vector<std::string> files;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (options_done || arg.empty() || arg[0] != '-' || arg == "-") {
      files.push_back(arg);
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kHelp;
      return false;
    } else if (arg == "--version") {
      std::cout << "pnmpi-patch " PNMPI_VERSION "\n";
      return false;
    } else if (arg == "--in-place") {
      options.in_place = true;
    } else if (arg == "--dry-run") {
      options.dry_run = true;
    } else if (arg == "--list") {
      options.list = true;
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (files.empty())
    throw UsageError("missing IN");
  if (files.size() > 2)
    throw UsageError("too many arguments");
  if (options.in_place && files.size() == 2)
    throw UsageError("--in-place takes IN only, not OUT");
  if (!options.in_place && !options.dry_run && !options.list && files.size() == 1)
    throw UsageError("missing OUT (or give --in-place)");
  options.in = files[0];
  if (files.size() == 2)
    options.out = files[1];
  return true;
}

/// The file to write, checked; `in_place` tells whether that is IN itself.
pnmpi::OutputTarget target_of(const Options &options, const struct stat &in_stat, bool &in_place) {
  if (!options.in_place) {
    struct stat out_stat;
    if (stat(options.out.c_str(), &out_stat) == 0 && S_ISDIR(out_stat.st_mode))
      throw UsageError("OUT '" + options.out + "' is a directory");
  }
  const pnmpi::OutputTarget target =
      pnmpi::check_output(options.in_place ? options.in : options.out);
  // check_output() refuses a file with more than one link, so the same inode means that the
  // name replaced is IN's only name.
  in_place = target.exists && target.status.st_dev == in_stat.st_dev &&
             target.status.st_ino == in_stat.st_ino;
  if (options.in_place && !in_place)
    throw pnmpi::PatchError(pnmpi::PatchErrorKind::io,
                            options.in + ": was replaced by another file while pnmpi-patch read "
                                         "it; nothing was written: run pnmpi-patch again");
  return target;
}

/// The file just written, read back; it may be larger than an input may be.
pnmpi::ElfObject reload(const std::string &written, std::uint64_t size) {
  struct stat status;
  return pnmpi::ElfObject::load(written, status,
                                std::max<std::uint64_t>(size, pnmpi::kMaxInputSize));
}

std::string describe(const pnmpi::RenamePlan &plan) {
  std::size_t unversioned = 0;
  for (const pnmpi::Rename &r : plan.renames)
    unversioned += r.new_version_index != r.old_version_index;
  std::string text = std::to_string(plan.renames.size()) + " PMPI_ import(s) to XMPI_";
  if (unversioned)
    text += ", " + std::to_string(unversioned) + " of them now unversioned";
  return text;
}

std::string relocation_note(const pnmpi::RenamePlan &plan) {
  if (!plan.relocate_dynstr)
    return "";
  std::string why = plan.shared.empty() ? "'.dynstr' is also used by " + plan.unknown_users.front()
                                        : "the first byte of " + plan.shared.front().renamed +
                                              " is shared with " + plan.shared.front().user;
  return "; the new names went into a copy of '.dynstr' in a new segment, because " + why;
}

/// The MPI a library soname belongs to, for messages.
std::string mpi_family(const std::string &soname) {
  if (soname.rfind("libmpich.so", 0) == 0 || soname == "libmpi.so.12")
    return "MPICH";
  if (soname == "libmpi.so.40")
    return "Open MPI";
  return "an MPI";
}

/// Warns when IN needs an MPI library other than the one this pnmpi is built for: pnmpi
/// refuses such a module when it loads it, so the user learns it now, not in a job.
void warn_other_mpi(const pnmpi::ElfObject &in) {
  const std::string ours = PNMPI_MPI_SONAME;
  if (ours.empty())
    return;
  for (const std::string &lib : in.needed()) {
    const bool mpi = lib.rfind("libmpi.so", 0) == 0 || lib.rfind("libmpich.so", 0) == 0;
    if (!mpi || lib == ours)
      continue;
    std::cerr << "pnmpi-patch: warning: " << in.label() << ": built for another MPI: it needs "
              << lib << " (" << mpi_family(lib) << "), and this pnmpi is built for " << ours << " ("
              << mpi_family(ours) << "); pnmpi will refuse to load it: convert the tool "
              << "built for " << ours << ", or use the pnmpi built for " << lib << "\n";
    return;
  }
}

/// `subject` names the file that an error which does not name one itself (std::bad_alloc)
/// is about: IN, then the target once writing starts.
int run(const Options &options, std::string &subject) {
  subject = options.in;
  struct stat in_stat;
  const pnmpi::ElfObject in = pnmpi::ElfObject::load(options.in, in_stat);
  const pnmpi::RenamePlan plan = pnmpi::plan_renames(in);
  warn_other_mpi(in);

  if (options.list)
    for (const pnmpi::Rename &r : plan.renames)
      std::cout << r.from << (r.version.empty() ? "" : "@" + r.version) << " -> " << r.to << "\n";

  const bool writes = !options.dry_run && !options.list;
  bool in_place = false;
  const pnmpi::OutputTarget target =
      writes ? target_of(options, in_stat, in_place) : pnmpi::OutputTarget{};
  // A new OUT takes IN's permission bits; a replaced file keeps its own.
  const mode_t mode = target.exists ? target.status.st_mode : in_stat.st_mode;

  if (plan.renames.empty()) {
    std::cerr << "pnmpi-patch: warning: " << in.label()
              << ": nothing to rename: it imports no PMPI_ symbol\n";
    if (writes && !in_place) {
      subject = target.path;
      pnmpi::write_file_atomically(target, in.bytes(), mode, [&in](const std::string &written) {
        if (reload(written, in.bytes().size()).bytes() != in.bytes())
          throw pnmpi::PatchError(pnmpi::PatchErrorKind::internal, written + ": copy differs");
      });
    }
    return kExitOk;
  }

  const pnmpi::PatchedImage image = pnmpi::apply_renames(in, plan);
  if (!writes) {
    pnmpi::check_patched(in, plan, image,
                         pnmpi::ElfObject::parse(image.bytes, in.label() + " (patched)"));
    if (options.dry_run)
      std::cout << "pnmpi-patch: would rename " << describe(plan) << " in " << in.label()
                << relocation_note(plan) << "\n";
    return kExitOk;
  }

  subject = target.path;
  pnmpi::write_file_atomically(target, image.bytes, mode, [&](const std::string &written) {
    pnmpi::check_patched(in, plan, image, reload(written, image.bytes.size()));
  });
  std::cout << "pnmpi-patch: renamed " << describe(plan) << " in "
            << (in_place ? target.path + " (in place)" : in.label() + " -> " + target.path)
            << relocation_note(plan) << "\n";
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  // Every error ends here, after the stack has unwound: a temporary output file is removed by
  // then. An error that does not name its file (std::bad_alloc) is given the subject's name.
  std::string subject;
  const auto prefix = [&subject] {
    return "pnmpi-patch: " + (subject.empty() ? std::string() : subject + ": ");
  };
  try {
    Options options;
    if (!parse_arguments(argc, argv, options))
      return kExitOk;
    return run(options, subject);
  } catch (const UsageError &e) {
    std::cerr << "pnmpi-patch: " << e.what() << "\nTry 'pnmpi-patch --help'.\n";
    return kExitUsage;
  } catch (const pnmpi::PatchError &e) {
    std::cerr << "pnmpi-patch: " << e.what() << "\n";
    return e.kind() == pnmpi::PatchErrorKind::already_patched ? kExitAlreadyPatched : kExitError;
  } catch (const std::bad_alloc &) {
    std::cerr << prefix() << "out of memory (std::bad_alloc)\n";
    return kExitError;
  } catch (const std::exception &e) {
    std::cerr << prefix() << e.what() << "\n";
    return kExitError;
  } catch (...) {
    std::cerr << prefix() << "unknown error\n";
    return kExitError;
  }
}
