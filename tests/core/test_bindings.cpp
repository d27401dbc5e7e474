// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Which loaded objects are MPI language bindings, which of their calls go to MPI rather
// than into the chain, and what the ELF reader finds to bind in such an object.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "bindings.h"
#include "pnmpi_routine_ids.h"

namespace pnmpi {
namespace {

TEST(Bindings, KnowsTheMpisFortranLibrariesByName) {
  for (const char *path :
       {"/usr/lib/x86_64-linux-gnu/libmpi_mpifh.so.40", "libmpi_usempif08.so",
        "/opt/ompi/lib/libmpi_usempi_ignore_tkr.so.40.30.0", "libmpi_usempi.so.40",
        "/usr/lib/x86_64-linux-gnu/libmpichfort.so.12", "libmpifort.so.12.2.2"})
    EXPECT_TRUE(is_language_binding(path)) << path;
  for (const char *path :
       {"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "libmpich.so.12", "libmpi_mpifh_extra.so",
        "libmpichfortran.so", "/lib/libmpifort.so/x.so", "", "libmpi_cxx.so.40"})
    EXPECT_FALSE(is_language_binding(path)) << path;
}

TEST(Bindings, HandleAndStatusConversionsGoToMpi) {
  for (const char *name :
       {"MPI_Comm_f2c", "MPI_Comm_c2f", "MPI_File_f2c", "MPI_Status_f2c", "MPI_Status_c2f08",
        "MPI_Status_f082c", "MPI_Status_f082f", "MPI_Status_f2f08"})
    EXPECT_TRUE(is_language_conversion(name)) << name;
  for (const char *name : {"MPI_Send", "MPI_Comm_free", "MPI_Type_create_f90_real", "MPI_Init"})
    EXPECT_FALSE(is_language_conversion(name)) << name;

  const char *const names[] = {"MPI_Send", "MPI_Comm_f2c", "MPI_Barrier"};
  const std::vector<std::uintptr_t> entry = {10, 11, 12}, mpi = {20, 21, 22};
  EXPECT_EQ(binding_targets(names, 3, entry, mpi), (std::vector<std::uintptr_t>{10, 21, 12}));
}

std::vector<unsigned char> bytes_of(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An unconverted PMPI tool calls MPI by PMPI_X, as Open MPI's Fortran bindings do: read as
// a binding, each of those calls is a site; read as a module, none is.
TEST(Bindings, ReaderFindsTheCallsOfABinding) {
  const std::vector<unsigned char> bytes = bytes_of(PNMPI_TEST_PLAIN_TOOL);
  ASSERT_FALSE(bytes.empty());
  const RoutineIndex routines(pnmpi_routine_names, PNMPI_NUM_ROUTINES);
  const ElfImage as_module = read_elf_image(bytes, "plain_tool", routines);
  const ElfImage as_binding = read_elf_image(bytes, "plain_tool", routines, SiteNames::Mpi);
  EXPECT_TRUE(as_module.sites.empty());
  ASSERT_FALSE(as_module.pmpi_imports.empty());
  EXPECT_GE(as_binding.sites.size(), as_module.pmpi_imports.size());
  for (const std::string &import : as_module.pmpi_imports) {
    const int id = routines.find(import.substr(1));
    bool found = id < 0; // a PMPI_ name this build does not wrap has no site
    for (const ElfImage::Site &site : as_binding.sites)
      found |= static_cast<int>(site.id) == id;
    EXPECT_TRUE(found) << import;
  }
}

TEST(Bindings, NothingToRedirectWithoutBindings) {
  // This test program loads no Fortran binding of the MPI.
  const RoutineIndex routines(pnmpi_routine_names, PNMPI_NUM_ROUTINES);
  EXPECT_TRUE(redirect_language_bindings(routines, pnmpi_routine_names,
                                         std::vector<std::uintptr_t>(PNMPI_NUM_ROUTINES))
                  .empty());
}

} // namespace
} // namespace pnmpi
