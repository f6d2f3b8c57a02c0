/* SPDX-License-Identifier: MIT
 *
 * check_salvage.c - slog-check --salvage: a new complete file with
 * everything of the input that verifies, written through the public
 * writer.  The timelines, categories and clock are copied as they are (the
 * reader verified them when it opened the file), then every node whose row
 * and drawables verify is read on its own (slog_query_create_node) and its
 * drawables appended - with their args unless the node's args blob is
 * damaged.  Each drawable lives in exactly one node, so nothing is copied
 * twice.  The file is written under a temporary name and renamed when
 * complete; OUT may not be the input.  What was lost goes to stderr.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static int copy_tables(slog_reader *r, slog_writer *w, slog_error *err)
{
    const slog_file_info *const fi = slog_reader_info(r);
    for (uint32_t id = 0; id < fi->timelines; id++) {
        slog_timeline_info t;
        int rc = slog_reader_timeline(r, id, &t);
        if (rc == SLOG_OK) {
            rc = slog_writer_add_timeline(w, t.parent, t.kind, t.name, t.sort_key, NULL, err);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    for (uint32_t id = 0; id < fi->categories; id++) {
        slog_category_info c;
        int rc = slog_reader_category(r, id, &c);
        if (rc == SLOG_OK) {
            rc = slog_writer_add_category(w, c.kind, c.name, c.rgba,
                                          c.group != NULL && *c.group ? c.group : NULL, NULL, err);
        }
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

static int append_item(slog_writer *w, const slog_item *it, slog_error *err)
{
    switch (it->kind) {
    case SLOG_KIND_STATE:
        return slog_writer_append_state(w, &it->u.state, err);
    case SLOG_KIND_EVENT:
        return slog_writer_append_event(w, &it->u.event, err);
    case SLOG_KIND_ARROW:
        return slog_writer_append_arrow(w, &it->u.arrow, err);
    case SLOG_KIND_COUNTER:
        return slog_writer_append_counter(w, &it->u.counter, err);
    default:
        return SLOG_OK; /* a node query yields drawables only */
    }
}

/* Copy node i's drawables (with args unless with_args is false). */
static int copy_node(slog_reader *r, slog_writer *w, uint64_t i, bool with_args, uint64_t *n,
                     slog_error *err)
{
    slog_query_options o = SLOG_QUERY_OPTIONS_INIT;
    o.flags = with_args ? SLOG_QUERY_ARGS : 0;
    slog_query *q;
    int rc = slog_query_create_node(&q, r, i, &o, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const slog_item *it;
    while ((rc = slog_query_next(q, &it, err)) == SLOG_OK) {
        rc = append_item(w, it, err);
        if (rc != SLOG_OK) {
            break;
        }
        (*n)++;
    }
    slog_query_destroy(q);
    return rc == SLOG_END ? SLOG_OK : rc;
}

/* The damage of node i, or NULL (c->damaged is in node order). */
static const slog_node_damage *damage_of(const check_result *c, size_t *k, uint64_t i)
{
    while (*k < c->ndamaged && c->damaged[*k].index < i) {
        (*k)++;
    }
    return *k < c->ndamaged && c->damaged[*k].index == i ? &c->damaged[*k] : NULL;
}

static void say_lost(const slog_node_damage *d, bool args_only, bool quiet)
{
    if (quiet) {
        return;
    }
    if (args_only) {
        (void)fprintf(stderr, PROG ": salvage: node %" PRIu64 " [%" PRId64 ", %" PRId64
                      "]: the args of its %" PRIu64 " drawables are lost\n",
                      d->index, d->start, d->end, d->drawables);
    } else if (d->range_exact) {
        (void)fprintf(stderr, PROG ": salvage: node %" PRIu64 " [%" PRId64 ", %" PRId64
                      "]: %" PRIu64 " drawables lost\n", d->index, d->start, d->end, d->drawables);
    } else {
        (void)fprintf(stderr, PROG ": salvage: node %" PRIu64 " (row damaged, within [%" PRId64
                      ", %" PRId64 "]): its drawables are lost\n", d->index, d->start, d->end);
    }
}

static int copy_nodes(slog_reader *r, slog_writer *w, const check_result *c, bool quiet,
                      salvage_totals *st, slog_error *err)
{
    size_t k = 0;
    for (uint64_t i = 0; i < c->info->nodes; i++) {
        const slog_node_damage *const d = damage_of(c, &k, i);
        const uint32_t parts = d != NULL ? d->parts : 0;
        if (parts & (SLOG_DAMAGE_ROW | SLOG_DAMAGE_DRAWABLES)) {
            say_lost(d, false, quiet);
            continue;
        }
        if (parts & SLOG_DAMAGE_ARGS) {
            say_lost(d, true, quiet);
            st->args_lost += d->drawables;
        }
        const int rc = copy_node(r, w, i, (parts & SLOG_DAMAGE_ARGS) == 0, &st->drawables, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    return SLOG_OK;
}

/* Refuse OUT when it is the input (same file, under any name). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int write_salvage(slog_reader *r, const check_result *c, const char *tmp, bool quiet,
                         salvage_totals *st, slog_error *err)
{
    const slog_file_info *const fi = slog_reader_info(r);
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.leaf_bytes = fi->leaf_bytes;
    wo.fanout = fi->fanout;
    wo.ticks_per_second = fi->ticks_per_second;
    wo.creator = "slog-check --salvage " SLOG_VERSION_STRING;
    slog_writer *w;
    int rc = slog_writer_create(&w, tmp, &wo, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = copy_tables(r, w, err);
    if (rc == SLOG_OK) {
        rc = copy_nodes(r, w, c, quiet, st, err);
    }
    if (rc == SLOG_OK) {
        rc = slog_writer_finish(w, err);
    }
    slog_writer_destroy(w);
    return rc;
}

int check_salvage(slog_reader *r, const check_result *c, const char *out, bool quiet,
                  salvage_totals *st)
{
    if (same_file(c->path, out)) {
        (void)fprintf(stderr, PROG ": %s: --output is the input file; nothing written\n", out);
        return -1;
    }
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.salvage-%ld.tmp", out, (long)getpid()) >= (int)sizeof tmp) {
        (void)fprintf(stderr, PROG ": %s: output name too long\n", out);
        return -1;
    }
    slog_error err;
    memset(&err, 0, sizeof err);
    const int rc = write_salvage(r, c, tmp, quiet, st, &err);
    if (rc != SLOG_OK) {
        (void)fprintf(stderr, PROG ": %s: cannot salvage: %s (%s)\n", out, err.message,
                      slog_status_name(rc));
        (void)unlink(tmp);
        return -1;
    }
    if (rename(tmp, out) != 0) {
        (void)fprintf(stderr, PROG ": %s: cannot rename %s: %s\n", out, tmp, strerror(errno));
        (void)unlink(tmp);
        return -1;
    }
    if (!quiet) {
        (void)fprintf(stderr, PROG ": salvage: %s written, %" PRIu64 " drawables copied\n", out,
                      st->drawables);
    }
    return 0;
}
