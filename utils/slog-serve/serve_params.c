/* SPDX-License-Identifier: MIT
 *
 * serve_params.c - strict query-parameter parsing (serve_params.h).  Numbers
 * are accepted only as plain decimal text and checked for overflow digit by
 * digit; an id list is parsed into intervals, sorted and merged, so its cost
 * is O(tokens log tokens + ids) whatever ranges a request repeats, and its
 * size is bounded by the limit (the file's timeline or category count).
 * Tools layer (slog-serve): libc and serve.h.
 */
#include "serve_params.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"state", "event", "arrow", "counter", "preview", "run"};

const char *param_kind_name(unsigned kind)
{
    return kind < 6 ? kind_names[kind] : "?";
}

/* Digits of text[0..len) as an unsigned value; false on anything else or
 * overflow. */
static bool parse_digits(const char *text, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        const char c = text[i];
        if (c < '0' || c > '9') {
            return false;
        }
        if (__builtin_mul_overflow(v, 10u, &v) ||
            __builtin_add_overflow(v, (uint64_t)(c - '0'), &v)) {
            return false;
        }
    }
    *out = v;
    return true;
}

static bool parse_int64(const char *text, int64_t *out)
{
    const bool neg = text[0] == '-';
    uint64_t mag;
    if (!parse_digits(text + neg, strlen(text + neg), &mag)) {
        return false;
    }
    if (!neg) {
        if (mag > (uint64_t)INT64_MAX) {
            return false;
        }
        *out = (int64_t)mag;
        return true;
    }
    if (mag > (uint64_t)INT64_MAX + 1u) {
        return false;
    }
    *out = mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag;
    return true;
}

int param_int64(const serve_request *rq,
                serve_response *res,
                const char *key,
                param_i64 spec,
                int64_t *out)
{
    const int64_t lo = spec.lo, hi = spec.hi;
    const char *const text = rq->get(rq, key);
    if (text == NULL) {
        *out = spec.def;
        return spec.required ? serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: missing", key) : 0;
    }
    if (!parse_int64(text, out)) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: expected a decimal integer of 64 bits",
                           key);
    }
    if (*out < lo || *out > hi) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: %lld is out of range %lld..%lld", key,
                           (long long)*out, (long long)lo, (long long)hi);
    }
    return 0;
}

int param_uint64(const serve_request *rq,
                 serve_response *res,
                 const char *key,
                 param_u64 spec,
                 uint64_t *out)
{
    const uint64_t lo = spec.lo, hi = spec.hi;
    const char *const text = rq->get(rq, key);
    if (text == NULL) {
        *out = spec.def;
        return spec.required ? serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: missing", key) : 0;
    }
    if (!parse_digits(text, strlen(text), out)) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST,
                           "%s: expected an unsigned decimal integer of 64 bits", key);
    }
    if (*out < lo || *out > hi) {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: %llu is out of range %llu..%llu", key,
                           (unsigned long long)*out, (unsigned long long)lo,
                           (unsigned long long)hi);
    }
    return 0;
}

typedef struct id_range {
    uint32_t lo, hi; /* inclusive */
} id_range;

static int compare_range(const void *a, const void *b)
{
    const id_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One token "A" or "A-B" of an id list; false when malformed. */
static bool parse_range(const char *tok, size_t len, id_range *out)
{
    const char *const dash = memchr(tok, '-', len);
    uint64_t a, b;
    if (dash == NULL) {
        if (!parse_digits(tok, len, &a) || a > UINT32_MAX) {
            return false;
        }
        out->lo = out->hi = (uint32_t)a;
        return true;
    }
    const size_t left = (size_t)(dash - tok);
    if (!parse_digits(tok, left, &a) || !parse_digits(dash + 1, len - left - 1, &b) ||
        a > UINT32_MAX || b > UINT32_MAX || a > b) {
        return false;
    }
    out->lo = (uint32_t)a;
    out->hi = (uint32_t)b;
    return true;
}

/* Text -> ranges, each checked against limit. */
static int parse_ranges(serve_response *res,
                        const char *key,
                        const char *text,
                        uint32_t limit,
                        id_range *ranges,
                        size_t *n)
{
    *n = 0;
    for (const char *p = text;;) {
        const size_t len = strcspn(p, ",");
        id_range r;
        if (!parse_range(p, len, &r)) {
            return serve_error(res, SERVE_HTTP_BAD_REQUEST,
                               "%s: expected ids and ranges like 0,3,7-12 (token %zu)", key,
                               *n + 1);
        }
        if (r.hi >= limit) {
            return serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: unknown id %u (the file has %u)",
                               key, r.hi, limit);
        }
        ranges[(*n)++] = r;
        if (p[len] == '\0') {
            return 0;
        }
        p += len + 1;
    }
}

/* Sorted ranges -> unique ids. */
static int
emit_ids(serve_response *res, id_range *ranges, size_t n, uint32_t **ids, uint32_t *count)
{
    qsort(ranges, n, sizeof *ranges, compare_range);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (ranges[i].lo <= ranges[m].hi || ranges[i].lo == ranges[m].hi + 1) {
            ranges[m].hi = ranges[i].hi > ranges[m].hi ? ranges[i].hi : ranges[m].hi;
        } else {
            ranges[++m] = ranges[i];
        }
    }
    uint64_t total = 0;
    for (size_t i = 0; i <= m; i++) {
        total += (uint64_t)ranges[i].hi - ranges[i].lo + 1u;
    }
    *ids = malloc((size_t)total * sizeof **ids);
    if (*ids == NULL) {
        return serve_error(res, SERVE_HTTP_INTERNAL, "out of memory");
    }
    *count = 0;
    for (size_t i = 0; i <= m; i++) {
        for (uint64_t id = ranges[i].lo; id <= ranges[i].hi; id++) {
            (*ids)[(*count)++] = (uint32_t)id;
        }
    }
    return 0;
}

int param_ids(const serve_request *rq,
              serve_response *res,
              const char *key,
              uint32_t limit,
              uint32_t **ids,
              uint32_t *n)
{
    *ids = NULL;
    *n = 0;
    const char *const text = rq->get(rq, key);
    if (text == NULL) {
        return 0;
    }
    if (text[0] == '\0') {
        return serve_error(res, SERVE_HTTP_BAD_REQUEST,
                           "%s: empty list (leave the parameter out to select all)", key);
    }
    size_t tokens = 1;
    for (const char *p = text; *p != '\0'; p++) {
        tokens += *p == ',';
    }
    id_range *const ranges = malloc(tokens * sizeof *ranges);
    if (ranges == NULL) {
        return serve_error(res, SERVE_HTTP_INTERNAL, "out of memory");
    }
    size_t nr = 0;
    int rc = parse_ranges(res, key, text, limit, ranges, &nr);
    if (rc == 0) {
        rc = emit_ids(res, ranges, nr, ids, n);
    }
    free(ranges);
    return rc;
}

int param_kinds(
    const serve_request *rq, serve_response *res, const char *key, uint32_t allowed, uint32_t *mask)
{
    *mask = 0;
    const char *const text = rq->get(rq, key);
    if (text == NULL) {
        return 0;
    }
    for (const char *p = text;;) {
        const size_t len = strcspn(p, ",");
        unsigned k = 0;
        while (k < 6 && !(strlen(kind_names[k]) == len && strncmp(p, kind_names[k], len) == 0)) {
            k++;
        }
        if (k == 6 || (allowed & (1u << k)) == 0) {
            return serve_error(
                res, SERVE_HTTP_BAD_REQUEST,
                "%s: expected a comma list of kinds (state, event, arrow, counter%s)", key,
                (allowed & 0x30u) != 0 ? ", preview, run" : "");
        }
        *mask |= 1u << k;
        if (p[len] == '\0') {
            return 0;
        }
        p += len + 1;
    }
}

int param_choice(const serve_request *rq,
                 serve_response *res,
                 const char *key,
                 const char *const *names,
                 size_t def,
                 size_t *out)
{
    const char *const text = rq->get(rq, key);
    *out = def;
    if (text == NULL) {
        return 0;
    }
    size_t n = 0;
    for (; names[n] != NULL; n++) {
        if (strcmp(text, names[n]) == 0) {
            *out = n;
            return 0;
        }
    }
    return serve_error(res, SERVE_HTTP_BAD_REQUEST, "%s: expected %s%s%s%s%s", key, names[0],
                       n > 1 ? " or " : "", n > 1 ? names[1] : "", n > 2 ? " or " : "",
                       n > 2 ? names[2] : "");
}
