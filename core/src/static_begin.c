/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The first object of libpnmpi.a's one relocatable object (core/CMakeLists.txt links it
 * first, static_end.c last): in a program linked with libpnmpi.a, pnmpi's code and the
 * application's share one file, so the return-address walk (services.cpp) tells them apart
 * by these two functions, which bracket pnmpi's .text. */

__attribute__((visibility("hidden"), noinline, used)) void pnmpi_static_text_begin(void) {
  __asm__ volatile("");
}
