/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The floor under the per-layer cost: a chain of N indirect jumps, the only instruction a
 * pass-through layer executes (`jmp *XMPI_X@GOT(%rip)`), with no MPI and no pnmpi, laid out
 * two ways:
 *   pages   each jump on a page of its own, 64 bytes further into the page than the last
 *           (as pnmpi slides copies of a module: every layer is a copy of its own),
 *   packed  the jumps 64 bytes apart (one cache line each), as if every layer's code
 *           shared pages with the others'.
 * The difference between the two at N layers is what the number of code pages alone costs
 * on this CPU (instruction TLB reach), whatever the loader does: run_bench.py prints it
 * beside the measured layers. x86-64 only (it writes the jump instructions itself).
 *
 * Usage: bench_layer_floor N  -> "floor layers=N pages_ns=X packed_ns=Y": ns per jump, the
 * best of 7 timed runs after a warm-up, less the best of 7 calls straight to the return. */

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { kPage = 4096, kLine = 64 };

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Builds the chain (`stride` bytes between jumps, plus a 64-byte slide per page when the
 * stride is a page) and sets `*ns` to ns per jump; returns 0, or -1 if memory is refused. */
static int chain_ns(int n, size_t stride, double *ns) {
  const size_t code_size = ((size_t)n * stride + kPage - 1) / kPage * kPage + 2 * kPage;
  const size_t slot_size = (size_t)n * sizeof(void *) + kPage;
  /* One mapping, the slots right after the code: each jump reaches its slot with a 32-bit
   * displacement whatever addresses the kernel picks (two mappings could land more than 2 GB
   * apart, which made a run fail now and then). */
  uint8_t *const code =
      mmap(NULL, code_size + slot_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return -1;
  uint8_t *const slots = code + code_size;
  memset(code, 0xcc, code_size); /* int3 anywhere the chain does not go */
  /* The return sits on a page of its own, after the chain, at the same place whatever the
   * layout, so that the two layouts differ only in where the jumps are. */
  uint8_t *const ret = code + ((size_t)n * stride + kPage - 1) / kPage * kPage + kPage;
  *ret = 0xc3;
  uint8_t *site = code;
  for (int i = 0; i < n; ++i) {
    uint8_t *next = i + 1 < n ? code + (size_t)(i + 1) * stride +
                                    (stride >= kPage ? (size_t)((i + 1) * kLine % kPage) : 0)
                              : ret;
    uint8_t *slot = slots + (size_t)i * sizeof(void *);
    const int64_t distance = slot - (site + 6);
    if (distance != (int32_t)distance) {
      munmap(code, code_size + slot_size);
      return -1;
    }
    const int32_t disp = (int32_t)distance;
    site[0] = 0xff; /* jmp *disp32(%rip) */
    site[1] = 0x25;
    memcpy(site + 2, &disp, sizeof disp);
    memcpy(slot, &next, sizeof next);
    site = next;
  }
  if (mprotect(code, code_size, PROT_READ | PROT_EXEC) != 0) {
    munmap(code, code_size + slot_size);
    return -1;
  }
  /* The call into the chain and the return are timed alone too, and taken off. */
  void (*const enter)(void) = (void (*)(void))(void *)code;
  void (*const bare)(void) = (void (*)(void))(void *)ret;
  const int calls = n < 1000 ? 200000 : 100000;
  for (int i = 0; i < calls / 10; ++i)
    enter();
  double best = 1e30, best_bare = 1e30;
  for (int run = 0; run < 7; ++run) {
    double t0 = now_ns();
    for (int i = 0; i < calls; ++i)
      enter();
    const double chain = (now_ns() - t0) / calls;
    t0 = now_ns();
    for (int i = 0; i < calls; ++i)
      bare();
    const double call = (now_ns() - t0) / calls;
    best = chain < best ? chain : best;
    best_bare = call < best_bare ? call : best_bare;
  }
  /* With few layers the chain costs less than the timer's noise, and the best chain can come
   * out faster than the best bare call: that is a floor of zero, not a failure. */
  *ns = best > best_bare ? (best - best_bare) / n : 0.0;
  munmap(code, code_size + slot_size);
  return 0;
}

int main(int argc, char **argv) {
  const int n = argc == 2 ? atoi(argv[1]) : 0;
  if (n < 1 || n > 100000) {
    fprintf(stderr, "usage: %s LAYERS (1 to 100000)\n", argv[0]);
    return 2;
  }
  double pages = 0, packed = 0;
  if (chain_ns(n, kPage, &pages) != 0 || chain_ns(n, kLine, &packed) != 0) {
    fprintf(stderr, "%s: cannot map the chain's memory\n", argv[0]);
    return 1;
  }
  printf("floor layers=%d pages_ns=%.3f packed_ns=%.3f\n", n, pages, packed);
  return 0;
}
