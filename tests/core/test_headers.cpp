// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The installed module headers from C++ (the C side is every test module): they compile
// together with warnings as errors, and declare what PnMPI modules expect.

#include <gtest/gtest.h>

#include <pnmpi/attributes.h>
#include <pnmpi/const.h>
#include <pnmpi/debug_io.h>
#include <pnmpi/hooks.h>
#include <pnmpi/newstack.h>
#include <pnmpi/service.h>
#include <pnmpi/xmpi.h>
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

TEST(Headers, PnmpiCompatibilityNames) {
  // <pnmpi/debug_io.h>: PnMPI's debug classes, the default prefix, and the functions its
  // macros call, exported by libpnmpi with PnMPI's signatures.
  EXPECT_EQ(PNMPI_DEBUG_INIT, 1);
  EXPECT_EQ(PNMPI_DEBUG_MODULE, 2);
  EXPECT_EQ(PNMPI_DEBUG_CALL, 4);
  EXPECT_STREQ(PNMPI_MESSAGE_PREFIX, "PnMPI");
  static_assert(std::is_same<decltype(pnmpi_print_debug(PNMPI_DEBUG_CALL, "%d", 1)), void>::value,
                "pnmpi_print_debug(level, format, ...) as in PnMPI");
  static_assert(std::is_same<decltype(pnmpi_print_warning("%d", 1)), void>::value,
                "pnmpi_print_warning(format, ...) as in PnMPI");
  static_assert(std::is_same<decltype(pnmpi_print_error("p", "f", 1, "%d", 1)), void>::value,
                "pnmpi_print_error(prefix, function, line, format, ...) as in PnMPI");
  // <pnmpi/const.h>: MPI_Send's buffer type in this MPI.
  static_assert(std::is_same<decltype(&MPI_Send), int (*)(PNMPI_CONST void *, int, MPI_Datatype,
                                                          int, int, MPI_Comm)>::value,
                "PNMPI_CONST matches this MPI's prototypes");
  // <pnmpimod.h>: PnMPI's limits.
  EXPECT_EQ(PNMPI_MODULE_FILENAMELEN, 512);
  EXPECT_EQ(PNMPI_MODULE_USERNAMELEN, 256);
  EXPECT_EQ(PNMPI_MAX_MOD, 100000);
  EXPECT_STREQ(PNMPI_REGISTRATION_POINT, "PNMPI_RegistrationPoint");
  EXPECT_EQ(PNMPI_NOT_IMPLEMENTED, -128);
  EXPECT_EQ(PNMPI_FAILURE, -1);
  EXPECT_EQ(PNMPI_NOARG, -7);
}

} // namespace
