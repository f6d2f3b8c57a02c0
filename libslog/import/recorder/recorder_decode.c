/* SPDX-License-Identifier: MIT
 *
 * recorder_decode.c - reads a Recorder 2.4.x / 2.5.x trace folder into
 * memory and expands each rank's Sequitur grammar into its call sequence,
 * pairing every terminal with the next timestamp pair.  Files are small
 * next to the traced run (the grammar is the compression), so each file is
 * read whole and every field is checked against the bytes that are really
 * there before use.  Grammars are validated up front (known rule ids, no
 * cycles, exponents >= 1, terminals inside the CST) and their expansion
 * length is computed, so a rank whose timestamp count disagrees is refused
 * before a single record is handed out.  Expansion uses an explicit stack
 * (depth <= number of rules), never recursion, so hostile grammars cannot
 * overflow the C stack.  No writer calls here: see import_recorder.c.
 */
#include "recorder_decode.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZLIB_CONST /* z_stream.next_in is const */
#include <zlib.h>

#ifdef REC_FAULT_INJECTION
/* Test builds only (tests/check_recorder.c): the allocation that brings
 * rec_fault_countdown from 1 to 0 fails, so every ENOMEM path runs. */
extern long rec_fault_countdown;
static bool rec_fault(void)
{
    return rec_fault_countdown > 0 && --rec_fault_countdown == 0;
}
static void *rec_test_malloc(size_t n)
{
    return rec_fault() ? NULL : malloc(n);
}
static void *rec_test_calloc(size_t n, size_t k)
{
    return rec_fault() ? NULL : calloc(n, k);
}
static void *rec_test_realloc(void *p, size_t n)
{
    return rec_fault() ? NULL : realloc(p, n);
}
static char *rec_test_strdup(const char *s)
{
    return rec_fault() ? NULL : strdup(s);
}
#    define malloc  rec_test_malloc
#    define calloc  rec_test_calloc
#    define realloc rec_test_realloc
#    define strdup  rec_test_strdup
#endif

/* Files of a trace that are read whole (a damaged size field cannot make us
 * allocate more than the file itself, except inflated blobs, capped below). */
typedef struct rec_file {
    char *path;
    unsigned char *data;
    size_t len;
} rec_file;

/* Where a buffer came from, for error offsets.  Inflated data has no file
 * offset of its own: errors then name the blob's offset in the file. */
typedef struct rec_where {
    const char *path;
    uint64_t base; /* file offset of data[0], or of the zlib blob */
    bool inflated;
} rec_where;

typedef struct rec_cst {
    uint32_t n;
    rec_sig *sigs;
    unsigned char *buf; /* owned bytes that sigs[].args point into */
} rec_cst;

/* A grammar symbol after parsing: terminal id, or rule index (not id). */
typedef struct rec_sym {
    uint32_t value;
    bool is_rule;
    uint32_t exp;
    uint64_t pos; /* byte offset of the symbol in its buffer, for errors */
} rec_sym;

typedef struct rec_rule {
    int32_t id;
    uint32_t first; /* index of its first symbol in syms */
    uint32_t nsym;
    uint64_t pos; /* byte offset of its id, for errors */
} rec_rule;

typedef struct rec_grammar {
    uint32_t nrules;
    rec_rule *rules;
    rec_sym *syms;
    uint32_t nsyms;              /* symbols filled so far (parse) */
    uint32_t root;               /* index of rule -1 */
    uint64_t *explen;            /* terminals produced by each rule */
    uint32_t max_terminal_plus1; /* 0 if no terminal */
    uint64_t max_terminal_pos;   /* byte offset (in its buffer) of that terminal */
    rec_where where;
} rec_grammar;

struct rec_trace {
    char *dir;
    rec_header hdr;
    char *names; /* function table, '\n' replaced by NUL */
    char **funcs;
    uint32_t nfuncs;
    uint32_t first_mpi, first_h5;
    /* interprocess compression */
    rec_cst mcst;
    bool have_mcst;
    char *mcst_path;
    char *ugcfg_path; /* ug.cfg (2.5) or the directory (2.4), for grammar errors */
    rec_grammar *ugs;
    uint32_t nug;
    int32_t *ugid;
    slog_error *ug_err; /* per unique grammar: why it cannot be used (code 0: it can); */
                        /* only the ranks that use it fail, at rec_rank_open */
    /* 2.5: recorder.ts and its chunk table, as declared (a chunk may lie
     * partly or wholly past the end of a cut file: see rank_load_ts) */
    rec_file ts;
    uint64_t *chunk_off, *chunk_len;
};

typedef struct rec_frame {
    uint32_t rule;
    uint32_t sym;
    uint32_t done; /* repetitions of syms[sym] already expanded */
} rec_frame;

struct rec_rank {
    rec_trace *t;
    uint32_t rank;
    rec_cst own_cst;
    bool have_own_cst;
    char *own_cst_path;
    char *own_cfg_path;
    const rec_cst *cst;
    rec_grammar own_g;
    bool have_own_g;
    const rec_grammar *g;
    uint32_t *ts; /* 2 * avail deltas */
    uint64_t nrec;
    uint64_t avail; /* records with both timestamps: nrec unless cut short */
    bool damaged;   /* cut short: why in damage */
    slog_error damage;
    rec_frame *stack;
    uint32_t sp;
    uint64_t next;
    int64_t prev;
};

/* ------------------------------------------------------------------ */
/* errors and little-endian access                                     */

/* Fill the fixed fields; the message is formatted by the caller (a
 * va_list handed down is beyond what the analyzer follows). */
static void rec_err_fields(slog_error *err, int code, const char *source, uint64_t off)
{
    err->code = code;
    err->offset = off;
    (void)snprintf(err->source, sizeof err->source, "%s", source != NULL ? source : "");
}

static void
rec_err_set(slog_error *err, int code, const char *source, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
rec_err_set(slog_error *err, int code, const char *source, uint64_t off, const char *fmt, ...)
{
    if (err == NULL) {
        return;
    }
    rec_err_fields(err, code, source, off);
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above; analyzer false positive
    (void)vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* An error at byte `pos` of a buffer described by `w`. */
static void
where_err_set(slog_error *err, int code, const rec_where *w, uint64_t pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
where_err_set(slog_error *err, int code, const rec_where *w, uint64_t pos, const char *fmt, ...)
{
    if (err == NULL) {
        return;
    }
    rec_err_fields(err, code, w->path, w->inflated ? w->base : w->base + pos);
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above; analyzer false positive
    (void)vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (w->inflated) {
        const size_t used = strlen(err->message);
        (void)snprintf(err->message + used, sizeof err->message - used,
                       " (at byte %llu of the data inflated from the zlib blob at byte %llu)",
                       (unsigned long long)pos, (unsigned long long)w->base);
    }
}

/* `return rec_err(...)` fills *err and yields the code; as macros, so the
 * value is visible to static analysis (variadic calls are not inlined). */
#define rec_err(err, code, ...)   (rec_err_set((err), (code), __VA_ARGS__), (code))
#define where_err(err, code, ...) (where_err_set((err), (code), __VA_ARGS__), (code))

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int32_t get_i32(const unsigned char *p)
{
    const uint32_t u = get_u32(p);
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static double get_f64(const unsigned char *p)
{
    const uint64_t u = get_u64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ------------------------------------------------------------------ */
/* files                                                              */

static char *path_join(const char *dir, const char *name)
{
    const size_t n = strlen(dir) + strlen(name) + 2;
    char *const p = malloc(n);
    if (p != NULL) {
        (void)snprintf(p, n, "%s/%s", dir, name);
    }
    return p;
}

static void file_free(rec_file *f)
{
    free(f->path);
    free(f->data);
    memset(f, 0, sizeof *f);
}

/* Read dir/name whole.  A missing file is SLOG_EIO naming it.  On failure
 * nothing is left to free. */
static int file_read(rec_file *f, const char *dir, const char *name, slog_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path_join(dir, name);
    if (f->path == NULL) {
        return rec_err(err, SLOG_ENOMEM, dir, UINT64_MAX, "Cannot allocate a path");
    }
    FILE *const fp = fopen(f->path, "rb");
    if (fp == NULL) {
        const int rc = rec_err(err, SLOG_EIO, f->path, UINT64_MAX, "Cannot open the file: %s",
                               strerror(errno));
        file_free(f);
        return rc;
    }
    size_t cap = 4096, len = 0;
    unsigned char *buf = malloc(cap);
    int rc = SLOG_OK;
    for (;;) {
        if (buf == NULL) {
            rc = rec_err(err, SLOG_ENOMEM, f->path, UINT64_MAX, "Cannot allocate %zu bytes", cap);
            break;
        }
        if (len == cap) {
            unsigned char *const nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = nb;
            cap *= 2;
        }
        const size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0) {
            if (ferror(fp)) {
                rc = rec_err(err, SLOG_EIO, f->path, len, "Cannot read the file: %s",
                             strerror(errno));
            }
            break;
        }
    }
    (void)fclose(fp);
    if (rc != SLOG_OK) {
        free(buf);
        file_free(f);
        return rc;
    }
    f->data = buf;
    f->len = len;
    return SLOG_OK;
}

/* Check a blob header at f->data[off] that must end by `limit`. */
static int blob_header(
    const rec_file *f, uint64_t off, uint64_t limit, uint64_t *comp, uint64_t *raw, slog_error *err)
{
    if (limit - off < 16) {
        return rec_err(err, SLOG_ECORRUPT, f->path, off,
                       "Truncated zlib blob header: 16 bytes needed, %llu left",
                       (unsigned long long)(limit - off));
    }
    *comp = get_u64(f->data + off);
    *raw = get_u64(f->data + off + 8);
    if (*comp > limit - off - 16) {
        return rec_err(err, SLOG_ECORRUPT, f->path, off,
                       "Truncated zlib blob: header says %llu compressed bytes, %llu left",
                       (unsigned long long)*comp, (unsigned long long)(limit - off - 16));
    }
    if (*raw / 1032 > *comp + 1 || *raw > (uint64_t)SIZE_MAX / 2) {
        return rec_err(err, SLOG_ECORRUPT, f->path, off,
                       "Implausible zlib blob header: raw size %llu from %llu compressed bytes",
                       (unsigned long long)*raw, (unsigned long long)*comp);
    }
    return SLOG_OK;
}

/* What one inflate run did. */
typedef struct zrun {
    int zr;            /* last inflate() result */
    uint64_t used;     /* compressed bytes consumed */
    uint64_t produced; /* bytes written to out */
    char msg[128];     /* zlib's message */
} zrun;

/* Inflate comp bytes into out[cap], feeding zlib at most 1 GiB at a time
 * (its counters are 32-bit). */
static void
zrun_inflate(zrun *zr, const unsigned char *in, uint64_t comp, unsigned char *out, uint64_t cap)
{
    memset(zr, 0, sizeof *zr);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    zr->zr = inflateInit(&zs);
    if (zr->zr != Z_OK) {
        zr->zr = Z_MEM_ERROR;
        return;
    }
    const uint64_t chunk = UINT64_C(1) << 30;
    uint64_t in_left = comp, out_left = cap;
    zs.next_in = in;
    zs.next_out = out;
    while (zr->zr == Z_OK) {
        if (zs.avail_in == 0 && in_left > 0) {
            zs.avail_in = (uInt)(in_left < chunk ? in_left : chunk);
            in_left -= zs.avail_in;
        }
        if (zs.avail_out == 0 && out_left > 0) {
            zs.avail_out = (uInt)(out_left < chunk ? out_left : chunk);
            out_left -= zs.avail_out;
        }
        zr->zr = inflate(&zs, Z_NO_FLUSH);
    }
    zr->used = comp - in_left - zs.avail_in;
    zr->produced = cap - out_left - zs.avail_out;
    (void)snprintf(zr->msg, sizeof zr->msg, "%s", zs.msg != NULL ? zs.msg : "no detail");
    (void)inflateEnd(&zs);
}

/* Turn an inflate run of the blob at `off` into a status. */
static int zrun_status(
    const zrun *zr, const rec_file *f, uint64_t off, uint64_t comp, uint64_t raw, slog_error *err)
{
    const uint64_t at = off + 16 + zr->used;
    if (zr->zr == Z_DATA_ERROR || zr->zr == Z_NEED_DICT) {
        return rec_err(err, SLOG_ECORRUPT, f->path, at, "Corrupt zlib data: %s", zr->msg);
    }
    if (zr->zr == Z_MEM_ERROR) {
        return rec_err(err, SLOG_ENOMEM, f->path, off, "zlib ran out of memory");
    }
    if (zr->zr != Z_STREAM_END && zr->produced > raw) {
        return rec_err(err, SLOG_ECORRUPT, f->path, off,
                       "zlib blob inflates to more than its stated %llu bytes",
                       (unsigned long long)raw);
    }
    if (zr->zr != Z_STREAM_END) {
        return rec_err(err, SLOG_ECORRUPT, f->path, at,
                       "Truncated zlib stream: it ends before its end marker");
    }
    if (zr->produced != raw) {
        return rec_err(err, SLOG_ECORRUPT, f->path, off,
                       "zlib blob inflates to %llu bytes, its header says %llu",
                       (unsigned long long)zr->produced, (unsigned long long)raw);
    }
    if (zr->used != comp) {
        return rec_err(err, SLOG_ECORRUPT, f->path, at,
                       "zlib stream ends %llu bytes before the blob's stated end",
                       (unsigned long long)(comp - zr->used));
    }
    return SLOG_OK;
}

/* Inflate the blob at f->data[off] (u64 compressed length, u64 raw length,
 * zlib stream) which must end at or before `limit`.  The raw length is capped by zlib's best ratio
 * (1032:1) so a forged header cannot make us allocate gigabytes; one spare
 * output byte detects a stream longer than stated. */
typedef struct rec_blob {
    unsigned char *data; /* inflated bytes (caller frees) */
    size_t len;
    uint64_t next; /* file offset after the blob */
} rec_blob;

/* Inflate @p comp bytes of the blob at @p off into a new buffer of raw + 1
 * bytes (the caller frees it); NULL with err set (SLOG_ENOMEM) when it
 * cannot be had. */
static unsigned char *inflate_into(const rec_file *f, uint64_t off, uint64_t comp, uint64_t raw,
                                   zrun *zr, slog_error *err)
{
    unsigned char *const buf = malloc((size_t)raw + 1);
    if (buf == NULL) {
        (void)rec_err(err, SLOG_ENOMEM, f->path, off, "Cannot allocate %llu bytes",
                      (unsigned long long)raw + 1);
        return NULL;
    }
    zrun_inflate(zr, f->data + off + 16, comp, buf, raw + 1);
    return buf;
}

static int
inflate_blob(const rec_file *f, uint64_t off, uint64_t limit, rec_blob *out, slog_error *err)
{
    uint64_t comp = 0, raw = 0;
    int rc = blob_header(f, off, limit, &comp, &raw, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    zrun zr;
    unsigned char *const buf = inflate_into(f, off, comp, raw, &zr, err);
    if (buf == NULL) {
        return SLOG_ENOMEM;
    }
    rc = zrun_status(&zr, f, off, comp, raw, err);
    if (rc != SLOG_OK) {
        free(buf);
        return rc;
    }
    out->data = buf;
    out->len = (size_t)raw;
    out->next = off + 16 + comp;
    return SLOG_OK;
}

/* Inflate a file that holds exactly one blob. */
static int inflate_whole(rec_file *f, slog_error *err)
{
    rec_blob b;
    const int rc = inflate_blob(f, 0, f->len, &b, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    if (b.next != f->len) {
        free(b.data);
        return rec_err(err, SLOG_ECORRUPT, f->path, b.next,
                       "%llu unexpected bytes after the zlib blob",
                       (unsigned long long)(f->len - b.next));
    }
    free(f->data);
    f->data = b.data;
    f->len = b.len;
    return SLOG_OK;
}

/* ------------------------------------------------------------------ */
/* VERSION and recorder.mt                                            */

static int parse_version(rec_header *h, const rec_file *f, slog_error *err)
{
    size_t n = f->len;
    while (n > 0 && (f->data[n - 1] == '\n' || f->data[n - 1] == '\r' || f->data[n - 1] == ' ' ||
                     f->data[n - 1] == '\0')) {
        n--;
    }
    if (n == 0 || n >= sizeof h->version) {
        return rec_err(err, SLOG_EPARSE, f->path, 0,
                       "VERSION file does not hold a version (%zu bytes)", f->len);
    }
    memcpy(h->version, f->data, n);
    h->version[n] = '\0';
    unsigned v[3] = {0, 0, 0};
    unsigned part = 0;
    bool digit = false;
    for (size_t i = 0; i < n; i++) {
        const char c = h->version[i];
        if (c >= '0' && c <= '9' && v[part] < 100000) {
            v[part] = v[part] * 10 + (unsigned)(c - '0');
            digit = true;
        } else if (c == '.' && digit && part < 2) {
            part++;
            digit = false;
        } else {
            return rec_err(err, SLOG_EPARSE, f->path, i,
                           "VERSION file holds \"%s\", not major.minor.patch", h->version);
        }
    }
    if (!digit || part != 2) {
        return rec_err(err, SLOG_EPARSE, f->path, 0,
                       "VERSION file holds \"%s\", not major.minor.patch", h->version);
    }
    h->version_major = v[0];
    h->version_minor = v[1];
    h->version_patch = v[2];
    if (v[0] != 2 || (v[1] != 4 && v[1] != 5)) {
        return rec_err(err, SLOG_EVERSION, f->path, 0,
                       "Recorder trace version %s is not supported (this importer reads "
                       "versions 2.4.x and 2.5.x)",
                       h->version);
    }
    return SLOG_OK;
}

static void parse_header_25(rec_header *h, const unsigned char *p)
{
    h->total_ranks = get_i32(p);
    h->posix_tracing = p[4] != 0;
    h->mpi_tracing = p[5] != 0;
    h->mpiio_tracing = p[6] != 0;
    h->hdf5_tracing = p[7] != 0;
    h->store_tid = p[8] != 0;
    h->store_call_depth = p[9] != 0;
    h->start_ts = get_f64(p + 16);
    h->time_resolution = get_f64(p + 24);
    h->ts_buffer_elements = get_i32(p + 32);
    h->ts_compression = p[36] != 0;
    h->interprocess_compression = p[37] != 0;
    h->interprocess_pattern_recognition = p[38] != 0;
    h->intraprocess_pattern_recognition = p[39] != 0;
}

static void parse_header_24(rec_header *h, const unsigned char *p)
{
    h->total_ranks = get_i32(p);
    h->posix_tracing = h->mpi_tracing = h->mpiio_tracing = h->hdf5_tracing = true;
    h->store_tid = false;
    h->store_call_depth = true;
    h->start_ts = get_f64(p + 8);
    h->time_resolution = get_f64(p + 16);
    h->ts_buffer_elements = get_i32(p + 24);
    h->ts_compression_algo = get_i32(p + 28);
    h->ts_compression = false;
    h->interprocess_compression = get_i32(p + 32) != 0;
}

/* The function table: names from byte 40, each ended by '\n'. */
static int parse_functions(rec_trace *t, const rec_file *f, slog_error *err)
{
    const size_t n = f->len - REC_HEADER_BYTES;
    if (n == 0) {
        return rec_err(err, SLOG_ECORRUPT, f->path, REC_HEADER_BYTES,
                       "The function-name table is empty");
    }
    if (f->data[f->len - 1] != '\n') {
        return rec_err(err, SLOG_ECORRUPT, f->path, f->len,
                       "Truncated function-name table: the last name has no newline");
    }
    t->names = malloc(n);
    if (t->names == NULL) {
        return rec_err(err, SLOG_ENOMEM, f->path, UINT64_MAX, "Cannot allocate %zu bytes", n);
    }
    memcpy(t->names, f->data + REC_HEADER_BYTES, n);
    uint32_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (t->names[i] == '\n') {
            count++;
        } else if (t->names[i] == '\0') {
            return rec_err(err, SLOG_ECORRUPT, f->path, REC_HEADER_BYTES + i,
                           "NUL byte inside the function-name table");
        }
    }
    if (count > REC_USER_FUNC_ID) {
        return rec_err(err, SLOG_ECORRUPT, f->path, REC_HEADER_BYTES,
                       "The function-name table has %u names; ids are one byte", count);
    }
    t->funcs = calloc((size_t)count + 1, sizeof *t->funcs);
    if (t->funcs == NULL) {
        return rec_err(err, SLOG_ENOMEM, f->path, UINT64_MAX, "Cannot allocate the table");
    }
    char *p = t->names;
    for (uint32_t i = 0; i < count; i++) {
        char *const nl = strchr(p, '\n');
        *nl = '\0';
        t->funcs[i] = p;
        p = nl + 1;
    }
    t->nfuncs = count;
    /* Recorder's own split: POSIX below the first name containing "MPI",
     * MPI up to the first name containing "H5", HDF5 from there on. */
    t->first_mpi = t->first_h5 = count;
    for (uint32_t i = 0; i < count; i++) {
        if (t->first_mpi == count && strstr(t->funcs[i], "MPI") != NULL) {
            t->first_mpi = i;
        }
        if (t->first_mpi != count && strstr(t->funcs[i], "H5") != NULL) {
            t->first_h5 = i;
            break;
        }
    }
    return SLOG_OK;
}

static int read_metadata(rec_trace *t, slog_error *err)
{
    rec_file f;
    int rc = file_read(&f, t->dir, "VERSION", err);
    if (rc == SLOG_OK) {
        rc = parse_version(&t->hdr, &f, err);
    }
    file_free(&f);
    if (rc != SLOG_OK) {
        return rc;
    }
    rc = file_read(&f, t->dir, "recorder.mt", err);
    if (rc != SLOG_OK) {
        return rc;
    }
    rec_header *const h = &t->hdr;
    if (f.len < REC_HEADER_BYTES) {
        rc =
            rec_err(err, SLOG_ECORRUPT, f.path, f.len,
                    "Truncated header: %u bytes needed, the file has %zu", REC_HEADER_BYTES, f.len);
    } else if (h->version_minor == 5) {
        parse_header_25(h, f.data);
    } else {
        parse_header_24(h, f.data);
    }
    if (rc == SLOG_OK && (h->total_ranks <= 0 || h->total_ranks > (1 << 24))) {
        rc = rec_err(err, SLOG_ECORRUPT, f.path, 0, "Implausible total_ranks %d",
                     (int)h->total_ranks);
    }
    if (rc == SLOG_OK && !(h->time_resolution > 0.0 && h->time_resolution <= 1.0)) {
        rc = rec_err(err, SLOG_ECORRUPT, f.path, h->version_minor == 5 ? 24 : 16,
                     "Implausible time_resolution %g s", h->time_resolution);
    }
    if (rc == SLOG_OK && !(isfinite(h->start_ts) && h->start_ts >= 0.0 && h->start_ts < 9.0e9)) {
        rc = rec_err(err, SLOG_ECORRUPT, f.path, h->version_minor == 5 ? 16 : 8,
                     "Implausible start_ts %g s", h->start_ts);
    }
    if (rc == SLOG_OK && h->version_minor == 4 && h->ts_compression_algo != 0) {
        rc = rec_err(err, SLOG_EPARSE, f.path, 28,
                     "Timestamp compression algorithm %d is not supported (only 0, none)",
                     (int)h->ts_compression_algo);
    }
    if (rc == SLOG_OK) {
        rc = parse_functions(t, &f, err);
    }
    file_free(&f);
    return rc;
}

/* ------------------------------------------------------------------ */
/* call-signature table                                               */

static void cst_free(rec_cst *c)
{
    free(c->sigs);
    free(c->buf);
    memset(c, 0, sizeof *c);
}

/* A read position inside a parsed buffer. */
typedef struct rec_cursor {
    const unsigned char *buf;
    size_t len;
    size_t pos;
    const rec_where *w;
} rec_cursor;

/* Entry i of a CST at cur->pos: i32 terminal, i32 rank, i32 key_len,
 * u32 count, then the key. */
static int cst_entry(rec_cst *c, rec_cursor *cur, uint32_t i, uint32_t nfuncs, slog_error *err)
{
    const size_t pos = cur->pos, len = cur->len;
    const rec_where *const w = cur->w;
    if (len - pos < 16) {
        return where_err(err, SLOG_ECORRUPT, w, len,
                         "Truncated call-signature table: entry %u of %u is missing", i, c->n);
    }
    const int32_t term = get_i32(cur->buf + pos), key_len = get_i32(cur->buf + pos + 8);
    if (term < 0 || (uint32_t)term >= c->n || c->sigs[term].args != NULL) {
        return where_err(err, SLOG_ECORRUPT, w, pos,
                         "Terminal id %d is outside [0, %u) or repeated", (int)term, c->n);
    }
    if (key_len < (int32_t)REC_KEY_FIXED_BYTES) {
        return where_err(err, SLOG_ECORRUPT, w, pos + 8, "Key length %d is below %u", (int)key_len,
                         REC_KEY_FIXED_BYTES);
    }
    if ((uint64_t)key_len > len - pos - 16) {
        return where_err(err, SLOG_ECORRUPT, w, len,
                         "Truncated call-signature table: entry %u needs %d key bytes, %zu left", i,
                         (int)key_len, len - pos - 16);
    }
    const unsigned char *const key = cur->buf + pos + 16;
    const int32_t args_len = get_i32(key + 11);
    if (args_len != key_len - (int32_t)REC_KEY_FIXED_BYTES) {
        return where_err(err, SLOG_ECORRUPT, w, pos + 16 + 11,
                         "Argument length %d disagrees with key length %d", (int)args_len,
                         (int)key_len);
    }
    if (key[8] >= nfuncs && key[8] != REC_USER_FUNC_ID) {
        return where_err(err, SLOG_ECORRUPT, w, pos + 16 + 8,
                         "Function id %u is not in recorder.mt's table of %u names",
                         (unsigned)key[8], nfuncs);
    }
    rec_sig *const s = &c->sigs[term];
    s->tid = get_u64(key);
    s->func_id = key[8];
    s->depth = key[9];
    s->arg_count = key[10];
    s->args_len = (uint32_t)args_len;
    s->args = (const char *)(key + REC_KEY_FIXED_BYTES);
    s->count = get_u32(cur->buf + pos + 12);
    cur->pos = pos + 16 + (size_t)key_len;
    return SLOG_OK;
}

/* Parse a CST held in buf (ownership moves to c, also on failure). */
static int cst_parse(rec_cst *c,
                     unsigned char *buf,
                     size_t len,
                     const rec_where *w,
                     uint32_t nfuncs,
                     slog_error *err)
{
    memset(c, 0, sizeof *c);
    c->buf = buf;
    if (len < 4) {
        return where_err(err, SLOG_ECORRUPT, w, len, "Truncated call-signature table: no count");
    }
    const int32_t n = get_i32(buf);
    if (n < 0 || (uint64_t)n > (len - 4) / (16 + REC_KEY_FIXED_BYTES)) {
        return where_err(err, SLOG_ECORRUPT, w, 0,
                         "Call-signature count %d does not fit in %zu bytes", (int)n, len);
    }
    c->n = (uint32_t)n;
    c->sigs = calloc(c->n + 1u, sizeof *c->sigs);
    if (c->sigs == NULL) {
        return where_err(err, SLOG_ENOMEM, w, 0, "Cannot allocate %u signatures", c->n);
    }
    rec_cursor cur = {buf, len, 4, w};
    for (uint32_t i = 0; i < c->n; i++) {
        const int rc = cst_entry(c, &cur, i, nfuncs, err);
        if (rc != SLOG_OK) {
            return rc;
        }
    }
    if (cur.pos != len) {
        return where_err(err, SLOG_ECORRUPT, w, cur.pos,
                         "%zu unexpected bytes after the last call signature", len - cur.pos);
    }
    return SLOG_OK;
}

/* Read and parse a CST file, zlib-framed in 2.5, raw in 2.4. */
static int
cst_load(rec_cst *c, const rec_trace *t, const char *name, char **path_out, slog_error *err)
{
    memset(c, 0, sizeof *c);
    const bool zlib_framed = t->hdr.version_minor == 5;
    rec_file f;
    int rc = file_read(&f, t->dir, name, err);
    if (rc == SLOG_OK && zlib_framed) {
        rc = inflate_whole(&f, err);
    }
    if (rc != SLOG_OK) {
        file_free(&f);
        return rc;
    }
    const rec_where w = {f.path, 0, zlib_framed};
    rc = cst_parse(c, f.data, f.len, &w, t->nfuncs, err);
    f.data = NULL; /* owned by c now */
    *path_out = f.path;
    return rc;
}

/* ------------------------------------------------------------------ */
/* grammar                                                            */

static void grammar_free(rec_grammar *g)
{
    free(g->rules);
    free(g->syms);
    free(g->explen);
    memset(g, 0, sizeof *g);
}

static int cmp_rule_id(const void *a, const void *b)
{
    const int32_t x = ((const rec_rule *)a)->id, y = ((const rec_rule *)b)->id;
    return (x < y) ? 1 : (x > y) ? -1 : 0; /* -1, -2, -3, ... */
}

static int64_t rule_find(const rec_grammar *g, int32_t id)
{
    uint32_t lo = 0, hi = g->nrules;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (g->rules[mid].id == id) {
            return mid;
        }
        if (g->rules[mid].id > id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return -1;
}

/* Expansion length of every rule; fails on a cycle or an overflow.  An
 * explicit DFS stack; state 0 new, 1 on the stack, 2 done. */
static int grammar_lengths(rec_grammar *g, slog_error *err)
{
    unsigned char *const state = calloc(g->nrules, 1);
    rec_frame *const st = calloc(g->nrules, sizeof *st);
    g->explen = calloc(g->nrules, sizeof *g->explen);
    int rc = SLOG_OK;
    if (state == NULL || st == NULL || g->explen == NULL) {
        rc = where_err(err, SLOG_ENOMEM, &g->where, 0, "Cannot allocate %u rules", g->nrules);
        goto out;
    }
    uint32_t sp = 0;
    st[sp++] = (rec_frame){g->root, 0, 0};
    state[g->root] = 1;
    while (sp > 0 && rc == SLOG_OK) {
        rec_frame *const f = &st[sp - 1];
        const rec_rule *const r = &g->rules[f->rule];
        if (f->sym == r->nsym) {
            state[f->rule] = 2;
            sp--;
            continue;
        }
        const rec_sym *const s = &g->syms[r->first + f->sym];
        if (s->is_rule && state[s->value] == 0) {
            state[s->value] = 1;
            st[sp++] = (rec_frame){s->value, 0, 0};
            continue;
        }
        if (s->is_rule && state[s->value] == 1) {
            rc = where_err(err, SLOG_ECORRUPT, &g->where, s->pos,
                           "Grammar rule %d refers to rule %d, which expands into it again",
                           (int)r->id, (int)g->rules[s->value].id);
            break;
        }
        const uint64_t one = s->is_rule ? g->explen[s->value] : 1;
        if (one != 0 && s->exp > (UINT64_MAX / 2 - g->explen[f->rule]) / one) {
            rc = where_err(err, SLOG_ECORRUPT, &g->where, s->pos,
                           "Grammar rule %d expands to more than 2^63 records", (int)r->id);
            break;
        }
        g->explen[f->rule] += one * s->exp;
        f->sym++;
    }
out:
    free(state);
    free(st);
    return rc;
}

/* The nsym (value, exponent) pairs of rule `id`, starting at v[pos]. */
static int grammar_read_syms(
    rec_grammar *g, const int32_t *v, size_t pos, uint32_t nsym, int32_t id, slog_error *err)
{
    for (uint32_t k = 0; k < nsym; k++) {
        const size_t at = pos + 2 * (size_t)k;
        const int32_t val = v[at], ex = v[at + 1];
        if (ex < 1) {
            return where_err(err, SLOG_ECORRUPT, &g->where, (at + 1) * 4,
                             "Repeat count %d in rule %d is below 1", (int)ex, (int)id);
        }
        rec_sym *const s = &g->syms[g->nsyms++];
        s->pos = at * 4;
        s->exp = (uint32_t)ex;
        s->is_rule = val < 0;
        /* a rule keeps its id (negated) until grammar_resolve() maps it */
        s->value = val < 0 ? (uint32_t)(-(int64_t)val) : (uint32_t)val;
        if (val >= 0 && (uint64_t)val + 1 > g->max_terminal_plus1) {
            g->max_terminal_plus1 = (uint32_t)val + 1;
            g->max_terminal_pos = s->pos;
        }
    }
    return SLOG_OK;
}

static int grammar_read_rules(rec_grammar *g, const int32_t *v, size_t nv, slog_error *err)
{
    const rec_where *const w = &g->where;
    size_t pos = 1;
    for (uint32_t i = 0; i < g->nrules; i++) {
        if (nv - pos < 2) {
            return where_err(err, SLOG_ECORRUPT, w, nv * 4,
                             "Truncated grammar: rule %u of %u is missing", i, g->nrules);
        }
        const int32_t id = v[pos], nsym = v[pos + 1];
        if (id >= 0) {
            return where_err(err, SLOG_ECORRUPT, w, pos * 4, "Rule id %d is not negative", (int)id);
        }
        if (nsym < 0 || (uint64_t)nsym > (nv - pos - 2) / 2) {
            return where_err(err, SLOG_ECORRUPT, w, nsym < 0 ? (pos + 1) * 4 : nv * 4,
                             "Truncated grammar: rule %d has %d symbols, %zu values left", (int)id,
                             (int)nsym, nv - pos - 2);
        }
        g->rules[i] = (rec_rule){id, g->nsyms, (uint32_t)nsym, pos * 4};
        const int rc = grammar_read_syms(g, v, pos + 2, (uint32_t)nsym, id, err);
        if (rc != SLOG_OK) {
            return rc;
        }
        pos += 2 + 2 * (size_t)nsym;
    }
    if (pos != nv) {
        return where_err(err, SLOG_ECORRUPT, w, pos * 4,
                         "%zu unexpected bytes after the last grammar rule", (nv - pos) * 4);
    }
    return SLOG_OK;
}

static int grammar_resolve(rec_grammar *g, slog_error *err)
{
    if (g->rules == NULL || g->syms == NULL || g->nrules == 0) {
        return where_err(err, SLOG_ECORRUPT, &g->where, 0, "The grammar has no rules");
    }
    qsort(g->rules, g->nrules, sizeof *g->rules, cmp_rule_id);
    for (uint32_t i = 1; i < g->nrules; i++) {
        if (g->rules[i].id == g->rules[i - 1].id) {
            return where_err(err, SLOG_ECORRUPT, &g->where, g->rules[i].pos,
                             "Rule id %d appears twice", (int)g->rules[i].id);
        }
    }
    const int64_t root = rule_find(g, -1);
    if (root < 0) {
        return where_err(err, SLOG_ECORRUPT, &g->where, 0, "The grammar has no root rule -1");
    }
    g->root = (uint32_t)root;
    for (uint32_t i = 0; i < g->nrules; i++) {
        const rec_rule *const r = &g->rules[i];
        for (uint32_t k = 0; k < r->nsym; k++) {
            rec_sym *const s = &g->syms[r->first + k];
            if (!s->is_rule) {
                continue;
            }
            const int64_t want = -(int64_t)s->value;
            const int64_t idx = want >= INT32_MIN ? rule_find(g, (int32_t)want) : -1;
            if (idx < 0) {
                return where_err(err, SLOG_ECORRUPT, &g->where, s->pos,
                                 "Rule %d refers to rule %lld, which does not exist", (int)r->id,
                                 (long long)want);
            }
            s->value = (uint32_t)idx;
        }
    }
    return grammar_lengths(g, err);
}

/* Parse a grammar (an int32 array) held in buf; buf stays the caller's. */
static int grammar_parse(
    rec_grammar *g, const unsigned char *buf, size_t len, const rec_where *w, slog_error *err)
{
    memset(g, 0, sizeof *g);
    g->where = *w;
    if (len % 4 != 0) {
        return where_err(err, SLOG_ECORRUPT, w, len - len % 4,
                         "Grammar size %zu is not a multiple of 4 (truncated?)", len);
    }
    const size_t nv = len / 4;
    if (nv < 1) {
        return where_err(err, SLOG_ECORRUPT, w, 0, "Truncated grammar: no rule count");
    }
    const int32_t nrules = get_i32(buf);
    if (nrules < 1 || (uint64_t)nrules > (nv - 1) / 2) {
        return where_err(err, SLOG_ECORRUPT, w, 0, "Rule count %d does not fit in %zu bytes",
                         (int)nrules, len);
    }
    int32_t *const v = malloc(nv * sizeof *v);
    g->nrules = (uint32_t)nrules;
    g->rules = calloc(g->nrules, sizeof *g->rules);
    g->syms = calloc(nv / 2 + 1, sizeof *g->syms);
    int rc = SLOG_OK;
    if (v == NULL || g->rules == NULL || g->syms == NULL) {
        rc = where_err(err, SLOG_ENOMEM, w, 0, "Cannot allocate a grammar of %zu bytes", len);
    } else {
        for (size_t i = 0; i < nv; i++) {
            v[i] = get_i32(buf + 4 * i);
        }
        rc = grammar_read_rules(g, v, nv, err);
    }
    free(v);
    if (rc == SLOG_OK) {
        rc = grammar_resolve(g, err);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* trace                                                              */

static int read_ugmt(rec_trace *t, slog_error *err)
{
    rec_file f;
    int rc = file_read(&f, t->dir, "ug.mt", err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const uint32_t np = (uint32_t)t->hdr.total_ranks;
    if (f.len != 4 * ((size_t)np + 1)) {
        rc = rec_err(err, SLOG_ECORRUPT, f.path, f.len < 4 * ((size_t)np + 1) ? f.len : 0,
                     "ug.mt has %zu bytes, %zu expected for %u ranks", f.len, 4 * ((size_t)np + 1),
                     np);
        goto out;
    }
    const int32_t nu = get_i32(f.data + 4 * (size_t)np);
    if (nu < 1 || (uint32_t)nu > np) {
        rc = rec_err(err, SLOG_ECORRUPT, f.path, 4 * (uint64_t)np,
                     "Unique grammar count %d outside [1, %u]", (int)nu, np);
        goto out;
    }
    t->nug = (uint32_t)nu;
    t->ugid = malloc(np * sizeof *t->ugid);
    if (t->ugid == NULL) {
        rc = rec_err(err, SLOG_ENOMEM, f.path, UINT64_MAX, "Cannot allocate %u ids", np);
        goto out;
    }
    for (uint32_t r = 0; r < np; r++) {
        t->ugid[r] = get_i32(f.data + 4 * (size_t)r);
        if (t->ugid[r] < 0 || t->ugid[r] >= nu) {
            rc = rec_err(err, SLOG_ECORRUPT, f.path, 4 * (uint64_t)r,
                         "Rank %u uses grammar %d, outside [0, %d)", r, (int)t->ugid[r], (int)nu);
            goto out;
        }
    }
out:
    file_free(&f);
    return rc;
}

/* A unique grammar that cannot be used: its ranks fail when opened (out of
 * memory fails the trace). */
static int ug_damaged(rec_trace *t, uint32_t i, int rc, slog_error *err)
{
    if (rc == SLOG_ENOMEM) {
        if (err != NULL) {
            *err = t->ug_err[i];
        }
        return rc;
    }
    grammar_free(&t->ugs[i]);
    return SLOG_OK;
}

/* 2.5: ug.cfg, one zlib blob per unique grammar.  A blob that does not
 * inflate hides where the next ones start: they are damaged too. */
static int read_ugcfg_25(rec_trace *t, slog_error *err)
{
    rec_file f;
    int rc = file_read(&f, t->dir, "ug.cfg", err);
    uint64_t off = 0;
    uint32_t lost_from = t->nug; /* first grammar whose blob did not inflate */
    for (uint32_t i = 0; i < t->nug && rc == SLOG_OK; i++) {
        if (i > lost_from) {
            t->ug_err[i] = t->ug_err[lost_from];
            continue;
        }
        rec_blob b = {NULL, 0, off};
        int grc = inflate_blob(&f, off, f.len, &b, &t->ug_err[i]);
        lost_from = grc != SLOG_OK ? i : lost_from;
        if (grc == SLOG_OK) {
            const rec_where w = {f.path, off, true};
            grc = grammar_parse(&t->ugs[i], b.data, b.len, &w, &t->ug_err[i]);
            t->ugs[i].where.path = t->ugcfg_path; /* f.path dies below */
            off = b.next;
        }
        free(b.data);
        rc = grc != SLOG_OK ? ug_damaged(t, i, grc, err) : SLOG_OK;
    }
    if (rc == SLOG_OK && lost_from == t->nug && off != f.len) {
        rc = rec_err(err, SLOG_ECORRUPT, f.path, off, "%llu unexpected bytes after the %u grammars",
                     (unsigned long long)(f.len - off), t->nug);
    }
    file_free(&f);
    return rc;
}

/* 2.4: <ugid>.cfg raw files. */
static int read_ugcfg_24(rec_trace *t, slog_error *err)
{
    int rc = SLOG_OK;
    for (uint32_t i = 0; i < t->nug && rc == SLOG_OK; i++) {
        char name[32];
        (void)snprintf(name, sizeof name, "%u.cfg", i);
        rec_file f;
        int grc = file_read(&f, t->dir, name, &t->ug_err[i]);
        if (grc == SLOG_OK) {
            const rec_where w = {f.path, 0, false};
            grc = grammar_parse(&t->ugs[i], f.data, f.len, &w, &t->ug_err[i]);
            t->ugs[i].where.path = t->ugcfg_path; /* f.path dies below */
        }
        file_free(&f);
        rc = grc != SLOG_OK ? ug_damaged(t, i, grc, err) : SLOG_OK;
    }
    return rc;
}

static int read_merged(rec_trace *t, slog_error *err)
{
    const bool v25 = t->hdr.version_minor == 5;
    int rc = cst_load(&t->mcst, t, v25 ? "recorder.cst" : "0.cst", &t->mcst_path, err);
    t->have_mcst = true;
    if (rc == SLOG_OK) {
        rc = read_ugmt(t, err);
    }
    if (rc != SLOG_OK) {
        return rc;
    }
    t->ugs = calloc(t->nug, sizeof *t->ugs);
    t->ug_err = calloc(t->nug, sizeof *t->ug_err);
    t->ugcfg_path = v25 ? path_join(t->dir, "ug.cfg") : strdup(t->dir);
    if (t->ugs == NULL || t->ug_err == NULL || t->ugcfg_path == NULL) {
        return rec_err(err, SLOG_ENOMEM, t->dir, UINT64_MAX, "Cannot allocate grammars");
    }
    rc = v25 ? read_ugcfg_25(t, err) : read_ugcfg_24(t, err);
    for (uint32_t i = 0; i < t->nug && rc == SLOG_OK; i++) {
        if (t->ug_err[i].code == SLOG_OK && t->ugs[i].max_terminal_plus1 > t->mcst.n) {
            (void)rec_err(&t->ug_err[i], SLOG_ECORRUPT, t->ugcfg_path, UINT64_MAX,
                          "Unique grammar %u uses terminal %u; the call-signature table %s has "
                          "%u",
                          i, t->ugs[i].max_terminal_plus1 - 1, t->mcst_path, t->mcst.n);
            grammar_free(&t->ugs[i]);
        }
    }
    return rc;
}

/* 2.5: recorder.ts = u64 size[nprocs], then the chunks back to back. */
static int read_ts_table(rec_trace *t, slog_error *err)
{
    int rc = file_read(&t->ts, t->dir, "recorder.ts", err);
    if (rc != SLOG_OK) {
        return rc;
    }
    const uint32_t np = (uint32_t)t->hdr.total_ranks;
    const rec_file *const f = &t->ts;
    if (f->len / 8 < np) {
        return rec_err(err, SLOG_ECORRUPT, f->path, f->len,
                       "Truncated timestamp file: the size table needs %llu bytes, the file has "
                       "%zu",
                       8 * (unsigned long long)np, f->len);
    }
    t->chunk_off = calloc(np, sizeof *t->chunk_off);
    t->chunk_len = calloc(np, sizeof *t->chunk_len);
    if (t->chunk_off == NULL || t->chunk_len == NULL) {
        return rec_err(err, SLOG_ENOMEM, f->path, UINT64_MAX, "Cannot allocate %u chunks", np);
    }
    uint64_t off = 8 * (uint64_t)np;
    for (uint32_t r = 0; r < np; r++) {
        const uint64_t size = get_u64(f->data + 8 * (size_t)r);
        t->chunk_off[r] = off;
        t->chunk_len[r] = size;
        off = size > UINT64_MAX - off ? UINT64_MAX : off + size;
    }
    /* off > f->len: the file is cut; each rank whose chunk it reaches
     * fails alone when it is opened (rank_load_ts) */
    if (off < f->len) {
        return rec_err(err, SLOG_ECORRUPT, f->path, off,
                       "%llu unexpected bytes after the last rank's timestamps",
                       (unsigned long long)(f->len - off));
    }
    return SLOG_OK;
}

int rec_trace_open(rec_trace **out, const char *dir, slog_error *err)
{
    *out = NULL;
    rec_trace *const t = calloc(1, sizeof *t);
    if (t == NULL) {
        return rec_err(err, SLOG_ENOMEM, dir, UINT64_MAX, "Cannot allocate the trace");
    }
    t->dir = strdup(dir);
    int rc = t->dir == NULL ? rec_err(err, SLOG_ENOMEM, dir, UINT64_MAX, "Cannot allocate")
                            : read_metadata(t, err);
    if (rc == SLOG_OK && t->hdr.interprocess_compression) {
        rc = read_merged(t, err);
    }
    if (rc == SLOG_OK && t->hdr.version_minor == 5) {
        rc = read_ts_table(t, err);
    }
    if (rc != SLOG_OK) {
        rec_trace_close(t);
        return rc;
    }
    *out = t;
    return SLOG_OK;
}

void rec_trace_close(rec_trace *t)
{
    if (t == NULL) {
        return;
    }
    for (uint32_t i = 0; t->ugs != NULL && i < t->nug; i++) {
        grammar_free(&t->ugs[i]);
    }
    free(t->ugs);
    free(t->ug_err);
    free(t->ugid);
    cst_free(&t->mcst);
    free(t->mcst_path);
    free(t->ugcfg_path);
    file_free(&t->ts);
    free(t->chunk_off);
    free(t->chunk_len);
    free(t->funcs);
    free(t->names);
    free(t->dir);
    free(t);
}

const rec_header *rec_trace_header(const rec_trace *t)
{
    return &t->hdr;
}

uint32_t rec_trace_func_count(const rec_trace *t)
{
    return t->nfuncs;
}

const char *rec_trace_func_name(const rec_trace *t, uint32_t func_id)
{
    if (func_id == REC_USER_FUNC_ID) {
        return "user_function";
    }
    return func_id < t->nfuncs ? t->funcs[func_id] : NULL;
}

rec_layer rec_trace_func_layer(const rec_trace *t, uint32_t func_id)
{
    if (func_id == REC_USER_FUNC_ID || func_id >= t->nfuncs) {
        return REC_LAYER_USER;
    }
    if (func_id < t->first_mpi) {
        return REC_LAYER_POSIX;
    }
    if (func_id >= t->first_h5) {
        return REC_LAYER_HDF5;
    }
    return strncmp(t->funcs[func_id], "MPI_File", 8) == 0 ? REC_LAYER_MPIIO : REC_LAYER_MPI;
}

const char *rec_layer_name(rec_layer layer)
{
    switch (layer) {
    case REC_LAYER_POSIX:
        return "POSIX";
    case REC_LAYER_MPI:
        return "MPI";
    case REC_LAYER_MPIIO:
        return "MPI-IO";
    case REC_LAYER_HDF5:
        return "HDF5";
    case REC_LAYER_USER:
        break;
    }
    return "user";
}

/* ------------------------------------------------------------------ */
/* ranks                                                              */

static int rank_load_structure(rec_rank *r, slog_error *err)
{
    rec_trace *const t = r->t;
    if (t->hdr.interprocess_compression) {
        const slog_error *const bad = &t->ug_err[t->ugid[r->rank]];
        if (bad->code != SLOG_OK) {
            if (err != NULL) {
                *err = *bad;
            }
            return bad->code;
        }
        r->cst = &t->mcst;
        r->g = &t->ugs[t->ugid[r->rank]];
        return SLOG_OK;
    }
    const bool v25 = t->hdr.version_minor == 5;
    char name[32];
    (void)snprintf(name, sizeof name, "%u.cst", r->rank);
    int rc = cst_load(&r->own_cst, t, name, &r->own_cst_path, err);
    r->have_own_cst = true;
    if (rc != SLOG_OK) {
        return rc;
    }
    r->cst = &r->own_cst;
    (void)snprintf(name, sizeof name, "%u.cfg", r->rank);
    rec_file f;
    rc = file_read(&f, t->dir, name, err);
    if (rc == SLOG_OK && v25) {
        rc = inflate_whole(&f, err);
    }
    if (rc == SLOG_OK) {
        const rec_where w = {f.path, 0, v25};
        rc = grammar_parse(&r->own_g, f.data, f.len, &w, err);
        r->have_own_g = true;
        r->g = &r->own_g;
        if (rc == SLOG_OK && r->own_g.max_terminal_plus1 > r->own_cst.n) {
            rc = where_err(err, SLOG_ECORRUPT, &w, r->own_g.max_terminal_pos,
                           "Grammar uses terminal %u; the call-signature table has %u",
                           r->own_g.max_terminal_plus1 - 1, r->own_cst.n);
        }
        r->own_cfg_path = f.path; /* grammars keep their path */
        f.path = NULL;
    }
    file_free(&f);
    return rc;
}

/* Decode `len` bytes of raw pairs into r->ts after checking the count.
 * Fewer bytes than records: the pairs there are, and the rank is damaged. */
static int rank_take_pairs(
    rec_rank *r, const unsigned char *p, uint64_t len, const rec_where *w, slog_error *err)
{
    const uint64_t want = 8 * r->nrec;
    if (len != want) {
        (void)where_err(len < want ? &r->damage : err, SLOG_ECORRUPT, w, len < want ? len : want,
                        "Rank %u has %llu records but %llu bytes of timestamps (%llu "
                        "expected)%s",
                        r->rank, (unsigned long long)r->nrec, (unsigned long long)len,
                        (unsigned long long)want, len < want ? ": truncated" : "");
        if (len > want) {
            return SLOG_ECORRUPT;
        }
        r->damaged = true;
    }
    r->avail = len / 8;
    r->ts = malloc((size_t)(2 * r->avail) * sizeof *r->ts + 1);
    if (r->ts == NULL) {
        return where_err(err, SLOG_ENOMEM, w, 0, "Cannot allocate %llu timestamps",
                         (unsigned long long)r->avail);
    }
    for (uint64_t i = 0; i < 2 * r->avail; i++) {
        r->ts[i] = get_u32(p + 4 * i);
    }
    return SLOG_OK;
}

/* What a zlib blob cut after `have` bytes still gives (*out empty when its
 * header is cut or implausible). */
static int
inflate_cut(const rec_file *f, uint64_t off, uint64_t have, rec_blob *out, slog_error *err)
{
    memset(out, 0, sizeof *out);
    if (have < 16) {
        return SLOG_OK;
    }
    const uint64_t comp = get_u64(f->data + off), raw = get_u64(f->data + off + 8);
    if (raw / 1032 > comp + 1 || raw > (uint64_t)SIZE_MAX / 2) {
        return SLOG_OK;
    }
    zrun zr;
    const uint64_t held = comp < have - 16 ? comp : have - 16;
    unsigned char *const buf = inflate_into(f, off, held, raw, &zr, err);
    if (buf == NULL) {
        return SLOG_ENOMEM;
    }
    if (zr.zr == Z_MEM_ERROR) {
        free(buf);
        return rec_err(err, SLOG_ENOMEM, f->path, off, "zlib ran out of memory");
    }
    out->data = buf;
    out->len = (size_t)(zr.produced < raw ? zr.produced : raw);
    return SLOG_OK;
}

/* 2.5: rank r's chunk [off, off + len) of which the cut file holds `have`
 * bytes: the records whose timestamps are there. */
static int rank_load_cut(rec_rank *r, uint64_t off, uint64_t len, uint64_t have, slog_error *err)
{
    const rec_file *const f = &r->t->ts;
    rec_blob b = {NULL, 0, 0};
    int rc = SLOG_OK;
    if (r->t->hdr.ts_compression && have > 0) {
        rc = inflate_cut(f, off, have, &b, err);
    }
    const bool raw = !r->t->hdr.ts_compression;
    const unsigned char *const p = raw && have > 0 ? f->data + off : b.data;
    const uint64_t n = raw ? have : b.len;
    if (rc == SLOG_OK) {
        const rec_where w = {f->path, off, !raw};
        rc = rank_take_pairs(r, p, n < 8 * r->nrec ? n : 8 * r->nrec, &w, err);
    }
    free(b.data);
    r->damaged = true;
    (void)rec_err(&r->damage, SLOG_ECORRUPT, f->path, f->len,
                  "Truncated timestamp file: rank %u's chunk needs bytes [%llu, %llu), the file "
                  "has %zu",
                  r->rank, (unsigned long long)off, (unsigned long long)(off + len), f->len);
    return rc;
}

static int rank_load_ts(rec_rank *r, slog_error *err)
{
    rec_trace *const t = r->t;
    if (r->nrec > (uint64_t)SIZE_MAX / 16) {
        return rec_err(err, SLOG_ECORRUPT, t->dir, UINT64_MAX, "Rank %u has %llu records", r->rank,
                       (unsigned long long)r->nrec);
    }
    if (t->hdr.version_minor == 5) {
        const uint64_t off = t->chunk_off[r->rank], len = t->chunk_len[r->rank];
        const uint64_t have = off >= t->ts.len ? 0 : t->ts.len - off;
        if (have < len) {
            return rank_load_cut(r, off, len, have, err);
        }
        if (!t->hdr.ts_compression || len == 0) {
            const rec_where w = {t->ts.path, off, false};
            return rank_take_pairs(r, t->ts.data + off, len, &w, err);
        }
        rec_blob b = {NULL, 0, 0};
        int rc = inflate_blob(&t->ts, off, off + len, &b, err);
        if (rc == SLOG_OK && b.next != off + len) {
            rc = rec_err(err, SLOG_ECORRUPT, t->ts.path, b.next,
                         "%llu unexpected bytes after rank %u's timestamp blob",
                         (unsigned long long)(off + len - b.next), r->rank);
        }
        if (rc == SLOG_OK) {
            const rec_where w = {t->ts.path, off, true};
            rc = rank_take_pairs(r, b.data, b.len, &w, err);
        }
        free(b.data);
        return rc;
    }
    char name[32];
    (void)snprintf(name, sizeof name, "%u.ts", r->rank);
    rec_file f;
    int rc = file_read(&f, t->dir, name, err);
    if (rc == SLOG_OK) {
        const rec_where w = {f.path, 0, false};
        rc = rank_take_pairs(r, f.data, f.len, &w, err);
    }
    file_free(&f);
    return rc;
}

int rec_rank_open_cut(rec_rank **out, rec_trace *t, uint32_t rank, slog_error *err)
{
    *out = NULL;
    if (rank >= (uint32_t)t->hdr.total_ranks) {
        return rec_err(err, SLOG_EINVAL, t->dir, UINT64_MAX, "No rank %u in a trace of %d", rank,
                       (int)t->hdr.total_ranks);
    }
    rec_rank *const r = calloc(1, sizeof *r);
    if (r == NULL) {
        return rec_err(err, SLOG_ENOMEM, t->dir, UINT64_MAX, "Cannot allocate a rank");
    }
    r->t = t;
    r->rank = rank;
    int rc = rank_load_structure(r, err);
    if (rc == SLOG_OK) {
        r->nrec = r->g->explen[r->g->root];
        rc = rank_load_ts(r, err);
    }
    if (rc == SLOG_OK) {
        r->stack = malloc(r->g->nrules * sizeof *r->stack);
        if (r->stack == NULL) {
            rc = rec_err(err, SLOG_ENOMEM, t->dir, UINT64_MAX, "Cannot allocate a stack");
        }
    }
    if (rc != SLOG_OK) {
        rec_rank_close(r);
        return rc;
    }
    rec_rank_rewind(r);
    *out = r;
    return SLOG_OK;
}

int rec_rank_open(rec_rank **out, rec_trace *t, uint32_t rank, slog_error *err)
{
    const int rc = rec_rank_open_cut(out, t, rank, err);
    if (rc != SLOG_OK || !(*out)->damaged) {
        return rc;
    }
    if (err != NULL) {
        *err = (*out)->damage;
    }
    rec_rank_close(*out);
    *out = NULL;
    return SLOG_ECORRUPT;
}

uint64_t rec_rank_available(const rec_rank *r)
{
    return r->avail;
}

bool rec_rank_damage(const rec_rank *r, slog_error *err)
{
    if (r->damaged && err != NULL) {
        *err = r->damage;
    }
    return r->damaged;
}

void rec_rank_close(rec_rank *r)
{
    if (r == NULL) {
        return;
    }
    if (r->have_own_cst) {
        cst_free(&r->own_cst);
    }
    if (r->have_own_g) {
        grammar_free(&r->own_g);
    }
    free(r->own_cst_path);
    free(r->own_cfg_path);
    free(r->ts);
    free(r->stack);
    free(r);
}

uint64_t rec_rank_record_count(const rec_rank *r)
{
    return r->nrec;
}

void rec_rank_rewind(rec_rank *r)
{
    r->sp = 0;
    r->stack[r->sp++] = (rec_frame){r->g->root, 0, 0};
    r->next = 0;
    r->prev = 0;
}

/* Depth-first expansion: each frame walks its rule's symbols, repeating
 * each `exp` times; a rule symbol pushes a frame.  The grammar was checked
 * acyclic, so the stack never exceeds nrules frames. */
int rec_rank_next(rec_rank *r, rec_record *out)
{
    const rec_grammar *const g = r->g;
    if (r->next == r->avail) {
        return SLOG_END; /* all of them, or all a cut rank has timestamps for */
    }
    while (r->sp > 0) {
        rec_frame *const f = &r->stack[r->sp - 1];
        const rec_rule *const rule = &g->rules[f->rule];
        if (f->sym == rule->nsym) {
            r->sp--;
            continue;
        }
        const rec_sym *const s = &g->syms[rule->first + f->sym];
        if (f->done == s->exp) {
            f->sym++;
            f->done = 0;
            continue;
        }
        f->done++;
        if (s->is_rule) {
            r->stack[r->sp++] = (rec_frame){s->value, 0, 0};
            continue;
        }
        /* Both deltas count from the previous record's start. */
        const uint64_t i = r->next++;
        out->index = i;
        out->terminal = s->value;
        out->sig = &r->cst->sigs[s->value];
        out->tstart = r->prev + (int64_t)r->ts[2 * i];
        out->tend = r->prev + (int64_t)r->ts[2 * i + 1];
        r->prev = out->tstart;
        return SLOG_OK;
    }
    return SLOG_END;
}

uint32_t rec_split_args(
    const rec_sig *sig, const char **starts, uint32_t *lens, uint32_t max, uint32_t *rest)
{
    uint32_t n = 0, pos = 0;
    while (n < max && pos < sig->args_len) {
        const char *const p = sig->args + pos;
        const void *const sp = memchr(p, ' ', sig->args_len - pos);
        if (sp == NULL) {
            break;
        }
        const uint32_t len = (uint32_t)((const char *)sp - p);
        starts[n] = p;
        lens[n] = len;
        n++;
        pos += len + 1;
    }
    *rest = sig->args_len - pos;
    return n;
}

int64_t rec_ticks_to_ns(const rec_header *h, int64_t ticks)
{
    const double ns = h->time_resolution * 1e9;
    const double whole = nearbyint(ns);
    if (whole >= 1.0 && fabs(ns - whole) <= 1e-6 * whole) {
        return ticks * (int64_t)whole;
    }
    return (int64_t)llround((double)ticks * ns);
}

int64_t rec_start_ns(const rec_header *h)
{
    const double sec = floor(h->start_ts);
    return (int64_t)sec * 1000000000 + (int64_t)llround((h->start_ts - sec) * 1e9);
}
