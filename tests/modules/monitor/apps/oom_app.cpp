// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor out of memory: this program replaces the global operator new (the monitor
// module, loaded later, binds to it) with one that can be told to fail the monitor's next
// allocations (those called from monitor.so; others, the core's, never fail). Each rank makes the
// monitor's first allocation for a new peer fail during one MPI_Sendrecv to the next rank,
// then does two more: the monitor must say once that traffic is not recorded, record the
// two later messages, and write its files. Prints "oom: rank R ok". With the argument
// `finalize`, rank 1 also makes the monitor's first allocation in MPI_Finalize fail (it
// cannot collect its output): no rank may wait for it forever.

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <string>

namespace {
std::atomic<int> g_failures{0}; ///< allocations by the monitor still to fail

bool called_from_the_monitor(const void *return_address) {
  Dl_info info;
  return dladdr(return_address, &info) != 0 && info.dli_fname != nullptr &&
         std::strstr(info.dli_fname, "/monitor.so") != nullptr;
}
} // namespace

__attribute__((noinline)) void *operator new(std::size_t size) {
  int left = g_failures.load();
  while (left > 0 && called_from_the_monitor(__builtin_return_address(0)))
    if (g_failures.compare_exchange_weak(left, left - 1))
      throw std::bad_alloc();
  if (void *p = std::malloc(size > 0 ? size : 1))
    return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void *operator new[](std::size_t size) {
  int left = g_failures.load();
  while (left > 0 && called_from_the_monitor(__builtin_return_address(0)))
    if (g_failures.compare_exchange_weak(left, left - 1))
      throw std::bad_alloc();
  if (void *p = std::malloc(size > 0 ? size : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete[](void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
  std::free(p);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int out[2] = {rank, 0}, in[2];
  for (int i = 0; i < 3; ++i) {
    g_failures.store(i == 0 ? 1 : 0);
    MPI_Sendrecv(out, 2, MPI_INT, (rank + 1) % size, 1, in, 2, MPI_INT, (rank + size - 1) % size, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const bool used = g_failures.load() == 0;
  g_failures.store(0);
  std::printf("oom: rank %d %s\n", rank, used ? "ok" : "FAILED: the monitor allocated nothing");
  std::fflush(stdout);
  const bool at_finalize = argc > 1 && std::string(argv[1]) == "finalize" && rank == 1;
  g_failures.store(at_finalize ? 1 : 0);
  MPI_Finalize();
  if (at_finalize && g_failures.load() != 0)
    std::printf("oom: rank %d FAILED: nothing allocated in MPI_Finalize\n", rank);
  return 0;
}
