/* SPDX-License-Identifier: MIT
 *
 * serve_params.h - strict parsing of an API request's query parameters.
 * Integers are decimal digits with an optional '-' (signed only), no
 * spaces, signs, hex or exponents, and overflow is an error; id lists are
 * "0,3,7-12" with every id below a limit; names come from a fixed table.
 * Every parser returns 0, or -1 after filling the response with a 400 whose
 * message names the parameter and what was expected.
 * Tools layer (slog-serve): libc and serve.h.
 */
#ifndef SLOG_SERVE_PARAMS_H
#define SLOG_SERVE_PARAMS_H

#include "serve.h"

/* A signed integer in [lo, hi]; when absent: *out = def when has_def, else 400. */
int param_int64(const serve_request *rq,
                serve_response *res,
                const char *key,
                bool has_def,
                int64_t def,
                int64_t lo,
                int64_t hi,
                int64_t *out);

/* An unsigned integer in [lo, hi], as param_int64. */
int param_uint64(const serve_request *rq,
                 serve_response *res,
                 const char *key,
                 bool has_def,
                 uint64_t def,
                 uint64_t lo,
                 uint64_t hi,
                 uint64_t *out);

/* An id list "0,3,7-12" (sorted, duplicates removed) of ids < limit; absent:
 * *ids = NULL, *n = 0 (meaning all).  *ids is malloc'd (caller frees). */
int param_ids(const serve_request *rq,
              serve_response *res,
              const char *key,
              uint32_t limit,
              uint32_t **ids,
              uint32_t *n);

/* A comma list of kind names (state,event,arrow,counter,preview,run) as a
 * bit mask of (1u << slog_kind); absent: 0 (all).  allowed: the mask of
 * kinds accepted. */
int param_kinds(const serve_request *rq,
                serve_response *res,
                const char *key,
                uint32_t allowed,
                uint32_t *mask);

/* One of names[0..n-1]; absent: *out = def. */
int param_choice(const serve_request *rq,
                 serve_response *res,
                 const char *key,
                 const char *const *names,
                 size_t n,
                 size_t def,
                 size_t *out);

/* Name of a kind (slog_kind), "?" when out of range. */
const char *param_kind_name(unsigned kind);

#endif /* SLOG_SERVE_PARAMS_H */
