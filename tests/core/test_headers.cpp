// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The installed module headers from C++ (the C side is every test module): they compile
// together with warnings as errors, and declare what PnMPI modules expect.

#include <gtest/gtest.h>

#include <pnmpi/hooks.h>
#include <pnmpi/service.h>
#include <pnmpimod.h>
#include <type_traits>

namespace {

static_assert(PNMPI_SUCCESS == 0, "the C API's success is 0");
static_assert(std::is_same<PNMPI_modHandle_t, int>::value, "handles are ints, as in PnMPI");
static_assert(
    std::is_same<decltype(&XMPI_Barrier_NewStack), int (*)(PNMPI_modHandle_t, MPI_Comm)>::value,
    "XMPI_X_NewStack takes the stack first, then X's parameters");
static_assert(std::is_same<decltype(&XMPI_Barrier), int (*)(MPI_Comm)>::value,
              "XMPI_X has X's parameters");
static_assert(
    std::is_same<decltype(&XMPI_Pcontrol_NewStack), int (*)(PNMPI_modHandle_t, int, ...)>::value,
    "MPI_Pcontrol keeps its varargs");
static_assert(std::is_same<decltype(&PNMPI_RegistrationPoint), void (*)()>::value, "PnMPI's hook");
static_assert(std::is_same<decltype(&pnmpi_module_loaded), void (*)(PNMPI_modHandle_t)>::value,
              "the load hook gets the layer's handle");

TEST(Headers, StatusNamesKeepPnmpiValues) {
  EXPECT_EQ(PNMPI_NOMODULE, -3);
  EXPECT_EQ(PNMPI_NOSTACK, -8);
  EXPECT_EQ(PNMPI_FAILURE, PNMPI_NOT_INIT);
  EXPECT_EQ(PNMPI_SERVICE_NAMELEN, 30);
  EXPECT_EQ(PNMPI_SERVICE_SIGLEN, 20);
  EXPECT_EQ(PNMPI_MODHANDLE_NULL, -1);
}

} // namespace
