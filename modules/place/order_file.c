/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

#include "order_file.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_separator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* A whole number of digits only, at most INT_MAX: 1 and *value; else 0. */
static int parse_number(const char *s, size_t n, long *value) {
  if (n == 0 || n > 10)
    return 0;
  long v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9')
      return 0;
    v = v * 10 + (s[i] - '0');
  }
  if (v > INT_MAX)
    return 0;
  *value = v;
  return 1;
}

/* `token` as a message shows it: at most 40 bytes, control bytes, quotes and backslashes
 * escaped. */
static void show_token(const char *token, size_t n, char *out, size_t size) {
  size_t k = 0;
  const size_t shown = n > 40 ? 40 : n;
  for (size_t i = 0; i < shown && k + 5 < size; ++i) {
    const unsigned char c = (unsigned char)token[i];
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
      k += (size_t)snprintf(out + k, size - k, "\\x%02x", c);
    else
      out[k++] = (char)c;
  }
  if (n > shown && k + 4 < size) {
    memcpy(out + k, "...", 3);
    k += 3;
  }
  out[k < size ? k : size - 1] = '\0';
}

int place_parse_order(const char *text, size_t length, int size, int *rank_of_slot, int *line,
                      char *problem, size_t problem_size) {
  int *first_line = calloc(size > 0 ? (size_t)size : 1, sizeof *first_line);
  if (first_line == NULL) {
    *line = 0;
    snprintf(problem, problem_size, "out of memory for an order of %d ranks", size);
    return 1;
  }
  int count = 0, lineno = 1, failed = 0;
  size_t i = 0;
  while (i < length && !failed) {
    const char c = text[i];
    if (c == '#') {
      while (i < length && text[i] != '\n')
        ++i;
      continue;
    }
    if (is_separator(c)) {
      if (c == '\n')
        ++lineno;
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < length && !is_separator(text[i]) && text[i] != '#')
      ++i;
    const char *token = text + start;
    const size_t n = i - start;
    const char *dash = memchr(token, '-', n);
    long lo = 0, hi = 0;
    int ok = 0;
    if (dash == NULL) {
      ok = parse_number(token, n, &lo);
      hi = lo;
    } else {
      const size_t left = (size_t)(dash - token);
      ok = parse_number(token, left, &lo) && parse_number(dash + 1, n - left - 1, &hi);
    }
    if (!ok) {
      char shown[200];
      show_token(token, n, shown, sizeof shown);
      snprintf(problem, problem_size,
               "'%s' is not a rank or a range of ranks: write ranks as 5 or 0-3, separated by "
               "commas",
               shown);
      *line = lineno;
      failed = 1;
      break;
    }
    const long top = lo > hi ? lo : hi;
    if (top >= size) {
      snprintf(problem, problem_size,
               "rank %ld is out of range: this job has %d ranks (0 to %d); the order is for "
               "another number of ranks: write one for %d ranks, or run the job with as many "
               "ranks as the order lists",
               top, size, size - 1, size);
      *line = lineno;
      failed = 1;
      break;
    }
    const long step = lo <= hi ? 1 : -1;
    for (long r = lo;; r += step) {
      if (first_line[r] != 0) {
        snprintf(problem, problem_size,
                 "rank %ld is listed twice (first on line %d): list each rank once", r,
                 first_line[r]);
        *line = lineno;
        failed = 1;
        break;
      }
      first_line[r] = lineno;
      rank_of_slot[count++] = (int)r;
      if (r == hi)
        break;
    }
  }
  if (!failed && count < size) {
    *line = 0;
    failed = 1;
    if (count == 0) {
      snprintf(problem, problem_size,
               "lists no rank: list this job's %d ranks (0 to %d) in the order of the launch "
               "slots, separated by commas",
               size, size - 1);
    } else {
      int missing = 0;
      while (first_line[missing] != 0)
        ++missing;
      snprintf(problem, problem_size,
               "lists %d of this job's %d ranks (rank %d is missing): list every rank from 0 "
               "to %d once, or run the job with as many ranks as the order lists",
               count, size, missing, size - 1);
    }
  }
  free(first_line);
  return failed;
}

long place_order_span(const char *text, size_t length) {
  long span = 0;
  size_t i = 0;
  while (i < length) {
    if (text[i] == '#') {
      while (i < length && text[i] != '\n')
        ++i;
      continue;
    }
    if (is_separator(text[i])) {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < length && !is_separator(text[i]) && text[i] != '#')
      ++i;
    const char *dash = memchr(text + start, '-', i - start);
    const size_t left = dash != NULL ? (size_t)(dash - (text + start)) : i - start;
    long lo = -1, hi = -1;
    parse_number(text + start, left, &lo);
    if (dash != NULL)
      parse_number(dash + 1, i - start - left - 1, &hi);
    if (lo >= span)
      span = lo + 1;
    if (hi >= span)
      span = hi + 1;
  }
  return span;
}
