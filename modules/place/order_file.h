/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The order files of `argument order FILE`: Cray's MPICH_RANK_ORDER format. */
#ifndef PNMPI_PLACE_ORDER_FILE_H
#define PNMPI_PLACE_ORDER_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parses the order `text` (`length` bytes) for a job of `size` ranks: ranks and ranges of
 * ranks (`0-3`, or `3-0` downwards) separated by commas or blanks, over any number of lines,
 * `#` starting a comment to the end of the line. The p-th rank listed runs in launch slot
 * p (the process the launcher made world rank p). On success rank_of_slot[0..size-1]
 * receives the order and 0 is returned. Else 1: *line receives the line of the file at
 * fault (0 when the fault is the file as a whole, e.g. ranks missing) and `problem` what is
 * wrong and what to do (cut to `problem_size` bytes as snprintf cuts). Memory: `size`
 * bytes besides the output, whatever the text. */
int place_parse_order(const char *text, size_t length, int size, int *rank_of_slot, int *line,
                      char *problem, size_t problem_size);

/* The number of ranks an order file is for, as far as its text tells without a job: one
 * more than the highest rank it lists (0 when it lists none; tokens that are not ranks or
 * ranges are skipped: place_parse_order reports them). */
long place_order_span(const char *text, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_PLACE_ORDER_FILE_H */
