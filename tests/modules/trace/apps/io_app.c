/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* MPI-IO with known offsets and sizes (test_trace.py lists them), n ranks, B = 1000:
 *   write_at        B bytes at r*B
 *   set_view        disp n*B + 50r, filetype: 4 blocks of 50 bytes every 50n bytes
 *   write_all       200 bytes through the view (byte offset n*B + 50r, non-contiguous)
 *   iwrite_at+Wait  200 bytes at view offset 200 (byte offset n*B + 50r + 200n)
 *   set_view        back to bytes from 0
 *   read_at         the next rank's block, B bytes at ((r+1)%n)*B
 *   read_at_all     200n bytes at n*B (both interleaved view writes of every rank)
 *   read_at         B bytes at n*(B+400)-100: 100 before the end, so 100 bytes are read
 * then checks what it read. Prints "io ok" on rank 0. Usage: io_app FILE */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { B = 1000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  char block[B], view[400];
  for (int i = 0; i < B; ++i)
    block[i] = (char)('a' + rank);
  for (int i = 0; i < 400; ++i)
    view[i] = (char)('A' + rank);
  MPI_File_write_at(fh, (MPI_Offset)rank * B, block, B, MPI_BYTE, MPI_STATUS_IGNORE);

  MPI_Datatype strided, filetype;
  MPI_Type_vector(4, 50, 50 * n, MPI_BYTE, &strided);
  MPI_Type_create_resized(strided, 0, 200 * n, &filetype);
  MPI_Type_commit(&filetype);
  MPI_File_set_view(fh, (MPI_Offset)n * B + 50 * rank, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, view, 200, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_Request request;
  MPI_File_iwrite_at(fh, 200, view + 200, 200, MPI_BYTE, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);

  char back[B];
  MPI_File_read_at(fh, (MPI_Offset)((rank + 1) % n) * B, back, B, MPI_BYTE, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < B; ++i)
    bad |= back[i] != (char)('a' + (rank + 1) % n);
  char *all = malloc((size_t)200 * n);
  MPI_File_read_at_all(fh, (MPI_Offset)n * B, all, 200 * n, MPI_BYTE, MPI_STATUS_IGNORE);
  for (int i = 0; i < 200 * n; ++i)
    bad |= all[i] != (char)('A' + (i / 50) % n);
  MPI_Status status;
  MPI_File_read_at(fh, (MPI_Offset)n * (B + 400) - 100, back, B, MPI_BYTE, &status);
  int got = 0;
  MPI_Get_count(&status, MPI_BYTE, &got);
  bad |= got != 100;
  MPI_File_close(&fh);
  MPI_Type_free(&filetype);
  MPI_Type_free(&strided);
  free(all);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0)
    printf(any ? "io wrong\n" : "io ok\n");
  MPI_Finalize();
  return any;
}
