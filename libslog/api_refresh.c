/* SPDX-License-Identifier: MIT
 *
 * api_refresh.c - slog_reader_refresh: grow a reader's view to what a live
 * (SWMR) writer flushed since open: the refreshed datasets, the new
 * summary, the strings appended (into a heap that keeps the old bytes
 * where they were), the timeline and category tables, and the tree's node
 * count and roots (tree_read_refresh).  Every piece is checked as at open
 * before the reader takes it; any failure leaves the previous view.
 * Layer 5: api.
 */
#include "api_internal.h"
#include "codec_crc32c.h"
#include "util_alloc.h"
#include "util_error.h"

#include <string.h>

static int shrank(const slog_reader *r, slog_error *err, const char *what)
{
    return util_err(err, SLOG_ECORRUPT, UINT64_MAX, r->path,
                    "Corrupt file: its summary covers fewer %s than before (rewritten by "
                    "another writer?)",
                    what);
}

/* The new summary may only add to the view. */
static int check_growth(const slog_reader *r, const store_summary *n, slog_error *err)
{
    const store_summary *const o = &r->sum;
    if (n->nodes < o->nodes || n->payload_bytes < o->payload_bytes) {
        return shrank(r, err, "nodes");
    }
    if (n->timelines < r->ntl || n->categories < r->ncat) {
        return shrank(r, err, "timelines or categories");
    }
    if (n->strings_bytes < r->strings_len) {
        return shrank(r, err, "string bytes");
    }
    return SLOG_OK;
}

/* Room for need bytes of heap: a bigger buffer when it does not fit, the
 * old one retired (pointers into it stay valid until destroy). */
static int heap_room(slog_reader *r, uint64_t need, slog_error *err)
{
    if (need <= r->strings_cap) {
        return SLOG_OK;
    }
    const uint64_t cap = need > 2 * r->strings_cap ? need : 2 * r->strings_cap;
    void *p = r->retired;
    char *const heap = util_malloc((size_t)cap);
    if (heap == NULL ||
        util_grow(&p, &r->retired_cap, r->nretired + 1, sizeof *r->retired) != 0) {
        util_free(heap);
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, r->path, "Cannot grow the string heap");
    }
    r->retired = p;
    if (r->strings != NULL) {
        memcpy(heap, r->strings, (size_t)r->strings_len);
        r->retired[r->nretired++] = r->strings;
    }
    r->strings = heap;
    r->strings_cap = cap;
    r->fs.heap = heap;
    return SLOG_OK;
}

/* Append the strings [strings_len, sum->strings_bytes) after checking them
 * (format 2: the CRC32C of the whole heap, continued over the new bytes). */
static int load_new_strings(slog_reader *r, const store_summary *sum, slog_error *err)
{
    const uint64_t old = r->strings_len, add = sum->strings_bytes - old;
    if (add == 0) {
        return SLOG_OK;
    }
    int rc = heap_room(r, sum->strings_bytes, err);
    if (rc == SLOG_OK) {
        rc = store_read_strings_range(r->st, old, (size_t)add, r->strings + old, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    const int v2 = r->hdr.format_read_version >= 2;
    if ((v2 && codec_crc32c(r->sum.strings_crc, r->strings + old, (size_t)add) !=
                   sum->strings_crc) ||
        r->strings[sum->strings_bytes - 1] != '\0') {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, r->path,
                        "Corrupt file: /strings checksum mismatch (entry %llu)",
                        (unsigned long long)sum->strings_bytes);
    }
    r->strings_len = sum->strings_bytes;
    r->fs.len = r->strings_len;
    return SLOG_OK;
}

/* The reader's tables, summary and info, exchanged with a new view's. */
typedef struct view_parts {
    api_timelines tl;
    store_category_row *cats;
    uint64_t ncat;
    store_summary sum;
    slog_file_info info;
} view_parts;

static void swap_parts(slog_reader *r, view_parts *v)
{
    api_reader_swap_timelines(r, &v->tl);
    store_category_row *const cats = r->cats;
    const uint64_t ncat = r->ncat;
    const store_summary sum = r->sum;
    const slog_file_info info = r->info;
    r->cats = v->cats;
    r->ncat = v->ncat;
    r->sum = v->sum;
    r->info = v->info;
    v->cats = cats;
    v->ncat = ncat;
    v->sum = sum;
    v->info = info;
}

/* The tables and the tree as the new summary covers them; on error the
 * reader's view is unchanged. */
static int load_new_view(slog_reader *r, const store_summary *sum, slog_error *err)
{
    view_parts v;
    memset(&v, 0, sizeof v);
    v.sum = *sum;
    int rc = api_reader_load_timelines(r, sum->timelines, &v.tl, err);
    if (rc == SLOG_OK) {
        rc = api_reader_load_categories(r, sum->categories, &v.cats, &v.ncat, err);
    }
    tree_read_view prev = {0, 0, NULL, 0, 0};
    if (rc == SLOG_OK) {
        rc = tree_read_refresh(&r->tree, sum, &prev, err);
    }
    if (rc == SLOG_OK) {
        swap_parts(r, &v);
        api_reader_fill_info(r);
        rc = api_reader_count_incomplete(r, err);
        if (rc != SLOG_OK) {
            swap_parts(r, &v); /* back to the previous view */
            tree_read_view_restore(&r->tree, &prev);
        }
    }
    tree_read_view_free(&prev);
    api_timelines_free(&v.tl);
    util_free(v.cats);
    return rc;
}

int slog_reader_refresh(slog_reader *r, bool *grew, slog_error *err)
{
    if (grew != NULL) {
        *grew = false;
    }
    if (r->index != NULL) {
        return SLOG_OK; /* an index is written once, complete: it does not grow */
    }
    store_summary sum;
    int rc = store_refresh(r->st, true, err);
    if (rc == SLOG_OK) {
        rc = api_reader_load_summary(r, &sum, err);
    }
    if (rc == SLOG_OK) {
        rc = store_refresh(r->st, false, err); /* after the summary: extents cover it */
    }
    if (rc == SLOG_OK) {
        rc = check_growth(r, &sum, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    if (sum.nodes == r->sum.nodes && sum.timelines == r->ntl && sum.categories == r->ncat &&
        sum.strings_bytes == r->strings_len && sum.complete == r->sum.complete) {
        return SLOG_OK;
    }
    rc = load_new_strings(r, &sum, err);
    if (rc == SLOG_OK) {
        rc = load_new_view(r, &sum, err);
    }
    if (rc == SLOG_OK && grew != NULL) {
        *grew = true;
    }
    return rc;
}
