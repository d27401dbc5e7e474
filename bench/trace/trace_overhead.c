/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The trace's benchmark program, run on 2 ranks by trace_bench.py:
 *   sends N   rank 0 issues N 8-byte MPI_Send to rank 1 (a sink module below swallows them);
 *             prints send_ns, CPU time per call
 *   stream N  rank 0 sends N 8-byte messages to rank 1, which receives them; prints
 *             stream_ns, rank 0's elapsed time per message through the real MPI
 *   isend N   the same messages nonblocking, 8 in flight: rank 0 MPI_Isend, rank 1
 *             MPI_Irecv, each completing them with MPI_Wait (so the trace's request table
 *             holds several at once); prints isend_ns, elapsed time per message
 *   selfreq N rank 0 alone sends N 8-byte messages to itself, 8 in flight: MPI_Irecv and
 *             MPI_Isend each, completed by one MPI_Waitall; prints selfreq_ns, the CPU time
 *             per message (two requests noted and found again by the trace), which does
 *             not wait for another process and so is little disturbed by a loaded machine */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sends";
  const long n = argc > 2 ? atol(argv[2]) : 1000000;
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char msg[8] = {0};
  if (strcmp(mode, "sends") == 0) {
    if (rank == 0) {
      for (long i = 0; i < n / 10; ++i) /* warm up: the thread's buffer, caches, predictors */
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      const double t0 = seconds(CLOCK_THREAD_CPUTIME_ID);
      for (long i = 0; i < n; ++i)
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      const double t1 = seconds(CLOCK_THREAD_CPUTIME_ID);
      printf("send_ns=%.3f\n", (t1 - t0) / (double)n * 1e9);
    }
  } else if (strcmp(mode, "isend") == 0) {
    enum { kWindow = 8 };
    char bufs[kWindow][8];
    MPI_Request req[kWindow];
    memset(bufs, 0, sizeof bufs);
    for (int phase = 0; phase < 2; ++phase) {
      const long count = (phase ? n : n / 10) / kWindow * kWindow;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = seconds(CLOCK_MONOTONIC);
      for (long i = 0; i < count; i += kWindow) {
        for (int k = 0; k < kWindow; ++k) {
          if (rank == 0)
            MPI_Isend(bufs[k], 8, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req[k]);
          else if (rank == 1)
            MPI_Irecv(bufs[k], 8, MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[k]);
        }
        if (rank < 2)
          for (int k = 0; k < kWindow; ++k)
            MPI_Wait(&req[k], MPI_STATUS_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double t1 = seconds(CLOCK_MONOTONIC);
      if (phase == 1 && rank == 0)
        printf("isend_ns=%.3f\n", (t1 - t0) / (double)count * 1e9);
    }
  } else if (strcmp(mode, "selfreq") == 0) {
    enum { kWindow = 8 };
    char in[kWindow][8];
    MPI_Request req[2 * kWindow];
    /* Through a volatile: MPICH's MPI_STATUSES_IGNORE is a null constant, which GCC reads
     * as an array of size 0 and warns about. */
    MPI_Status *volatile no_statuses = MPI_STATUSES_IGNORE;
    if (rank == 0) {
      for (int phase = 0; phase < 2; ++phase) {
        const long count = (phase ? n : n / 10) / kWindow * kWindow;
        const double t0 = seconds(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < count; i += kWindow) {
          for (int k = 0; k < kWindow; ++k) {
            MPI_Irecv(in[k], 8, MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[2 * k]);
            MPI_Isend(msg, 8, MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[2 * k + 1]);
          }
          MPI_Waitall(2 * kWindow, req, no_statuses);
        }
        const double t1 = seconds(CLOCK_THREAD_CPUTIME_ID);
        if (phase == 1)
          printf("selfreq_ns=%.3f\n", (t1 - t0) / (double)count * 1e9);
      }
    }
  } else {
    for (int phase = 0; phase < 2; ++phase) {
      const long count = phase ? n : n / 10;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = seconds(CLOCK_MONOTONIC);
      for (long i = 0; i < count; ++i) {
        if (rank == 0)
          MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
          MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double t1 = seconds(CLOCK_MONOTONIC);
      if (phase == 1 && rank == 0)
        printf("stream_ns=%.3f\n", (t1 - t0) / (double)count * 1e9);
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
