/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The last object of libpnmpi.a's one relocatable object: see static_begin.c. */

__attribute__((visibility("hidden"), noinline, used)) void pnmpi_static_text_end(void) {
  __asm__ volatile("");
}
