/* SPDX-License-Identifier: MIT
 *
 * chrome_harness.c - recording output and import callbacks for tests of the
 * Chrome importer (see chrome_harness.h).  Args are rendered as text with
 * their type so tests can check typing: s:"x" i:5 u:18446744073709551615
 * d:1.5 b:true j:{...}.
 */
#include "chrome_harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import_run.h"

static harness *H(void *u)
{
    return (harness *)u;
}

/* The options' callbacks (the run serialises them, from either thread of a
 * threaded import). */
static void on_count(const char *what, slog_import_outcome outcome, uint64_t n, void *user)
{
    harness *h = user;
    for (size_t i = 0; i < h->nwhat; i++) {
        if (strcmp(h->what[i], what) == 0) {
            h->n[i][outcome] += n;
            return;
        }
    }
    if (h->nwhat < 256) {
        h->what[h->nwhat] = strdup(what);
        memset(h->n[h->nwhat], 0, sizeof h->n[0]);
        h->n[h->nwhat][outcome] = n;
        h->nwhat++;
    }
}

static void on_warning(harness *h, const slog_import_diagnostic *d)
{
    h->warnings++;
    (void)snprintf(h->last_warning, sizeof h->last_warning, "%llu:%llu: %s",
                   (unsigned long long)d->line, (unsigned long long)d->column, d->message);
    if (h->warn_out != NULL) {
        (void)fprintf(h->warn_out, "%s:%llu:%llu: warning: %s (byte %llu)\n", d->source,
                      (unsigned long long)d->line, (unsigned long long)d->column, d->message,
                      (unsigned long long)d->offset);
    }
}

static void on_diagnostic(const slog_import_diagnostic *d, void *user)
{
    harness *h = user;
    if (d->severity == SLOG_IMPORT_WARNING) {
        on_warning(h, d);
        return;
    }
    (void)snprintf(h->fail_message, sizeof h->fail_message, "%s", d->message);
    h->fail_line = d->line;
    h->fail_col = d->column;
    h->failed = true;
    if (h->warn_out != NULL) {
        (void)fprintf(h->warn_out, "%s:%llu:%llu: %s\n", d->source,
                      (unsigned long long)d->line, (unsigned long long)d->column,
                      h->fail_message);
    }
}

/* Set up the import run the importer reports to (import_run.h). */
static int run_begin(harness *h)
{
    slog_import_options o = SLOG_IMPORT_OPTIONS_INIT;
    o.sort_window = h->window;
    o.flags = (h->window == 0 ? SLOG_IMPORT_NO_REORDER : 0u) |
              (h->no_fast_scan ? SLOG_IMPORT_NO_FAST_SCAN : 0u);
    o.count = on_count;
    o.diagnostic = on_diagnostic;
    o.user = h;
    if (import_run_init(&h->run, NULL, 0, &o, NULL) != SLOG_OK) {
        return -1;
    }
    h->ctx.run = &h->run;
    return 0;
}

static int run_end(harness *h, int rc)
{
    import_run_destroy(&h->run);
    h->ctx.run = NULL;
    return rc;
}

/* ----------------------------------------------------------- recording */

static int rec_add_timeline(void *u, uint32_t parent, slog_timeline_kind kind, const char *name,
                            int64_t sort_key, uint32_t *id)
{
    harness *h = H(u);
    h_timeline *t = realloc(h->tl, (h->ntl + 1) * sizeof *t);
    if (t == NULL) {
        return -1;
    }
    h->tl = t;
    if (parent != SLOG_NO_PARENT && parent >= h->ntl) {
        return -1;
    }
    t[h->ntl] = (h_timeline){parent, kind, strdup(name), sort_key};
    *id = (uint32_t)h->ntl++;
    return 0;
}

static int rec_set_timeline(void *u, uint32_t id, const char *name, int64_t sort_key)
{
    harness *h = H(u);
    if (id >= h->ntl) {
        return -1;
    }
    if (name != NULL) {
        free(h->tl[id].name);
        h->tl[id].name = strdup(name);
    }
    h->tl[id].sort = sort_key;
    return 0;
}

static int rec_add_category(void *u, slog_kind kind, const char *name, const char *group,
                            uint32_t *id)
{
    harness *h = H(u);
    h_category *c = realloc(h->cat, (h->ncat + 1) * sizeof *c);
    if (c == NULL) {
        return -1;
    }
    h->cat = c;
    c[h->ncat] = (h_category){kind, strdup(name), group != NULL ? strdup(group) : NULL};
    *id = (uint32_t)h->ncat++;
    return 0;
}

static char *render_args(const slog_arg *a, uint32_t n)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    s[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        char val[128];
        const char *text = val;
        switch (a[i].type) {
        case SLOG_ARG_STRING:
        case SLOG_ARG_JSON:
            text = a[i].v.s;
            break;
        case SLOG_ARG_INT:
            (void)snprintf(val, sizeof val, "%lld", (long long)a[i].v.i);
            break;
        case SLOG_ARG_UINT:
            (void)snprintf(val, sizeof val, "%llu", (unsigned long long)a[i].v.u);
            break;
        case SLOG_ARG_DOUBLE:
            (void)snprintf(val, sizeof val, "%.17g", a[i].v.d);
            break;
        case SLOG_ARG_BOOL:
        default:
            (void)snprintf(val, sizeof val, "%s", a[i].v.b ? "true" : "false");
            break;
        }
        static const char tc[] = "siudbj";
        const size_t need = strlen(a[i].key) + strlen(text) + 8;
        if (len + need > cap) {
            while (len + need > cap) {
                cap *= 2;
            }
            s = realloc(s, cap);
        }
        len += (size_t)sprintf(s + len, "%s%s=%c:%s", i ? ";" : "", a[i].key, tc[a[i].type], text);
    }
    return s;
}

static int rec_item(harness *h, h_item it)
{
    if (it.category >= h->ncat || it.timeline >= h->ntl ||
        (it.kind == SLOG_KIND_ARROW && it.to >= h->ntl) || it.end < it.start) {
        free(it.args);
        return -1; /* what the writer would reject with SLOG_EINVAL */
    }
    h->count[it.kind]++;
    if (!h->keep_items) {
        free(it.args);
        return 0;
    }
    if (h->nitems == h->capitems) {
        h->capitems = h->capitems ? h->capitems * 2 : 256;
        h->items = realloc(h->items, h->capitems * sizeof *h->items);
    }
    h->items[h->nitems++] = it;
    return 0;
}

static int rec_state(void *u, const slog_state *s)
{
    return rec_item(H(u), (h_item){SLOG_KIND_STATE, s->timeline, 0, s->category, s->depth,
                                   s->start, s->end, 0, render_args(s->args, s->nargs)});
}

static int rec_event(void *u, const slog_event *e)
{
    return rec_item(H(u), (h_item){SLOG_KIND_EVENT, e->timeline, 0, e->category, 0, e->time,
                                   e->time, 0, render_args(e->args, e->nargs)});
}

static int rec_arrow(void *u, const slog_arrow *a)
{
    return rec_item(H(u), (h_item){SLOG_KIND_ARROW, a->from, a->to, a->category, 0, a->start,
                                   a->end, 0, render_args(a->args, a->nargs)});
}

static int rec_counter(void *u, const slog_counter *c)
{
    return rec_item(H(u), (h_item){SLOG_KIND_COUNTER, c->timeline, 0, c->category, 0, c->time,
                                   c->time, c->value, NULL});
}

void harness_init(harness *h, uint64_t window, bool keep_items)
{
    memset(h, 0, sizeof *h);
    h->window = window;
    h->keep_items = keep_items;
    h->ctx.display_name = "(input)";
    h->ctx.input_count = 1;
}

int harness_import(harness *h, const char *const *paths, size_t n, chrome_mode mode)
{
    const chrome_out out = {h,        rec_add_timeline, rec_set_timeline, rec_add_category,
                            rec_state, rec_event,       rec_arrow,        rec_counter,
                            NULL};
    h->ctx.display_name = paths[0];
    if (run_begin(h) != 0) {
        return -1;
    }
    return run_end(h, chrome_import(&h->ctx, paths, n, mode, &out, h->threaded));
}

int harness_import_bytes(harness *h, const void *data, size_t len, size_t chunk,
                         chrome_mode mode)
{
    const chrome_out out = {h,        rec_add_timeline, rec_set_timeline, rec_add_category,
                            rec_state, rec_event,       rec_arrow,        rec_counter,
                            NULL};
    h->ctx.display_name = "(buffer)";
    if (run_begin(h) != 0) {
        return -1;
    }
    return run_end(h, chrome_import_buffer(&h->ctx, data, len, chunk, mode, &out));
}

int harness_import_text(harness *h, const char *text, size_t len, chrome_mode mode)
{
    char path[] = "/tmp/chrome_harness_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        return -1;
    }
    const ssize_t w = write(fd, text, len);
    (void)close(fd);
    if (w != (ssize_t)len) {
        (void)unlink(path);
        return -1;
    }
    const char *p = path;
    const int rc = harness_import(h, &p, 1, mode);
    (void)unlink(path);
    return rc;
}

uint64_t harness_counted(const harness *h, const char *what, import_outcome o)
{
    for (size_t i = 0; i < h->nwhat; i++) {
        if (strcmp(h->what[i], what) == 0) {
            return h->n[i][o];
        }
    }
    return 0;
}

void harness_free(harness *h)
{
    for (size_t i = 0; i < h->ntl; i++) {
        free(h->tl[i].name);
    }
    free(h->tl);
    for (size_t i = 0; i < h->ncat; i++) {
        free(h->cat[i].name);
        free(h->cat[i].group);
    }
    free(h->cat);
    for (size_t i = 0; i < h->nitems; i++) {
        free(h->items[i].args);
    }
    free(h->items);
    for (size_t i = 0; i < h->nwhat; i++) {
        free(h->what[i]);
    }
}
