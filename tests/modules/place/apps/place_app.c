/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* An unchanged MPI program that checks, by itself, that its MPI_COMM_WORLD is renumbered
 * as the order given on its command line says, for every observable item of the place
 * module (docs/place.md). Usage: place_app ORDER [FILE] [abort]
 *   ORDER  the application rank of each launch slot, e.g. 3,2,1,0
 *   FILE   a scratch file for the MPI-IO item
 *   abort  application rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) after the checks
 * The launch slot (physical world rank) comes from the launcher's environment
 * (OMPI_COMM_WORLD_RANK, PMI_RANK), which no MPI library can renumber. Rank 0 prints one
 * line per item, `ITEM: ok` or `ITEM: FAILED`; failing ranks say why on stderr. Rank 0 also
 * prints the predefined attributes as `attr NAME flag VALUE`. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 64

static int g_rank, g_size, g_slot;
static int g_order[MAX_RANKS];   /* application rank of launch slot p */
static int g_slot_of[MAX_RANKS]; /* launch slot of application rank r */

static void item(const char *name, int ok) {
  if (!ok)
    fprintf(stderr, "rank %d (slot %d): %s failed\n", g_rank, g_slot, name);
  int all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (g_rank == 0)
    printf("%s: %s\n", name, all ? "ok" : "FAILED");
}

/* The application's error handler: counts the errors raised on MPI_COMM_WORLD. */
static int g_errors, g_errors_on_world;
static void on_error(MPI_Comm *comm, int *code, ...) {
  (void)code;
  ++g_errors;
  g_errors_on_world += *comm == MPI_COMM_WORLD;
}

static int launch_slot(void) {
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  for (int i = 0; i < 3; ++i)
    if (getenv(vars[i]) != NULL)
      return atoi(getenv(vars[i]));
  fprintf(stderr, "place_app: no launcher rank in the environment\n");
  exit(2);
}

static void print_attr(const char *name, int keyval) {
  int *value = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &flag);
  if (g_rank == 0) {
    if (flag)
      printf("attr %s 1 %d\n", name, *value);
    else
      printf("attr %s 0\n", name);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_slot = launch_slot();
  if (argc < 2 || g_size > MAX_RANKS) {
    fprintf(stderr, "usage: place_app ORDER [FILE] [abort]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int n = 0;
  for (char *s = strtok(argv[1], ","); s != NULL && n < MAX_RANKS; s = strtok(NULL, ","))
    g_order[n++] = atoi(s);
  for (int p = 0; p < n; ++p)
    g_slot_of[g_order[p]] = p;
  /* Calls use the rank MPI gives; expectations use the rank the order gives (`me`), so
   * that a world that is not renumbered fails every item that depends on the numbering. */
  const int me = n == g_size ? g_order[g_slot] : -1;
  const int next = (me + 1) % g_size, prev = (me + g_size - 1) % g_size;

  item("rank", g_rank == me);

  /* Point to point: a ring in application ranks, received from MPI_ANY_SOURCE. */
  int out[2] = {g_rank, g_slot}, in[2] = {-1, -1};
  MPI_Status st;
  MPI_Sendrecv(out, 2, MPI_INT, next, 5, in, 2, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
  item("status_source", st.MPI_SOURCE == prev && in[0] == prev);
  item("message_reaches_the_process", in[1] == g_slot_of[prev]);
  MPI_Request req;
  MPI_Irecv(in, 2, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &req);
  MPI_Send(out, 2, MPI_INT, next, 6, MPI_COMM_WORLD);
  MPI_Wait(&req, &st);
  item("wait_status_source", st.MPI_SOURCE == prev && in[0] == prev);

  /* Collectives: roots and orders are application ranks. */
  int root_slot = g_slot;
  MPI_Bcast(&root_slot, 1, MPI_INT, 0, MPI_COMM_WORLD);
  item("bcast_root", root_slot == g_slot_of[0]);
  int slots[MAX_RANKS];
  MPI_Allgather(&g_slot, 1, MPI_INT, slots, 1, MPI_INT, MPI_COMM_WORLD);
  int ok = 1;
  for (int r = 0; r < g_size; ++r)
    ok = ok && slots[r] == g_slot_of[r];
  item("allgather_order", ok);
  int one = 1, before = -1;
  MPI_Exscan(&one, &before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  item("exscan", me == 0 || before == me);

  /* Groups. */
  MPI_Group world_group, self_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(MPI_COMM_SELF, &self_group);
  int group_rank = -1, zero = 0, mine = -1;
  MPI_Group_rank(world_group, &group_rank);
  MPI_Group_translate_ranks(self_group, 1, &zero, world_group, &mine);
  item("group_rank", group_rank == me && mine == me);

  /* Compare, name, duplicates. */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int same = -1, congruent = -1, dup_rank = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &same);
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &congruent);
  MPI_Comm_rank(dup, &dup_rank);
  item("compare_ident", same == MPI_IDENT);
  item("dup", congruent == MPI_CONGRUENT && dup_rank == me);
  char name[MPI_MAX_OBJECT_NAME] = "";
  int len = 0;
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  item("name", strcmp(name, "MPI_COMM_WORLD") == 0);
  item("fortran_handle", MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);

  /* Split and split_type keyed by rank; translate_ranks back to the world. */
  MPI_Comm half, node;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
  int half_rank = -1, node_rank = -1;
  MPI_Comm_rank(half, &half_rank);
  MPI_Group half_group;
  MPI_Comm_group(half, &half_group);
  int back = -1;
  MPI_Group_translate_ranks(half_group, 1, &half_rank, world_group, &back);
  item("split", half_rank == me / 2 && back == me);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_rank);
  item("split_type", node_rank == me); /* one host: every rank shares it */

  /* Topologies. */
  MPI_Comm ring;
  int dims[1] = {g_size}, periods[1] = {1}, cart_rank = -1, src = -1, dst = -1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_rank(ring, &cart_rank);
  MPI_Cart_shift(ring, 0, 1, &src, &dst);
  item("cart", cart_rank == me && src == prev && dst == next);
  MPI_Comm graph;
  int weight = 1, from = (g_rank + g_size - 1) % g_size, to = (g_rank + 1) % g_size;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &weight, 1, &to, &weight, MPI_INFO_NULL,
                                 0, &graph);
  int got = -1;
  MPI_Neighbor_allgather(&g_rank, 1, MPI_INT, &got, 1, MPI_INT, graph);
  item("dist_graph", got == prev);

  /* An inter-communicator between the halves, leaders named in world ranks. */
  if (g_size >= 2) {
    const int low = g_rank < g_size / 2;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, low, g_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? g_size / 2 : 0, 9, &inter);
    int remote = -1, merged_rank = -1;
    MPI_Comm_remote_size(inter, &remote);
    MPI_Intercomm_merge(inter, !low, &merged);
    MPI_Comm_rank(merged, &merged_rank);
    item("intercomm", remote == (low ? g_size - g_size / 2 : g_size / 2) && merged_rank == me);
  }

  /* One-sided: each rank puts its rank into the next one's window. */
  /* Heap memory and MPI_Win_create: Debian's MPICH 4.0.2 loses puts into windows of stack
   * memory and into MPI_Win_allocate's (measured here, without pnmpi). */
  int *cell = malloc(sizeof *cell);
  *cell = -1;
  MPI_Win win;
  MPI_Win_create(cell, sizeof *cell, sizeof *cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(&g_rank, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Group win_group;
  MPI_Win_get_group(win, &win_group);
  int win_cmp = -1;
  MPI_Group_compare(win_group, world_group, &win_cmp);
  item("window", *cell == prev && win_cmp == MPI_IDENT);
  MPI_Win_free(&win);
  free(cell);

  /* MPI-IO: each rank writes its rank at its rank's offset. */
  if (argc >= 3 && strcmp(argv[2], "abort") != 0) {
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)(g_rank * sizeof(int)), &g_slot, 1, MPI_INT,
                          MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    int all_slots[MAX_RANKS];
    MPI_File_read_at_all(fh, 0, all_slots, g_size, MPI_INT, MPI_STATUS_IGNORE);
    ok = 1;
    for (int r = 0; r < g_size; ++r)
      ok = ok && all_slots[r] == g_slot_of[r];
    MPI_Group file_group;
    MPI_File_get_group(fh, &file_group);
    int file_cmp = -1;
    MPI_Group_compare(file_group, world_group, &file_cmp);
    item("file", ok && file_cmp == MPI_IDENT);
    MPI_File_close(&fh);
  }

  /* Error handlers set on the world: an error on it returns. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  const int rc = MPI_Send(&g_rank, 1, MPI_INT, g_size + 3, 0, MPI_COMM_WORLD);
  item("errhandler", rc != MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
  MPI_Comm world_copy = MPI_COMM_WORLD; /* freeing the world stays an error */
  item("free_world", MPI_Comm_free(&world_copy) != MPI_SUCCESS);
  MPI_Errhandler own;
  MPI_Comm_create_errhandler(on_error, &own);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, own);
  MPI_Send(&g_rank, 1, MPI_INT, g_size + 3, 0, MPI_COMM_WORLD);
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
  item("errhandler_function", g_errors == 2 && g_errors_on_world == 2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&own);

  /* User attributes on the world. */
  int keyval, stored = 42, *back_ptr = NULL, flag = 0;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &stored);
  MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &back_ptr, &flag);
  item("user_attribute", flag && back_ptr == &stored);

  print_attr("MPI_TAG_UB", MPI_TAG_UB);
  print_attr("MPI_HOST", MPI_HOST);
  print_attr("MPI_IO", MPI_IO);
  print_attr("MPI_WTIME_IS_GLOBAL", MPI_WTIME_IS_GLOBAL);
  print_attr("MPI_APPNUM", MPI_APPNUM);
  print_attr("MPI_UNIVERSE_SIZE", MPI_UNIVERSE_SIZE);
  print_attr("MPI_LASTUSEDCODE", MPI_LASTUSEDCODE);
  fflush(stdout);

  if (argc >= 3 && strcmp(argv[argc - 1], "abort") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 1)
      MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 1 does not enter it */
  }
  MPI_Finalize();
  return 0;
}
