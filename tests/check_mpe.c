/* SPDX-License-Identifier: MIT
 *
 * check_mpe.c - the MPE CLOG2 and SLOG-2 importers against the corpus
 * (../shared/corpus/mpe, or $SLOG_CORPUS/mpe) and crafted inputs
 * (tests/data/mpe, made by make_mpe_data.py).
 *  - Decoders (no library): per category (index, name, kind) and per line
 *    ID the drawable counts equal the *.reference.txt tables of the real
 *    MPE/slog2sdk tools; CLOG2 record counts per type, SLOG-2 node and
 *    preview-shadow counts too.
 *  - The same run decoded from its .clog2 and from each of its .slog2
 *    files gives the same drawables: sorted lists of (kind, category name,
 *    line as (world rank, comm, comm rank, thread), start and end in ns as
 *    llround(seconds * 1e9), depth, args) are equal.
 *  - Crafted files: y_tiny.clog2 gives exactly its drawables; every n_*
 *    file fails with the byte offset and message listed below.
 *  - With slog-import built ($SLOG_IMPORT): every corpus file is imported
 *    and read back through the reader API (counts per category and kind,
 *    per line through the timeline the reference's line-ID maps give it,
 *    same drawables from .clog2 and .slog2), and every n_* file makes
 *    slog-import exit 1, name the file and byte, and leave an output that
 *    does not pass for complete; corpus logs cut at several points keep
 *    exactly the drawables of the records before the cut, and a record
 *    that cannot be mapped loses only itself.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <slog/slog.h>

#include "clog2_decode.h"
#include "mpe_decode.h"
#include "slog2_decode.h"

#ifndef SLOG_SOURCE_ROOT
#    define SLOG_SOURCE_ROOT "."
#endif

/* ---- inputs ---------------------------------------------------------- */

typedef struct mpe_case {
    const char *file;      /* in the corpus' mpe/ folder */
    const char *reference; /* *.reference.txt describing it */
} mpe_case;

static const mpe_case clog2_cases[] = {
    {"ring_mpilog.clog2", "ring_mpilog.reference.txt"},
    {"user_states.clog2", "user_states.reference.txt"},
    {"user_states_mpilog.clog2", "user_states_mpilog.reference.txt"},
    {"ring_big.clog2.gz", "ring_big.reference.txt"},
};
static const mpe_case slog2_cases[] = {
    {"ring_mpilog.slog2", "ring_mpilog.reference.txt"},
    {"ring_mpilog.nc4ls4k.slog2", "ring_mpilog.nc4ls4k.reference.txt"},
    {"user_states.slog2", "user_states.reference.txt"},
    {"user_states_mpilog.slog2", "user_states_mpilog.reference.txt"},
    {"user_states_mpilog.nc2ls2k.slog2", "user_states_mpilog.nc2ls2k.reference.txt"},
    {"ring_big.slog2.gz", "ring_big.reference.txt"},
};
/* Same run: a .clog2 and one of the .slog2 files converted from it. */
static const char *const same_run[][2] = {
    {"ring_mpilog.clog2", "ring_mpilog.slog2"},
    {"ring_mpilog.clog2", "ring_mpilog.nc4ls4k.slog2"},
    {"user_states.clog2", "user_states.slog2"},
    {"user_states_mpilog.clog2", "user_states_mpilog.slog2"},
    {"user_states_mpilog.clog2", "user_states_mpilog.nc2ls2k.slog2"},
    {"ring_big.clog2.gz", "ring_big.slog2.gz"},
};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Crafted damaged files: where and how each must fail. */
typedef struct broken_case {
    const char *file;
    uint64_t offset;
    const char *message; /* substring of the error */
} broken_case;

static const broken_case broken_cases[] = {
    {"n_truncated_block.clog2", 2148, "truncated: data block 1"},
    {"n_truncated_commtable.clog2", 3106, "truncated: a communicator table entry"},
    {"n_bad_rectype.clog2", 1220, "unknown CLOG2 record type 42"},
    {"n_undefined_etype.clog2", 2120, "event type 99999"},
    {"n_no_endlog.clog2", 3072, "no ENDLOG record"},
    {"n_trailing.clog2", 3116, "unexpected bytes after the communicator table"},
    {"n_truncated.clog2.gz", UINT64_MAX, NULL}, /* the gzip layer or a short block */
    {"n_truncated_node.slog2", 20000, "truncated: a tree node"},
    {"n_truncated_tail.slog2", 33095, "truncated: line-ID maps"},
    {"n_bad_vertex_count.slog2", 161, "drawable with 9 vertices"},
    {"n_count_mismatch.slog2", 32221, "the category map counts 81 drawables"},
};

static char *path_join(const char *a, const char *b)
{
    const size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    (void)snprintf(p, n, "%s/%s", a, b);
    return p;
}

static char *corpus_file(const char *name)
{
    static char root[4096];
    const char *env = getenv("SLOG_CORPUS");
    if (env != NULL && env[0] != '\0') {
        (void)snprintf(root, sizeof root, "%s/mpe", env);
    } else {
        (void)snprintf(root, sizeof root, "%s/../shared/corpus/mpe", SLOG_SOURCE_ROOT);
    }
    return path_join(root, name);
}

static char *data_file(const char *name)
{
    return path_join(SLOG_SOURCE_ROOT "/tests/data/mpe", name);
}

/* mpe_in over zlib's gz reader (plain files pass through). */
static long gz_read(void *user, void *buf, size_t n)
{
    return (long)gzread((gzFile)user, buf, (unsigned)n);
}

static const char *gz_err(void *user)
{
    int code = 0;
    return gzerror((gzFile)user, &code);
}

static gzFile open_in(const char *path, mpe_in *in)
{
    gzFile g = gzopen(path, "rb");
    ck_assert_msg(g != NULL, "cannot open %s", path);
    in->read = gz_read;
    in->errstr = gz_err;
    in->user = g;
    in->pos = 0;
    return g;
}

/* ---- the reference files -------------------------------------------- */

typedef struct ref_cat {
    int index;
    char name[64];
    int kind;
    uint64_t count;
} ref_cat;

typedef struct ref_line {
    uint32_t line;
    uint64_t n[3];
} ref_line;

/* A row of the SLOG-2 line-ID maps ("Process View", "Communicator View"). */
typedef struct ref_map {
    uint32_t line;
    int world, comm, comm_rank;
} ref_map;

typedef struct reference {
    ref_cat cats[64];
    int ncats;
    ref_line lines[64];
    int nlines;
    ref_map maps[64];
    int nmaps;
    uint64_t total, shadows, nodes;
    uint64_t records[CLOG2_RECTYPES];
} reference;

static int kind_of(const char *topo)
{
    if (strcmp(topo, "State") == 0) {
        return MPE_STATE;
    }
    return strcmp(topo, "Event") == 0 ? MPE_EVENT : MPE_ARROW;
}

static int rectype_of(const char *name)
{
    static const char *const names[] = {"",     "",    "sdef", "edef", "cdef", "bare",
                                        "cago", "msg", "coll", "comm", "src",  "shft"};
    for (int i = 0; i < CLOG2_RECTYPES; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

static void parse_line_counts(const char *s, ref_line *l)
{
    const char *const keys[3] = {"State=", "Event=", "Arrow="};
    for (int k = 0; k < 3; k++) {
        const char *p = strstr(s, keys[k]);
        l->n[k] = p != NULL ? strtoull(p + strlen(keys[k]), NULL, 10) : 0;
    }
}

/* Which table a header line opens: 1 records by type, 2 per category,
 * 3 per line, 4/5 the process/communicator line-ID map, 0 none; -1 when
 * the line is no header. */
static int section_of(const char *line)
{
    if (strncmp(line, "Title: ", 7) == 0) {
        if (strncmp(line + 7, "Process View", 12) == 0) {
            return 4;
        }
        return strncmp(line + 7, "Communicator View", 17) == 0 ? 5 : 0;
    }
    if (strncmp(line, "###", 3) == 0 || line[0] == '\n') {
        return strstr(line, "record counts by type") != NULL ? 1 : 0;
    }
    if (strncmp(line, "per category", 12) == 0) {
        return 2;
    }
    return strncmp(line, "per line ID", 11) == 0 ? 3 : -1;
}

static ref_map *map_row(reference *r, uint32_t line)
{
    for (int i = 0; i < r->nmaps; i++) {
        if (r->maps[i].line == line) {
            return &r->maps[i];
        }
    }
    ck_assert_int_lt(r->nmaps, 64);
    ref_map *m = &r->maps[r->nmaps++];
    m->line = line;
    return m;
}

static void parse_map_row(reference *r, int section, const char *line)
{
    int row = 0, id = 0, a = 0, b = 0;
    const int n = sscanf(line, "%d, %d: %d %d", &row, &id, &a, &b);
    if (section == 4 && n >= 3) {
        map_row(r, (uint32_t)id)->world = a;
    } else if (section == 5 && n == 4) {
        ref_map *m = map_row(r, (uint32_t)id);
        m->comm = a;
        m->comm_rank = b;
    }
}

static void parse_table_row(reference *r, int section, const char *line)
{
    if (section >= 4) {
        parse_map_row(r, section, line);
        return;
    }
    char a[64], b[64];
    unsigned long long n = 0;
    int idx = 0;
    if (section == 1 && sscanf(line, " %63s %llu", a, &n) == 2 && rectype_of(a) >= 0) {
        r->records[rectype_of(a)] = n;
    } else if (section == 2 && sscanf(line, " %d %63s %63s %llu", &idx, a, b, &n) == 4) {
        ck_assert_int_lt(r->ncats, 64);
        ref_cat *c = &r->cats[r->ncats++];
        c->index = idx;
        (void)snprintf(c->name, sizeof c->name, "%s", a);
        c->kind = kind_of(b);
        c->count = n;
    } else if (section == 3 && sscanf(line, " %d:", &idx) == 1) {
        ck_assert_int_lt(r->nlines, 64);
        r->lines[r->nlines].line = (uint32_t)idx;
        parse_line_counts(line, &r->lines[r->nlines++]);
    }
}

/* Reads the tables this suite compares with.  Sections: "record counts by
 * type" (CLOG2 side), "per category", "per line ID", "total drawables", and
 * the node lines "{ ID(" of "tree nodes" (SLOG-2 side). */
static void load_reference(const char *name, reference *r)
{
    char *path = corpus_file(name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    memset(r, 0, sizeof *r);
    char line[1024];
    int section = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long n = 0, s = 0, e = 0, ar = 0, sh = 0;
        const int opens = section_of(line);
        if (opens >= 0) {
            section = opens;
        } else if (sscanf(line,
                          "total drawables = %llu (State=%llu, Event=%llu, Arrow=%llu); "
                          "shadow (Preview_*) objects = %llu",
                          &n, &s, &e, &ar, &sh) == 5) {
            r->total = n;
            r->shadows = sh;
        } else if (strncmp(line, "{ ID(", 5) == 0) {
            r->nodes++;
        } else {
            parse_table_row(r, section, line);
        }
    }
    (void)fclose(f);
    free(path);
    ck_assert_msg(r->ncats > 0 && r->nlines > 0 && r->total > 0, "%s: tables not found", name);
}

/* ---- decoding into comparable records -------------------------------- */

typedef struct drec {
    int kind;
    const char *cat; /* category name (owned by the decoder) */
    int32_t from[4]; /* world rank, comm, comm rank, thread */
    int32_t to[4];
    uint32_t line; /* first vertex line ID */
    int64_t start, end;
    uint32_t depth;
    uint64_t args; /* FNV-1a of "key=value;..." */
} drec;

typedef struct decoded {
    const void *src;
    const mpe_category *(*category)(const void *src, uint32_t slot);
    void (*line)(const void *src, uint32_t line_id, mpe_line *out);
    drec *v;
    size_t n, cap;
    uint64_t backwards;
} decoded;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ull;
    }
    return h;
}

/* The args as slog-import makes them (import_mpe.c), hashed.  One known
 * difference is left out: for a message received before it was sent (clock
 * skew; the arrow is clamped to start == end) clog2TOslog2 stored the size
 * of the receive record (0) where the CLOG2 importer keeps the send's size,
 * so such arrows compare by tag only. */
static uint64_t args_hash(const mpe_category *c, const mpe_drawable *d)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (d->info == NULL) {
        return h;
    }
    mpe_value v[MPE_FMT_MAX];
    uint32_t n = mpe_info_decode(&c->fmt, d->info, d->info_len, v);
    if (d->kind == MPE_ARROW && d->end <= d->start && n > 1) {
        n = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        char key[64], text[96];
        mpe_fmt_arg_key(&c->fmt, i, key, sizeof key);
        h = fnv(h, key, strlen(key) + 1);
        if (v[i].type == 's') {
            h = fnv(h, v[i].s, v[i].slen);
        } else if (v[i].type == 'e' || v[i].type == 'E') {
            (void)snprintf(text, sizeof text, "%.17g", v[i].d);
            h = fnv(h, text, strlen(text));
        } else {
            (void)snprintf(text, sizeof text, "%lld", (long long)v[i].i);
            h = fnv(h, text, strlen(text));
        }
    }
    return h;
}

static void line_key(const decoded *dd, uint32_t id, int32_t out[4])
{
    mpe_line l;
    dd->line(dd->src, id, &l);
    out[0] = l.world_rank;
    out[1] = l.comm;
    out[2] = l.comm_rank;
    out[3] = l.thread;
}

static int collect(void *user, const mpe_drawable *d)
{
    decoded *dd = user;
    if (dd->n == dd->cap) {
        dd->cap = dd->cap == 0 ? 4096 : dd->cap * 2;
        dd->v = realloc(dd->v, dd->cap * sizeof *dd->v);
        ck_assert_ptr_nonnull(dd->v);
    }
    const mpe_category *c = dd->category(dd->src, d->category);
    drec *r = &dd->v[dd->n++];
    memset(r, 0, sizeof *r);
    r->kind = (int)d->kind;
    r->cat = c->name;
    line_key(dd, d->line, r->from);
    line_key(dd, d->line_to, r->to);
    r->line = d->line;
    ck_assert(mpe_seconds_to_ns(d->start, &r->start));
    ck_assert(mpe_seconds_to_ns(d->end, &r->end));
    r->depth = d->depth;
    r->args = args_hash(c, d);
    return 0;
}

static const mpe_category *clog2_cat(const void *src, uint32_t slot)
{
    return clog2_conv_category(src, slot);
}

static void clog2_line(const void *src, uint32_t id, mpe_line *out)
{
    clog2_conv_line(src, id, out);
}

static const mpe_category *slog2_cat(const void *src, uint32_t slot)
{
    return slog2_file_category(src, slot);
}

static void slog2_line(const void *src, uint32_t id, mpe_line *out)
{
    slog2_file_line(src, id, out);
}

/* Both passes of a CLOG2 file; returns the converter (caller destroys). */
static clog2_conv *decode_clog2(const char *path, decoded *dd, uint64_t counts[CLOG2_RECTYPES])
{
    mpe_err e = {0, ""};
    clog2_conv *conv = NULL;
    for (int pass = 0; pass < 2; pass++) {
        mpe_in in;
        gzFile g = open_in(path, &in);
        clog2_reader *r = NULL;
        ck_assert_msg(clog2_reader_open(&r, &in, &e) == 0, "%s: %s", path, e.msg);
        if (pass == 0) {
            ck_assert(clog2_conv_create(&conv, clog2_reader_preamble(r), &e) == 0);
            dd->src = conv;
            dd->category = clog2_cat;
            dd->line = clog2_line;
        }
        clog2_record rec;
        int rc = 0;
        while ((rc = clog2_reader_next(r, &rec, &e)) == 0) {
            rc = pass == 0 ? clog2_conv_learn(conv, &rec, &e)
                           : clog2_conv_feed(conv, &rec, collect, dd, &e);
            ck_assert_msg(rc == 0, "%s: byte %llu: %s", path, (unsigned long long)e.offset, e.msg);
        }
        ck_assert_msg(rc == 1, "%s: byte %llu: %s", path, (unsigned long long)e.offset, e.msg);
        if (counts != NULL) {
            memcpy(counts, clog2_reader_counts(r), CLOG2_RECTYPES * sizeof *counts);
        }
        clog2_reader_destroy(r);
        (void)gzclose(g);
    }
    clog2_conv_stats st;
    clog2_conv_stats_get(conv, &st);
    dd->backwards = st.arrows_backwards;
    return conv;
}

static slog2_file *decode_slog2(const char *path, decoded *dd)
{
    mpe_err e = {0, ""};
    slog2_file *f = NULL;
    mpe_in in;
    gzFile g = open_in(path, &in);
    ck_assert_msg(slog2_file_scan(&f, &in, &e) == 0, "%s: byte %llu: %s", path,
                  (unsigned long long)e.offset, e.msg);
    (void)gzclose(g);
    dd->src = f;
    dd->category = slog2_cat;
    dd->line = slog2_line;
    g = open_in(path, &in);
    ck_assert_msg(slog2_file_emit(f, &in, collect, dd, &e) == 0, "%s: byte %llu: %s", path,
                  (unsigned long long)e.offset, e.msg);
    (void)gzclose(g);
    slog2_stats st;
    slog2_file_stats(f, &st);
    dd->backwards = st.arrows_backwards;
    return f;
}

/* ---- comparisons with the reference --------------------------------- */

typedef const mpe_category *(*cat_at_fn)(const void *, uint32_t);

static void check_categories(
    const char *file, const reference *ref, const void *src, uint32_t ncats, cat_at_fn cat_at)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < ncats; i++) {
        const mpe_category *c = cat_at(src, i);
        if (c->count == 0) {
            continue;
        }
        used++;
        int found = -1;
        for (int j = 0; j < ref->ncats; j++) {
            if (ref->cats[j].index == c->index) {
                found = j;
            }
        }
        ck_assert_msg(found >= 0, "%s: category %d %s not in the reference", file, c->index,
                      c->name);
        const ref_cat *rc = &ref->cats[found];
        ck_assert_msg(strcmp(rc->name, c->name) == 0 && rc->kind == (int)c->kind &&
                          rc->count == c->count,
                      "%s: category %d: %s kind %d count %llu, reference %s kind %d count %llu",
                      file, c->index, c->name, c->kind, (unsigned long long)c->count, rc->name,
                      rc->kind, (unsigned long long)rc->count);
    }
    ck_assert_msg(used == (uint32_t)ref->ncats, "%s: %u categories used, reference has %d", file,
                  used, ref->ncats);
}

static void check_lines(const char *file, const reference *ref, const decoded *dd)
{
    uint64_t total = 0;
    for (int j = 0; j < ref->nlines; j++) {
        uint64_t n[3] = {0, 0, 0};
        for (size_t i = 0; i < dd->n; i++) {
            if (dd->v[i].line == ref->lines[j].line) {
                n[dd->v[i].kind]++;
            }
        }
        for (int k = 0; k < 3; k++) {
            ck_assert_msg(n[k] == ref->lines[j].n[k], "%s: line %u kind %d: %llu, reference %llu",
                          file, ref->lines[j].line, k, (unsigned long long)n[k],
                          (unsigned long long)ref->lines[j].n[k]);
            total += n[k];
        }
    }
    ck_assert_msg(total == dd->n && total == ref->total,
                  "%s: %zu drawables, %llu on the reference lines, reference total %llu", file,
                  dd->n, (unsigned long long)total, (unsigned long long)ref->total);
}

START_TEST(test_mpe_clog2_counts_match_reference)
{
    const mpe_case *c = &clog2_cases[_i];
    reference ref;
    load_reference(c->reference, &ref);
    char *path = corpus_file(c->file);
    decoded dd = {0};
    uint64_t counts[CLOG2_RECTYPES];
    clog2_conv *conv = decode_clog2(path, &dd, counts);
    check_categories(c->file, &ref, conv, clog2_conv_ncategories(conv), clog2_cat);
    check_lines(c->file, &ref, &dd);
    for (int t = CLOG2_STATEDEF; t < CLOG2_RECTYPES; t++) {
        ck_assert_msg(counts[t] == ref.records[t], "%s: %llu records of type %d, reference %llu",
                      c->file, (unsigned long long)counts[t], t,
                      (unsigned long long)ref.records[t]);
    }
    clog2_conv_stats st;
    clog2_conv_stats_get(conv, &st);
    ck_assert_uint_eq(st.unmatched_starts + st.unmatched_finals + st.unmatched_msgs, 0);
    clog2_conv_destroy(conv);
    free(dd.v);
    free(path);
}
END_TEST

START_TEST(test_mpe_slog2_counts_match_reference)
{
    const mpe_case *c = &slog2_cases[_i];
    reference ref;
    load_reference(c->reference, &ref);
    char *path = corpus_file(c->file);
    decoded dd = {0};
    slog2_file *f = decode_slog2(path, &dd);
    check_categories(c->file, &ref, f, slog2_file_ncategories(f), slog2_cat);
    check_lines(c->file, &ref, &dd);
    slog2_stats st;
    slog2_file_stats(f, &st);
    ck_assert_uint_eq(st.shadows, ref.shadows);
    ck_assert_uint_eq(st.nodes, ref.nodes);
    ck_assert_uint_eq(st.composites, 0);
    slog2_file_destroy(f);
    free(dd.v);
    free(path);
}
END_TEST

/* ---- same run from .clog2 and .slog2 -------------------------------- */

static int cmp_drec(const void *a, const void *b)
{
    const drec *x = a, *y = b;
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    if (x->end != y->end) {
        return x->end < y->end ? -1 : 1;
    }
    if (x->kind != y->kind) {
        return x->kind - y->kind;
    }
    const int c = strcmp(x->cat, y->cat);
    if (c != 0) {
        return c;
    }
    int f = memcmp(x->from, y->from, sizeof x->from);
    f = f != 0 ? f : memcmp(x->to, y->to, sizeof x->to);
    if (f != 0) {
        return f;
    }
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    return (x->args > y->args) - (x->args < y->args);
}

static void drec_text(const drec *r, char *buf, size_t n)
{
    (void)snprintf(buf, n, "kind %d %s line (%d,%d,%d,%d)->(%d,%d,%d,%d) [%lld, %lld] depth %u",
                   r->kind, r->cat, r->from[0], r->from[1], r->from[2], r->from[3], r->to[0],
                   r->to[1], r->to[2], r->to[3], (long long)r->start, (long long)r->end, r->depth);
}

START_TEST(test_mpe_same_run_same_drawables)
{
    char *cpath = corpus_file(same_run[_i][0]);
    char *spath = corpus_file(same_run[_i][1]);
    decoded a = {0}, b = {0};
    clog2_conv *conv = decode_clog2(cpath, &a, NULL);
    slog2_file *f = decode_slog2(spath, &b);
    ck_assert_uint_eq(a.n, b.n);
    ck_assert_uint_eq(a.backwards, b.backwards);
    qsort(a.v, a.n, sizeof *a.v, cmp_drec);
    qsort(b.v, b.n, sizeof *b.v, cmp_drec);
    for (size_t i = 0; i < a.n; i++) {
        char ta[256], tb[256];
        drec_text(&a.v[i], ta, sizeof ta);
        drec_text(&b.v[i], tb, sizeof tb);
        ck_assert_msg(cmp_drec(&a.v[i], &b.v[i]) == 0,
                      "%s vs %s: drawable %zu differs: %s%s / %s%s", same_run[_i][0],
                      same_run[_i][1], i, ta, a.v[i].args == b.v[i].args ? "" : " (args)", tb, "");
    }
    clog2_conv_destroy(conv);
    slog2_file_destroy(f);
    free(a.v);
    free(b.v);
    free(cpath);
    free(spath);
}
END_TEST

/* ---- crafted inputs -------------------------------------------------- */

START_TEST(test_mpe_clog2_tiny_exact_drawables)
{
    char *path = data_file("y_tiny.clog2");
    decoded dd = {0};
    clog2_conv *conv = decode_clog2(path, &dd, NULL);
    ck_assert_uint_eq(dd.n, 4);
    /* completion order: Inner, arrow, event, Outer */
    const drec *inner = &dd.v[0], *arrow = &dd.v[1], *ev = &dd.v[2], *outer = &dd.v[3];
    ck_assert_str_eq(inner->cat, "Inner");
    ck_assert_int_eq(inner->start, 2000000);
    ck_assert_int_eq(inner->end, 3500000);
    ck_assert_uint_eq(inner->depth, 1);
    ck_assert_str_eq(arrow->cat, "message");
    ck_assert_int_eq(arrow->kind, MPE_ARROW);
    ck_assert_int_eq(arrow->from[0], 0);
    ck_assert_int_eq(arrow->to[0], 1);
    ck_assert_int_eq(arrow->start, 3000000);
    ck_assert_int_eq(arrow->end, 4000000);
    ck_assert_str_eq(ev->cat, "Mark"); /* defined after its use */
    ck_assert_int_eq(ev->kind, MPE_EVENT);
    ck_assert_int_eq(ev->start, 4500000);
    ck_assert_str_eq(outer->cat, "Outer");
    ck_assert_uint_eq(outer->depth, 0);
    ck_assert_int_eq(outer->end, 5000000);
    const mpe_category *mark = clog2_conv_category(conv, 1 + 300 + 2);
    ck_assert_str_eq(mark->name, "Mark");
    ck_assert_uint_eq(mark->rgba, 0xffd700ffu);
    ck_assert_uint_eq(clog2_conv_category(conv, 1 + 300 + 1)->rgba, 0x2e8b57ffu);
    clog2_conv_destroy(conv);
    free(dd.v);
    free(path);
}
END_TEST

static int ignore_drawable(void *user, const mpe_drawable *d)
{
    (void)user;
    (void)d;
    return 0;
}

/* Both CLOG2 passes; 0 or -1 with *e. */
static int try_clog2(const char *path, mpe_err *e)
{
    clog2_conv *conv = NULL;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        mpe_in in;
        gzFile g = open_in(path, &in);
        clog2_reader *r = NULL;
        rc = clog2_reader_open(&r, &in, e);
        if (rc == 0 && pass == 0) {
            rc = clog2_conv_create(&conv, clog2_reader_preamble(r), e);
        }
        clog2_record rec;
        while (rc == 0 && (rc = clog2_reader_next(r, &rec, e)) == 0) {
            rc = pass == 0 ? clog2_conv_learn(conv, &rec, e)
                           : clog2_conv_feed(conv, &rec, ignore_drawable, NULL, e);
        }
        rc = rc == 1 ? 0 : rc;
        clog2_reader_destroy(r);
        (void)gzclose(g);
    }
    clog2_conv_destroy(conv);
    return rc;
}

static int try_slog2(const char *path, mpe_err *e)
{
    mpe_in in;
    gzFile g = open_in(path, &in);
    slog2_file *f = NULL;
    int rc = slog2_file_scan(&f, &in, e);
    (void)gzclose(g);
    if (rc == 0) {
        g = open_in(path, &in);
        rc = slog2_file_emit(f, &in, ignore_drawable, NULL, e);
        (void)gzclose(g);
    }
    slog2_file_destroy(f);
    return rc;
}

START_TEST(test_mpe_damaged_files_fail_at_offset)
{
    const broken_case *b = &broken_cases[_i];
    char *path = data_file(b->file);
    mpe_err e = {0, ""};
    memset(e.msg, 0, sizeof e.msg);
    const int rc = strstr(b->file, ".clog2") != NULL ? try_clog2(path, &e) : try_slog2(path, &e);
    ck_assert_msg(rc != 0, "%s: decoded without error", b->file);
    if (b->message != NULL) {
        ck_assert_msg(strstr(e.msg, b->message) != NULL, "%s: message \"%s\"", b->file, e.msg);
        ck_assert_msg(e.offset == b->offset, "%s: offset %llu, expected %llu (%s)", b->file,
                      (unsigned long long)e.offset, (unsigned long long)b->offset, e.msg);
    } else {
        ck_assert_msg(e.offset != UINT64_MAX && e.msg[0] != '\0', "%s: no offset or message",
                      b->file);
    }
    free(path);
}
END_TEST

/* ---- every truncation, flipped bytes -------------------------------- */

typedef struct mem_src {
    const unsigned char *p;
    size_t len, at;
} mem_src;

static long mem_read(void *user, void *buf, size_t n)
{
    mem_src *m = user;
    const size_t k = n < m->len - m->at ? n : m->len - m->at;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    return (long)k;
}

static unsigned char *load_file(const char *path, size_t *len)
{
    mpe_in in;
    gzFile g = open_in(path, &in);
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        ck_assert_ptr_nonnull(buf);
        const int r = gzread(g, buf + n, (unsigned)(cap - n));
        ck_assert_int_ge(r, 0);
        if (r == 0) {
            break;
        }
        n += (size_t)r;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    (void)gzclose(g);
    *len = n;
    return buf;
}

static int decode_mem_clog2(const unsigned char *p, size_t len, mpe_err *e)
{
    int rc = 0;
    clog2_conv *conv = NULL;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        mem_src m = {p, len, 0};
        mpe_in in = {mem_read, NULL, &m, 0};
        clog2_reader *r = NULL;
        clog2_record rec;
        rc = clog2_reader_open(&r, &in, e);
        if (rc == 0 && pass == 0) {
            rc = clog2_conv_create(&conv, clog2_reader_preamble(r), e);
        }
        while (rc == 0 && (rc = clog2_reader_next(r, &rec, e)) == 0) {
            rc = pass == 0 ? clog2_conv_learn(conv, &rec, e)
                           : clog2_conv_feed(conv, &rec, ignore_drawable, NULL, e);
        }
        rc = rc == 1 ? 0 : rc;
        clog2_reader_destroy(r);
    }
    clog2_conv_destroy(conv);
    return rc;
}

static int decode_mem_slog2(const unsigned char *p, size_t len, mpe_err *e)
{
    slog2_file *f = NULL;
    mem_src m = {p, len, 0};
    mpe_in in = {mem_read, NULL, &m, 0};
    int rc = slog2_file_scan(&f, &in, e);
    if (rc == 0) {
        mem_src m2 = {p, len, 0};
        mpe_in in2 = {mem_read, NULL, &m2, 0};
        rc = slog2_file_emit(f, &in2, ignore_drawable, NULL, e);
    }
    slog2_file_destroy(f);
    return rc;
}

/* Decode bytes held in memory as CLOG2 or SLOG-2; 0 ok, -1 error. */
static int decode_mem(const unsigned char *p, size_t len, bool clog2, mpe_err *e)
{
    return clog2 ? decode_mem_clog2(p, len, e) : decode_mem_slog2(p, len, e);
}

static const char *const hostile_inputs[][2] = {
    {"data", "y_tiny.clog2"},
    {"corpus", "user_states.slog2"},
};

/* A file cut anywhere must fail, with an offset inside what is left. */
START_TEST(test_mpe_every_truncation_fails)
{
    const bool clog2 = strstr(hostile_inputs[_i][1], ".clog2") != NULL;
    char *path = strcmp(hostile_inputs[_i][0], "data") == 0 ? data_file(hostile_inputs[_i][1])
                                                            : corpus_file(hostile_inputs[_i][1]);
    size_t len = 0;
    unsigned char *buf = load_file(path, &len);
    mpe_err e = {0, ""};
    ck_assert_int_eq(decode_mem(buf, len, clog2, &e), 0);
    /* every length for the small CLOG2; for the SLOG-2 every length in the
     * header, the first node's start and the metadata, a stride elsewhere */
    for (size_t cut = 0; cut < len; cut += (clog2 || cut < 400 || cut + 2000 > len) ? 1 : 37) {
        e.offset = UINT64_MAX;
        ck_assert_msg(decode_mem(buf, cut, clog2, &e) != 0, "%s cut at %zu decoded", path, cut);
        ck_assert_msg(e.offset <= cut, "%s cut at %zu: error offset %llu", path, cut,
                      (unsigned long long)e.offset);
    }
    free(buf);
    free(path);
}
END_TEST

/* Flipped bytes: an error or a clean decode, never a crash (run under
 * ASan/UBSan in CI). */
START_TEST(test_mpe_flipped_bytes_never_crash)
{
    const bool clog2 = strstr(hostile_inputs[_i][1], ".clog2") != NULL;
    char *path = strcmp(hostile_inputs[_i][0], "data") == 0 ? data_file(hostile_inputs[_i][1])
                                                            : corpus_file(hostile_inputs[_i][1]);
    size_t len = 0;
    unsigned char *buf = load_file(path, &len);
    size_t failed = 0, tried = 0;
    for (size_t at = 0; at < len; at += clog2 ? 1 : 11) {
        const unsigned char keep = buf[at];
        buf[at] = (unsigned char)(keep ^ 0xa5u);
        mpe_err e = {0, ""};
        failed += decode_mem(buf, len, clog2, &e) != 0;
        tried++;
        buf[at] = keep;
    }
    /* the structure is checked: a fair share of flips must be caught */
    ck_assert_msg(failed > tried / 20, "%s: only %zu of %zu flips detected", path, failed, tried);
    free(buf);
    free(path);
}
END_TEST

/* ---- unit behaviour --------------------------------------------------- */

START_TEST(test_mpe_info_format_keys_and_values)
{
    mpe_fmt f;
    ck_assert_int_eq(mpe_fmt_parse(&f, "iter=%d residual=%E tag=%s flags=%x"), 0);
    ck_assert_uint_eq(f.ntypes, 4);
    ck_assert_str_eq(f.keys[1], " residual=");
    char key[64];
    mpe_fmt_arg_key(&f, 1, key, sizeof key);
    ck_assert_str_eq(key, "residual");
    const unsigned char info[32] = {
        0, 0, 0,   42,  0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18,
        0, 2, 'o', 'k', 0,    0,    0x01, 0x0f, 0xee, 0xee, 0xee}; /* stale bytes after the values
                                                                    */
    mpe_value v[MPE_FMT_MAX];
    ck_assert_uint_eq(mpe_info_decode(&f, info, sizeof info, v), 4);
    ck_assert_int_eq(v[0].i, 42);
    ck_assert(fabs(v[1].d - 3.141592653589793) < 1e-15);
    ck_assert_uint_eq(v[2].slen, 2);
    ck_assert_int_eq(memcmp(v[2].s, "ok", 2), 0);
    ck_assert_int_eq(v[3].i, 0x10f);
    /* too few bytes: decoding stops at the first value that does not fit */
    ck_assert_uint_eq(mpe_info_decode(&f, info, 10, v), 1);
    mpe_fmt_free(&f);
    ck_assert_int_eq(mpe_fmt_parse(&f, "plain text, 100%"), 0);
    ck_assert_uint_eq(f.ntypes, 0);
    mpe_fmt_free(&f);
}
END_TEST

START_TEST(test_mpe_colour_names_match_jumpshot)
{
    ck_assert_uint_eq(mpe_colour_rgba("SeaGreen"), 0x2e8b57ffu);
    ck_assert_uint_eq(mpe_colour_rgba("sea green"), 0x2e8b57ffu);
    ck_assert_uint_eq(mpe_colour_rgba("DarkOliveGreen2"), 0xbcee68ffu);
    ck_assert_uint_eq(mpe_colour_rgba("gray"), 0xc0c0c0ffu); /* jumpshot.colors, not X11 190 */
    ck_assert_uint_eq(mpe_colour_rgba("maroon:anything"), 0xb03060ffu);
    ck_assert_uint_eq(mpe_colour_rgba("NoSuchColour"), 0);
    int64_t ns = 0;
    ck_assert(mpe_seconds_to_ns(1.871700000000316e-05, &ns));
    ck_assert_int_eq(ns, 18717);
    ck_assert(!mpe_seconds_to_ns(NAN, &ns));
    ck_assert(!mpe_seconds_to_ns(1e12, &ns));
}
END_TEST

/* ---- through slog-import and the reader ------------------------------ */

static const char *slog_import(void)
{
    const char *p = getenv("SLOG_IMPORT");
    return (p != NULL && p[0] != '\0') ? p : NULL;
}

/* Run slog-import IN -o OUT [-f FORMAT]; stderr into errbuf; exit status. */
static int
run_import(const char *in, const char *out, const char *format, char *errbuf, size_t errlen)
{
    char errfile[] = "/tmp/check_mpe_err_XXXXXX";
    const int fd = mkstemp(errfile);
    ck_assert_int_ge(fd, 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        (void)dup2(fd, 2);
        const int devnull = open("/dev/null", O_WRONLY);
        (void)dup2(devnull, 1);
        if (format != NULL) {
            execl(slog_import(), "slog-import", "--no-progress", "-f", format, "-o", out, in,
                  (char *)NULL);
        } else {
            execl(slog_import(), "slog-import", "--no-progress", "-o", out, in, (char *)NULL);
        }
        _exit(127);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    const ssize_t n = pread(fd, errbuf, errlen - 1, 0);
    errbuf[n > 0 ? n : 0] = '\0';
    (void)close(fd);
    (void)unlink(errfile);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *temp_output(void)
{
    char tmpl[] = "/tmp/check_mpe_out_XXXXXX";
    const int fd = mkstemp(tmpl);
    ck_assert_int_ge(fd, 0);
    (void)close(fd);
    const size_t n = strlen(tmpl) + 6;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    memcpy(p, tmpl, n - 6);
    memcpy(p + n - 6, ".slog", 6);
    (void)unlink(tmpl);
    return p;
}

typedef struct rrec {
    int kind;
    char cat[64];
    char from[96], to[96];
    int64_t start, end;
    uint32_t depth;
    uint32_t nargs;
} rrec;

static void timeline_path(slog_reader *r, uint32_t id, char *buf, size_t n)
{
    slog_timeline_info ti;
    ck_assert_int_eq(slog_reader_timeline(r, id, &ti), SLOG_OK);
    if (ti.parent == SLOG_NO_PARENT) {
        (void)snprintf(buf, n, "%s", ti.name);
        return;
    }
    timeline_path(r, ti.parent, buf, n);
    const size_t used = strlen(buf);
    ck_assert_uint_lt(used + 1 + strlen(ti.name), n);
    buf[used] = '/';
    memcpy(buf + used + 1, ti.name, strlen(ti.name) + 1);
}

/* One query item as a comparable record. */
static void item_record(slog_reader *r, const slog_item *it, rrec *x)
{
    memset(x, 0, sizeof *x);
    x->kind = (int)it->kind;
    uint32_t cat = 0, tl = 0, tl_to = 0;
    if (it->kind == SLOG_KIND_STATE) {
        const slog_state *s = &it->u.state;
        cat = s->category;
        tl = tl_to = s->timeline;
        x->start = s->start;
        x->end = s->end;
        x->depth = s->depth;
        x->nargs = s->nargs;
    } else if (it->kind == SLOG_KIND_EVENT) {
        const slog_event *ev = &it->u.event;
        cat = ev->category;
        tl = tl_to = ev->timeline;
        x->start = x->end = ev->time;
        x->nargs = ev->nargs;
    } else {
        ck_assert_int_eq(it->kind, SLOG_KIND_ARROW);
        const slog_arrow *a = &it->u.arrow;
        cat = a->category;
        tl = a->from;
        tl_to = a->to;
        x->start = a->start;
        x->end = a->end;
        x->nargs = a->nargs;
    }
    slog_category_info ci;
    ck_assert_int_eq(slog_reader_category(r, cat, &ci), SLOG_OK);
    ck_assert_int_eq((int)ci.kind, x->kind);
    (void)snprintf(x->cat, sizeof x->cat, "%s", ci.name);
    timeline_path(r, tl, x->from, sizeof x->from);
    timeline_path(r, tl_to, x->to, sizeof x->to);
}

/* Every drawable of an imported file, through a full-detail query. */
static rrec *read_all(const char *path, size_t *count, slog_reader **out)
{
    slog_reader *r = NULL;
    slog_error e;
    ck_assert_msg(slog_reader_open(&r, path, NULL, &e) == SLOG_OK, "%s: %s", path, e.message);
    const slog_file_info *info = slog_reader_info(r);
    ck_assert(info->complete);
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.flags = SLOG_QUERY_ARGS;
    qo.t0 = info->start - 1;
    qo.t1 = info->end + 1;
    slog_query *q = NULL;
    ck_assert_int_eq(slog_query_create(&q, r, &qo, &e), SLOG_OK);
    size_t n = 0, cap = 1024;
    rrec *v = malloc(cap * sizeof *v);
    const slog_item *it = NULL;
    int rc = 0;
    while ((rc = slog_query_next(q, &it, &e)) == SLOG_OK) {
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
        }
        ck_assert_ptr_nonnull(v);
        item_record(r, it, &v[n++]);
    }
    ck_assert_msg(rc == SLOG_END, "%s: query: %s", path, e.message);
    ck_assert_uint_eq(n, info->states + info->events + info->arrows);
    slog_query_destroy(q);
    *count = n;
    *out = r;
    return v;
}

static char *import_ok(const char *file)
{
    char *in = corpus_file(file);
    char *out = temp_output();
    char err[4096];
    const int rc = run_import(in, out, NULL, err, sizeof err);
    ck_assert_msg(rc == 0, "slog-import %s: exit %d: %s", file, rc, err);
    free(in);
    return out;
}

/* The timeline a reference line maps to (doc/IMPORT-MPE.md): "rank W" on
 * MPI_COMM_WORLD, "rank W/comm C rank R" on another communicator. */
static void line_path(const char *file, const reference *ref, uint32_t line, char *path, size_t n)
{
    const ref_map *m = NULL;
    for (int i = 0; i < ref->nmaps; i++) {
        m = ref->maps[i].line == line ? &ref->maps[i] : m;
    }
    ck_assert_msg(m != NULL, "%s: line %u not in the maps", file, line);
    if (m->comm == 0) {
        (void)snprintf(path, n, "rank %d", m->world);
    } else {
        (void)snprintf(path, n, "rank %d/comm %d rank %d", m->world, m->comm, m->comm_rank);
    }
}

/* Drawables per reference line, found by the timeline of their first vertex. */
static void check_reader_lines(const char *file, const reference *ref, const rrec *v, size_t n)
{
    ck_assert_int_gt(ref->nmaps, 0);
    for (int j = 0; j < ref->nlines; j++) {
        char path[96];
        line_path(file, ref, ref->lines[j].line, path, sizeof path);
        uint64_t got[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            got[v[i].kind] += strcmp(v[i].from, path) == 0;
        }
        for (int k = 0; k < 3; k++) {
            ck_assert_msg(got[k] == ref->lines[j].n[k], "%s: %s kind %d: %llu, reference %llu",
                          file, path, k, (unsigned long long)got[k],
                          (unsigned long long)ref->lines[j].n[k]);
        }
    }
}

START_TEST(test_mpe_import_counts_through_reader)
{
    const mpe_case *c =
        _i < NELEM(clog2_cases) ? &clog2_cases[_i] : &slog2_cases[_i - NELEM(clog2_cases)];
    reference ref;
    load_reference(c->reference, &ref);
    char *out = import_ok(c->file);
    size_t n = 0;
    slog_reader *r = NULL;
    rrec *v = read_all(out, &n, &r);
    ck_assert_uint_eq(n, ref.total);
    for (int j = 0; j < ref.ncats; j++) {
        uint64_t got = 0;
        for (size_t i = 0; i < n; i++) {
            got += strcmp(v[i].cat, ref.cats[j].name) == 0 && v[i].kind == ref.cats[j].kind;
        }
        ck_assert_msg(got == ref.cats[j].count, "%s: %s: %llu drawables, reference %llu", c->file,
                      ref.cats[j].name, (unsigned long long)got,
                      (unsigned long long)ref.cats[j].count);
    }
    check_reader_lines(c->file, &ref, v, n);
    slog_reader_destroy(r);
    free(v);
    (void)unlink(out);
    free(out);
}
END_TEST

static int cmp_rrec(const void *a, const void *b)
{
    const rrec *x = a, *y = b;
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    if (x->end != y->end) {
        return x->end < y->end ? -1 : 1;
    }
    if (x->kind != y->kind) {
        return x->kind - y->kind;
    }
    int c = strcmp(x->cat, y->cat);
    c = c != 0 ? c : strcmp(x->from, y->from);
    c = c != 0 ? c : strcmp(x->to, y->to);
    if (c != 0) {
        return c;
    }
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    return (x->nargs > y->nargs) - (x->nargs < y->nargs);
}

START_TEST(test_mpe_import_same_run_same_drawables)
{
    char *oa = import_ok(same_run[_i][0]);
    char *ob = import_ok(same_run[_i][1]);
    size_t na = 0, nb = 0;
    slog_reader *ra = NULL, *rb = NULL;
    rrec *a = read_all(oa, &na, &ra);
    rrec *b = read_all(ob, &nb, &rb);
    ck_assert_uint_eq(na, nb);
    qsort(a, na, sizeof *a, cmp_rrec);
    qsort(b, nb, sizeof *b, cmp_rrec);
    for (size_t i = 0; i < na; i++) {
        ck_assert_msg(cmp_rrec(&a[i], &b[i]) == 0,
                      "drawable %zu: %d %s %s->%s [%lld,%lld] depth %u / %d %s %s->%s "
                      "[%lld,%lld] depth %u",
                      i, a[i].kind, a[i].cat, a[i].from, a[i].to, (long long)a[i].start,
                      (long long)a[i].end, a[i].depth, b[i].kind, b[i].cat, b[i].from, b[i].to,
                      (long long)b[i].start, (long long)b[i].end, b[i].depth);
    }
    slog_reader_destroy(ra);
    slog_reader_destroy(rb);
    free(a);
    free(b);
    (void)unlink(oa);
    (void)unlink(ob);
    free(oa);
    free(ob);
}
END_TEST

START_TEST(test_mpe_import_damaged_exits_1_incomplete)
{
    const broken_case *b = &broken_cases[_i];
    char *in = data_file(b->file);
    char *out = temp_output();
    char err[4096];
    /* the format is forced: a truncated gzip may not even give probe bytes */
    const char *format = strstr(b->file, "clog2") != NULL ? "clog2" : "slog2";
    const int rc = run_import(in, out, format, err, sizeof err);
    ck_assert_msg(rc == 1, "%s: exit %d: %s", b->file, rc, err);
    char want[128];
    (void)snprintf(want, sizeof want, "%s: byte ", b->file);
    ck_assert_msg(strstr(err, want) != NULL, "%s: stderr lacks \"%s\": %s", b->file, want, err);
    if (b->message != NULL) {
        (void)snprintf(want, sizeof want, "%s: byte %llu: ", b->file,
                       (unsigned long long)b->offset);
        ck_assert_msg(strstr(err, want) != NULL && strstr(err, b->message) != NULL,
                      "%s: stderr: %s", b->file, err);
    }
    slog_reader *r = NULL;
    slog_error e;
    if (slog_reader_open(&r, out, NULL, &e) == SLOG_OK) {
        ck_assert_msg(!slog_reader_info(r)->complete, "%s: output marked complete", b->file);
        slog_reader_destroy(r);
    }
    (void)unlink(out);
    free(out);
    free(in);
}
END_TEST

/* ---- a cut file keeps what comes before the cut ----------------------- */

/* Corpus CLOG2 logs (ring_big decompressed first) cut at these percents. */
static const char *const cut_files[] = {"user_states.clog2", "ring_mpilog.clog2",
                                        "ring_big.clog2.gz"};
static const int cut_percent[] = {10, 50, 80, 94, 99};

/* Record bodies per rectype (FORMAT-NOTES.md), stated here apart from the
 * decoder's table so that the expected counts do not come from it. */
static const size_t cut_body[CLOG2_RECTYPES] = {0, 0, 112, 104, 40, 8, 40, 24, 16, 48, 48, 8};

static int count_kind(void *user, const mpe_drawable *d)
{
    ((uint64_t *)user)[d->kind]++;
    return 0;
}

/* One pass over a whole log in memory: with n NULL, create *conv and learn
 * the definitions; else feed the records that end by byte `cut`, counting
 * drawables per kind into n. */
static void
prefix_pass(const unsigned char *p, size_t len, clog2_conv **conv, size_t cut, uint64_t *n)
{
    mpe_err e = {0, ""};
    mem_src m = {p, len, 0};
    mpe_in in = {mem_read, NULL, &m, 0};
    clog2_reader *r = NULL;
    clog2_record rec;
    ck_assert_int_eq(clog2_reader_open(&r, &in, &e), 0);
    if (n == NULL) {
        ck_assert_int_eq(clog2_conv_create(conv, clog2_reader_preamble(r), &e), 0);
    }
    int rc = 0;
    while (rc == 0 && clog2_reader_next(r, &rec, &e) == 0) {
        if (n != NULL && rec.offset + CLOG2_HEADER_SIZE + cut_body[rec.rectype] > cut) {
            break;
        }
        rc = n == NULL ? clog2_conv_learn(*conv, &rec, &e)
                       : clog2_conv_feed(*conv, &rec, count_kind, n, &e);
    }
    ck_assert_msg(rc == 0, "byte %llu: %s", (unsigned long long)e.offset, e.msg);
    clog2_reader_destroy(r);
}

/* Drawables per kind that the whole file's records ending by byte `cut`
 * give: the whole file is read (definitions from all of it), records fed
 * until the first that ends after the cut. */
static void prefix_counts(const unsigned char *p, size_t len, size_t cut, uint64_t n[3])
{
    clog2_conv *conv = NULL;
    n[0] = n[1] = n[2] = 0;
    prefix_pass(p, len, &conv, cut, NULL);
    prefix_pass(p, len, &conv, cut, n);
    clog2_conv_destroy(conv);
}

/* The first `cut` bytes of p in a new temporary .clog2 file. */
static char *write_prefix(const unsigned char *p, size_t cut)
{
    char tmpl[] = "/tmp/check_mpe_cut_XXXXXX";
    const int fd = mkstemp(tmpl);
    ck_assert_int_ge(fd, 0);
    ck_assert(write(fd, p, cut) == (ssize_t)cut);
    (void)close(fd);
    char *path = strdup(tmpl);
    ck_assert_ptr_nonnull(path);
    return path;
}

/* slog-import on a cut log: exit 1, the file and byte named, an output
 * that opens, is marked incomplete and holds the drawables of every record
 * before the cut. */
START_TEST(test_mpe_import_cut_keeps_records_before_it)
{
    const int nc = NELEM(cut_percent);
    char *full = corpus_file(cut_files[_i / nc]);
    size_t len = 0;
    unsigned char *buf = load_file(full, &len);
    const size_t cut = len * (size_t)cut_percent[_i % nc] / 100;
    uint64_t want[3];
    prefix_counts(buf, len, cut, want);
    ck_assert_uint_gt(want[MPE_STATE] + want[MPE_ARROW], 0);
    char *in = write_prefix(buf, cut);
    char *out = temp_output();
    char err[8192];
    const int rc = run_import(in, out, NULL, err, sizeof err);
    ck_assert_msg(rc == 1, "%s cut at %zu: exit %d: %s", full, cut, rc, err);
    char named[256];
    (void)snprintf(named, sizeof named, "%s: byte ", in);
    ck_assert_msg(strstr(err, named) != NULL && strstr(err, "records before it are imported"),
                  "%s cut at %zu: stderr: %s", full, cut, err);
    slog_reader *r = NULL;
    slog_error e;
    ck_assert_msg(slog_reader_open(&r, out, NULL, &e) == SLOG_OK, "%s: %s", out, e.message);
    const slog_file_info *info = slog_reader_info(r);
    ck_assert(!info->complete);
    ck_assert_msg(info->states == want[MPE_STATE] && info->events == want[MPE_EVENT] &&
                      info->arrows == want[MPE_ARROW],
                  "%s cut at %zu: %llu/%llu/%llu states/events/arrows, before the cut %llu/%llu/"
                  "%llu",
                  full, cut, (unsigned long long)info->states, (unsigned long long)info->events,
                  (unsigned long long)info->arrows, (unsigned long long)want[MPE_STATE],
                  (unsigned long long)want[MPE_EVENT], (unsigned long long)want[MPE_ARROW]);
    slog_reader_destroy(r);
    (void)unlink(in);
    (void)unlink(out);
    free(in);
    free(out);
    free(buf);
    free(full);
}
END_TEST

/* Drawables per kind of a whole log in memory, records the converter
 * refuses skipped (n[3] counts them). */
static void counts_skipping_refused(const unsigned char *p, size_t len, uint64_t n[4])
{
    clog2_conv *conv = NULL;
    mpe_err e = {0, ""};
    n[0] = n[1] = n[2] = n[3] = 0;
    prefix_pass(p, len, &conv, len, NULL);
    mem_src m = {p, len, 0};
    mpe_in in = {mem_read, NULL, &m, 0};
    clog2_reader *r = NULL;
    clog2_record rec;
    ck_assert_int_eq(clog2_reader_open(&r, &in, &e), 0);
    while (clog2_reader_next(r, &rec, &e) == 0) {
        n[3] += clog2_conv_feed(conv, &rec, count_kind, n, &e) != 0 ? 1u : 0u;
    }
    clog2_reader_destroy(r);
    clog2_conv_destroy(conv);
}

/* A record that cannot be mapped (an event type nothing defines) is
 * skipped and counted: the records after it are still imported, the
 * import exits 1 naming file and byte, the output is incomplete. */
START_TEST(test_mpe_import_unmappable_record_skipped)
{
    char *in = data_file("n_undefined_etype.clog2");
    size_t len = 0;
    unsigned char *buf = load_file(in, &len);
    uint64_t want[4];
    counts_skipping_refused(buf, len, want);
    ck_assert_uint_eq(want[3], 1);
    char *out = temp_output();
    char err[4096];
    ck_assert_int_eq(run_import(in, out, "clog2", err, sizeof err), 1);
    ck_assert_msg(strstr(err, "n_undefined_etype.clog2: byte 2120: event type 99999") != NULL &&
                      strstr(err, "1 records that cannot be mapped skipped") != NULL,
                  "stderr: %s", err);
    slog_reader *r = NULL;
    slog_error e;
    ck_assert_msg(slog_reader_open(&r, out, NULL, &e) == SLOG_OK, "%s", e.message);
    const slog_file_info *info = slog_reader_info(r);
    ck_assert(!info->complete);
    ck_assert_uint_eq(info->states, want[MPE_STATE]);
    ck_assert_uint_eq(info->events, want[MPE_EVENT]);
    ck_assert_uint_eq(info->arrows, want[MPE_ARROW]);
    slog_reader_destroy(r);
    (void)unlink(out);
    free(out);
    free(buf);
    free(in);
}
END_TEST

static Suite *mpe_suite(void)
{
    Suite *s = suite_create("mpe");
    TCase *tc = tcase_create("decode");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_mpe_clog2_counts_match_reference, 0, NELEM(clog2_cases));
    tcase_add_loop_test(tc, test_mpe_slog2_counts_match_reference, 0, NELEM(slog2_cases));
    tcase_add_loop_test(tc, test_mpe_same_run_same_drawables, 0, NELEM(same_run));
    tcase_add_test(tc, test_mpe_clog2_tiny_exact_drawables);
    tcase_add_loop_test(tc, test_mpe_damaged_files_fail_at_offset, 0, NELEM(broken_cases));
    tcase_add_loop_test(tc, test_mpe_every_truncation_fails, 0, NELEM(hostile_inputs));
    tcase_add_loop_test(tc, test_mpe_flipped_bytes_never_crash, 0, NELEM(hostile_inputs));
    tcase_add_test(tc, test_mpe_info_format_keys_and_values);
    tcase_add_test(tc, test_mpe_colour_names_match_jumpshot);
    suite_add_tcase(s, tc);
    if (slog_import() != NULL) {
        TCase *ti = tcase_create("import");
        tcase_set_timeout(ti, 300);
        tcase_add_loop_test(ti, test_mpe_import_counts_through_reader, 0,
                            NELEM(clog2_cases) + NELEM(slog2_cases));
        tcase_add_loop_test(ti, test_mpe_import_same_run_same_drawables, 0, NELEM(same_run));
        tcase_add_loop_test(ti, test_mpe_import_damaged_exits_1_incomplete, 0, NELEM(broken_cases));
        tcase_add_loop_test(ti, test_mpe_import_cut_keeps_records_before_it, 0,
                            NELEM(cut_files) * NELEM(cut_percent));
        tcase_add_test(ti, test_mpe_import_unmappable_record_skipped);
        suite_add_tcase(s, ti);
    } else {
        (void)fprintf(stderr, "check_mpe: SLOG_IMPORT not set (slog-import not built): "
                              "import tests not run\n");
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mpe_suite());
    srunner_run_all(sr, CK_ENV);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
