/* SPDX-License-Identifier: MIT
 *
 * merge_inputs.c - what the merge checks and derives from its inputs
 * before it writes anything: no file given twice (by name, or by device
 * and inode, so "./x.slog", "x.slog" and a hard link are one file), none
 * equal to the output; each opened with the public reader, refused when
 * incomplete unless allowed; the output clock, the least common multiple
 * of the inputs' (or the caller's, which must be a common multiple), so
 * that every input tick is a whole number of output ticks (no rounding,
 * ever); and the range of the output, each input's [start, end] shifted by
 * its offset and scaled, with every overflow refused up front, naming the
 * input.  Merge library: public libslog headers only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "merge_int.h"
#include <slog/slog_index.h>
#include <shared_lcm.h>

/* Per-reader node cache: a share of this, within the bounds below. */
#define CACHE_BUDGET ((uint64_t)64 << 20)
#define CACHE_MIN ((uint64_t)2 << 20)
#define CACHE_MAX ((uint64_t)8 << 20)

typedef struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
} file_id;

static int cmp_file_id(const void *pa, const void *pb)
{
    const file_id *a = pa;
    const file_id *b = pb;
    if (a->dev != b->dev) {
        return a->dev < b->dev ? -1 : 1;
    }
    if (a->ino != b->ino) {
        return a->ino < b->ino ? -1 : 1;
    }
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Inputs that name the output (by name, or by device and inode when it exists). */
static int check_output(const char *const *paths, size_t n, const char *out, slog_error *err)
{
    struct stat so;
    const int out_exists = stat(out, &so) == 0;
    for (size_t i = 0; i < n; i++) {
        struct stat si;
        if (strcmp(paths[i], out) == 0 ||
            (out_exists && stat(paths[i], &si) == 0 && si.st_dev == so.st_dev &&
             si.st_ino == so.st_ino)) {
            return merge_err(err, SLOG_EINVAL, paths[i],
                             "The output %s is this input: refusing to overwrite an input", out);
        }
    }
    return SLOG_OK;
}

int merge_inputs_check_paths(const char *const *paths, size_t n, const char *out, slog_error *err)
{
    int rc = check_output(paths, n, out, err);
    file_id *const ids = rc == SLOG_OK ? calloc(n, sizeof *ids) : NULL;
    if (rc != SLOG_OK || ids == NULL) {
        return rc != SLOG_OK ? rc : merge_err(err, SLOG_ENOMEM, "", "Cannot check the inputs");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0) { /* one that cannot be stat'ed fails to open later */
            ids[k++] = (file_id){st.st_dev, st.st_ino, i};
        }
    }
    qsort(ids, k, sizeof *ids, cmp_file_id);
    for (size_t i = 1; i < k && rc == SLOG_OK; i++) {
        if (ids[i].dev == ids[i - 1].dev && ids[i].ino == ids[i - 1].ino) {
            rc = merge_err(err, SLOG_EINVAL, paths[ids[i].index],
                           "The same file as input %s: an input given twice",
                           paths[ids[i - 1].index]);
        }
    }
    free(ids);
    return rc;
}

/* The file name without directory and ".slog". */
static void default_label(merge_input *in)
{
    const char *base = strrchr(in->path, '/');
    base = base != NULL ? base + 1 : in->path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".slog") == 0) {
        len -= 5;
    }
    len = len < sizeof in->label_buf - 1 ? len : sizeof in->label_buf - 1;
    memcpy(in->label_buf, base, len);
    in->label_buf[len] = '\0';
    in->label = in->label_buf;
}

static int open_one(merge_ctx *m, merge_input *in, uint64_t cache)
{
    slog_reader_options ro = SLOG_READER_OPTIONS_INIT;
    ro.cache_bytes = cache;
    const int rc = slog_reader_open(&in->r, in->path, &ro, m->err);
    if (rc != SLOG_OK) {
        in->r = NULL;
        return merge_err_source(m->err, rc, in->path);
    }
    in->info = slog_reader_info(in->r);
    if (slog_reader_index_inputs(in->r) > 0) {
        return merge_err(m->err, SLOG_EINVAL, in->path,
                         "An index (of %u files) is not an input: merge its inputs instead",
                         slog_reader_index_inputs(in->r));
    }
    if (in->info->ticks_per_second == 0) {
        return merge_err(m->err, SLOG_ECORRUPT, in->path, "Its clock is 0 ticks per second");
    }
    if (!in->info->complete) {
        if ((m->opts.o.flags & SLOG_MERGE_ALLOW_INCOMPLETE) == 0) {
            return merge_err(m->err, SLOG_ESTATE, in->path,
                             "Incomplete: its writer did not finish (allow incomplete inputs "
                             "to merge what it flushed)");
        }
        m->sum.incomplete_inputs++;
    }
    return SLOG_OK;
}

int merge_inputs_open(merge_ctx *m, const char *const *paths)
{
    uint64_t cache = CACHE_BUDGET / m->n;
    cache = cache < CACHE_MIN ? CACHE_MIN : cache > CACHE_MAX ? CACHE_MAX : cache;
    for (size_t i = 0; i < m->n; i++) {
        merge_input *const in = &m->in[i];
        in->path = paths[i];
        in->offset = m->opts.o.offsets != NULL ? m->opts.o.offsets[i] : 0;
        if (m->opts.o.labels != NULL && m->opts.o.labels[i] != NULL) {
            in->label = m->opts.o.labels[i];
        } else {
            default_label(in);
        }
        const int rc = open_one(m, in, cache);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

/* Input i's clock does not fit with the earlier ones: name the earlier
 * input whose clock makes the largest common multiple with it. */
static int clock_refused(const merge_ctx *m, size_t i)
{
    const uint64_t ti = m->in[i].info->ticks_per_second;
    size_t worst = 0;
    merge_u128 worst_l = 0;
    for (size_t j = 0; j < i; j++) {
        const uint64_t tj = m->in[j].info->ticks_per_second;
        const merge_u128 l = (merge_u128)(tj / shared_gcd(tj, ti)) * ti;
        if (l > worst_l) {
            worst_l = l;
            worst = j;
        }
    }
    return merge_err(m->err, SLOG_EINVAL, m->in[i].path,
                     "Cannot convert the clocks of %s (%llu ticks/s) and %s (%llu ticks/s) "
                     "exactly: their least common multiple is above 10^12 ticks/s",
                     m->in[worst].path,
                     (unsigned long long)m->in[worst].info->ticks_per_second, m->in[i].path,
                     (unsigned long long)ti);
}

int merge_inputs_clock(merge_ctx *m)
{
    uint64_t tps = 1;
    for (size_t i = 0; i < m->n; i++) {
        tps = shared_lcm_bounded(tps, m->in[i].info->ticks_per_second,
                                 MERGE_MAX_TICKS_PER_SECOND);
        if (tps == 0) {
            return clock_refused(m, i);
        }
    }
    const uint64_t asked = m->opts.wo.ticks_per_second;
    for (size_t i = 0; asked != 0 && i < m->n; i++) {
        if (asked % m->in[i].info->ticks_per_second != 0) {
            return merge_err(m->err, SLOG_EINVAL, m->in[i].path,
                             "Its clock (%llu ticks/s) does not divide the output clock asked "
                             "for (%llu ticks/s)",
                             (unsigned long long)m->in[i].info->ticks_per_second,
                             (unsigned long long)asked);
        }
    }
    m->out_tps = asked != 0 ? asked : tps;
    for (size_t i = 0; i < m->n; i++) {
        m->in[i].mult = m->out_tps / m->in[i].info->ticks_per_second;
    }
    m->opts.wo.ticks_per_second = m->out_tps;
    m->sum.ticks_per_second = m->out_tps;
    return SLOG_OK;
}

bool merge_time_out(const merge_input *in, int64_t t, int64_t *out)
{
    int64_t shifted;
    return !__builtin_add_overflow(t, in->offset, &shifted) &&
           !__builtin_mul_overflow(shifted, (int64_t)in->mult, out);
}

int64_t merge_floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static uint64_t drawables_of(const slog_file_info *f)
{
    return f->states + f->events + f->arrows + f->counters;
}

int merge_inputs_range(merge_ctx *m)
{
    m->empty = true;
    for (size_t i = 0; i < m->n; i++) {
        const merge_input *const in = &m->in[i];
        const uint64_t count = drawables_of(in->info);
        m->total += count;
        if (count == 0 || in->info->start > in->info->end) {
            continue;
        }
        int64_t s, e;
        if (!merge_time_out(in, in->info->start, &s) || !merge_time_out(in, in->info->end, &e)) {
            return merge_err(m->err, SLOG_EINVAL, in->path,
                             "Its times %lld..%lld plus offset %lld times %llu (to %llu "
                             "ticks/s) do not fit in 64 bits",
                             (long long)in->info->start, (long long)in->info->end,
                             (long long)in->offset, (unsigned long long)in->mult,
                             (unsigned long long)m->out_tps);
        }
        m->lo = m->empty || s < m->lo ? s : m->lo;
        m->hi = m->empty || e > m->hi ? e : m->hi;
        m->empty = false;
    }
    int64_t span;
    if (!m->empty && __builtin_sub_overflow(m->hi, m->lo, &span)) {
        return merge_err(m->err, SLOG_EINVAL, m->out,
                         "The inputs together span %lld..%lld ticks, more than 2^63-1",
                         (long long)m->lo, (long long)m->hi);
    }
    return SLOG_OK;
}
