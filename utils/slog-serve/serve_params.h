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

/* What an integer parameter accepts: [lo, hi]; when absent, a 400 if
 * required, else def.  Written with designated initializers:
 * (param_u64){.hi = 100, .def = 10} or (param_u64){.hi = n, .required = true}. */
typedef struct param_i64 {
    int64_t lo, hi, def;
    bool required;
} param_i64;
typedef struct param_u64 {
    uint64_t lo, hi, def;
    bool required;
} param_u64;

/* A signed integer as @p spec says. */
int param_int64(const serve_request *rq,
                serve_response *res,
                const char *key,
                param_i64 spec,
                int64_t *out);

/* An unsigned integer as @p spec says. */
int param_uint64(const serve_request *rq,
                 serve_response *res,
                 const char *key,
                 param_u64 spec,
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

/* One of names[] (a NULL-terminated list of at most 3); *out its index;
 * absent: *out = def. */
int param_choice(const serve_request *rq,
                 serve_response *res,
                 const char *key,
                 const char *const *names,
                 size_t def,
                 size_t *out);

/* Name of a kind (slog_kind), "?" when out of range. */
const char *param_kind_name(unsigned kind);

#endif /* SLOG_SERVE_PARAMS_H */
