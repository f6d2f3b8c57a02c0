/* SPDX-License-Identifier: MIT
 *
 * store_hdf5.c - store.h on HDF5 1.10 (the only file that includes hdf5.h).
 * The writer creates every object up front (libver latest), then starts
 * SWMR and only grows datasets: compound tables by H5Dset_extent + H5Dwrite,
 * /payload by whole chunks that it compresses itself (codec_lz4, outside the
 * HDF5 lock) and writes with H5Dwrite_chunk.  The reader fetches a blob's
 * chunks with H5Dread_chunk under the lock and decodes them outside it; a
 * /payload without filter (h5repack -f NONE) is read raw, one with any other
 * pipeline goes through H5Dread and HDF5's filters.  Filter 32004 is
 * registered here with a decoder that never trusts the chunk (codec_lz4).
 * /strings goes through HDF5's own deflate filter (H5Dwrite/H5Dread).
 * Every HDF5 call runs between h5_enter and h5_leave: the global lock, with
 * HDF5's automatic error printing off (and restored for the host program).
 * Layer 2: may use codec and util.
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "codec_crc32c.h"
#include "codec_lz4.h"
#include "store_blob_loc.h"
#include "store.h"
#include "util_alloc.h"
#include "util_error.h"
#include "util_lock.h"

#define LZ4_FILTER_ID      32004
#define MAX_CHUNK_BYTES    (1u << 30)
#define SWMR_READ_ATTEMPTS 10
#define MAX_STRING_ATTR    256 /* longest string attribute accepted (creator: 129) */
/* Table chunks: HDF5 allocates whole chunks, so these bound a small file's
 * fixed overhead (format 1 used 128/128/512 rows and 16 KiB: ~88 KiB for a
 * file with one node); doc/DESIGN.md has the measurements. */
#define TIMELINE_CHUNK     16   /* 512 bytes */
#define CATEGORY_CHUNK     16   /* 512 bytes */
#define NODE_CHUNK         16   /* 2 KiB */
/* /strings: HDF5's deflate filter (zlib, built into every HDF5 that h5py
 * or h5dump use, so no plugin) over 16 KiB chunks.  File and host names
 * compress ~9x (DFTracer's 38 KB of paths: 4.3 KB, 4.2 KB in 64 KiB chunks);
 * a chunk's zero tail costs under 40 bytes, so a tiny heap takes less than
 * the 512-byte raw chunk of libslog 0.2.  Under SWMR HDF5 never reuses the
 * space of a rewritten filtered chunk, and a flush that added strings
 * rewrites the last chunk: the chunk size bounds that loss per flush
 * (doc/FORMAT.md §4, §6). */
#define STRINGS_CHUNK      16384
#define STRINGS_DEFLATE    6
#define PIPELINE_READ_BYTES 16384 /* read unit of a contiguous (repacked) /payload */

/* ---- compound layouts: one field table per row type -------------------- */

typedef enum field_kind {
    F_U32,
    F_I32,
    F_U64,
    F_I64,
    F_U64X4
} field_kind;

typedef struct field {
    const char *name;
    size_t offset;
    field_kind kind;
    uint32_t since; /* first format version with this member */
} field;

typedef struct layout {
    const char *name; /* dataset path */
    const field *fields;
    size_t nfields;
    size_t row_bytes;
    hsize_t chunk_rows; /* 0: fixed one-row contiguous dataset */
} layout;

#define FIELD(type, member, kind)                                                                  \
    {                                                                                              \
#        member, offsetof(type, member), kind, 1                                                   \
    }
#define FIELD4(type, member, kind)                                                                 \
    {                                                                                              \
#        member, offsetof(type, member), kind, 4                                                   \
    }
#define FIELD2(type, member, kind)                                                                 \
    {                                                                                              \
#        member, offsetof(type, member), kind, 2                                                   \
    }

static const field timeline_fields[] = {
    FIELD(store_timeline_row, id, F_U32),       FIELD(store_timeline_row, parent, F_U32),
    FIELD(store_timeline_row, kind, F_U32),     FIELD2(store_timeline_row, crc, F_U32),
    FIELD(store_timeline_row, sort_key, F_I64), FIELD(store_timeline_row, name, F_U64),
};
static const field category_fields[] = {
    FIELD(store_category_row, id, F_U32),   FIELD(store_category_row, kind, F_U32),
    FIELD(store_category_row, rgba, F_U32), FIELD2(store_category_row, crc, F_U32),
    FIELD(store_category_row, name, F_U64), FIELD(store_category_row, group, F_U64),
};
static const field node_fields[] = {
    FIELD(store_node_row, level, F_U32),
    FIELD(store_node_row, flags, F_U32),
    FIELD(store_node_row, t0, F_I64),
    FIELD(store_node_row, t1, F_I64),
    FIELD(store_node_row, subtree_nodes, F_U64),
    FIELD(store_node_row, payload_off, F_U64),
    FIELD(store_node_row, payload_len, F_U64),
    FIELD(store_node_row, preview_off, F_U64),
    FIELD(store_node_row, preview_len, F_U64),
    FIELD(store_node_row, counts, F_U64X4),
    FIELD2(store_node_row, args_off, F_U64),
    FIELD2(store_node_row, args_len, F_U64),
    FIELD2(store_node_row, payload_crc, F_U32),
    FIELD2(store_node_row, preview_crc, F_U32),
    FIELD2(store_node_row, args_crc, F_U32),
    FIELD2(store_node_row, row_crc, F_U32),
    FIELD4(store_node_row, payload_addr, F_U64),
    FIELD4(store_node_row, preview_addr, F_U64),
    FIELD4(store_node_row, args_addr, F_U64),
    FIELD4(store_node_row, payload_zlen, F_U32),
    FIELD4(store_node_row, preview_zlen, F_U32),
    FIELD4(store_node_row, args_zlen, F_U32),
    FIELD4(store_node_row, addr_crc, F_U32),
};
static const field summary_fields[] = {
    FIELD(store_summary, complete, F_U32),      FIELD(store_summary, depth, F_U32),
    FIELD(store_summary, start, F_I64),         FIELD(store_summary, end, F_I64),
    FIELD(store_summary, counts, F_U64X4),      FIELD(store_summary, nodes, F_U64),
    FIELD(store_summary, timelines, F_U64),     FIELD(store_summary, categories, F_U64),
    FIELD(store_summary, strings_bytes, F_U64), FIELD(store_summary, payload_bytes, F_U64),
    FIELD2(store_summary, strings_crc, F_U32),  FIELD2(store_summary, crc, F_U32),
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

enum {
    T_TIMELINES,
    T_CATEGORIES,
    T_NODES,
    T_STRINGS,
    T_SUMMARY,
    T_COUNT
};

static const layout layouts[T_COUNT] = {
    [T_TIMELINES] = {"timelines", timeline_fields, NFIELDS(timeline_fields),
                     sizeof(store_timeline_row), TIMELINE_CHUNK},
    [T_CATEGORIES] = {"categories", category_fields, NFIELDS(category_fields),
                      sizeof(store_category_row), CATEGORY_CHUNK},
    [T_NODES] = {"nodes", node_fields, NFIELDS(node_fields), sizeof(store_node_row), NODE_CHUNK},
    [T_STRINGS] = {"strings", NULL, 0, 1, STRINGS_CHUNK},
    [T_SUMMARY] = {"summary", summary_fields, NFIELDS(summary_fields), sizeof(store_summary), 0},
};

typedef enum payload_mode {
    PAYLOAD_LZ4,      /* pipeline is exactly [32004]: decode chunks ourselves */
    PAYLOAD_RAW,      /* no filter: chunks are the bytes */
    PAYLOAD_PIPELINE, /* anything else: let HDF5 run its filters (H5Dread) */
} payload_mode;

typedef struct table {
    hid_t dset;
    hid_t mtype; /* memory type; owned unless H5T_NATIVE_UINT8 */
    uint64_t rows;
} table;

typedef struct shared_file shared_file;

struct store {
    shared_file *shared; /* reader: the HDF5 handles it shares; NULL: its own */
    hid_t file;
    table t[T_COUNT];
    hid_t payload;
    bool writing;
    bool swmr_read;
    payload_mode mode;
    uint32_t chunk_bytes; /* /payload's actual chunk size */
    uint32_t version;     /* format version of the tables: members since it */
    uint32_t strings_crc; /* writer: CRC32C of every string appended */
    int lz4_level;
    uint64_t payload_extent; /* bytes */
    uint32_t *timeline_ids;  /* writer: id of each /timelines row */
    size_t timeline_ids_cap;
    unsigned char *zbuf; /* compressed chunk */
    size_t zbuf_cap;
    unsigned char *cbuf; /* one decoded chunk */
    size_t cbuf_cap;
    unsigned char *pad;  /* writer: a blob's zero-padded last chunk */
    size_t pad_dirty;    /* writer: pad's bytes from here on are zero */
    char *path;
    int fd;              /* reader: HDF5's POSIX descriptor (sec2 driver), else -1 */
    blob_loc_ring locs;  /* writer: where the last blobs' chunks went (format 4) */
    int lock_fd; /* writer: the flock that refuses a second writer, or -1 */
};

/* ---- the HDF5 lock and errors ------------------------------------------ */

typedef struct h5_guard {
    H5E_auto2_t func;
    void *data;
} h5_guard;

static void h5_enter(h5_guard *g)
{
    util_lock_hdf5();
    if (H5Eget_auto2(H5E_DEFAULT, &g->func, &g->data) < 0) {
        g->func = NULL;
        g->data = NULL;
    }
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    errno = 0; /* h5_err's fallback when HDF5 leaves no message */
}

static void h5_leave(const h5_guard *g)
{
    (void)H5Eclear2(H5E_DEFAULT);
    (void)H5Eset_auto2(H5E_DEFAULT, g->func, g->data);
    util_unlock_hdf5();
}

typedef struct h5_cause {
    char desc[160];
    bool damaged; /* HDF5 saw a truncated file or a bad checksum */
} h5_cause;

/* One line of HDF5's description: its write/read failures carry a ctime()
 * with a newline, the file name and the errno text, as in "file write
 * failed: time = ...\n, filename = '...', ..., error message = 'No space
 * left on device'": keep "file write failed: No space left on device". */
static void cause_text(char *out, size_t cap, const char *desc)
{
    const char *const msg = strstr(desc, "error message = '");
    const char *const cut = strstr(desc, ": time = ");
    if (msg != NULL && cut != NULL) {
        const char *const text = msg + strlen("error message = '");
        const size_t n = strcspn(text, "'");
        (void)snprintf(out, cap, "%.*s: %.*s", (int)(cut - desc), desc, (int)n, text);
    } else {
        (void)snprintf(out, cap, "%s", desc);
    }
    for (char *p = out; *p != '\0'; p++) {
        if ((unsigned char)*p < 0x20) {
            *p = ' ';
        }
    }
}

static herr_t cause_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    h5_cause *const c = data;
    (void)n; /* the innermost message that says something */
    if (c->desc[0] == '\0' && e->desc != NULL && e->desc[0] != '\0') {
        cause_text(c->desc, sizeof c->desc, e->desc);
    }
    if (e->min_num == H5E_TRUNCATED || (e->desc != NULL && strstr(e->desc, "checksum") != NULL)) {
        c->damaged = true;
    }
    return 0;
}

/* The innermost message of the current HDF5 error stack (call under lock). */
static h5_cause h5_last_cause(void)
{
    h5_cause c = {"", false};
    (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, cause_walk, &c);
    return c;
}

static int h5_err(slog_error *err, int code, uint64_t off, const char *path, const char *what)
{
    const int e = errno;
    const h5_cause c = h5_last_cause();
    if (c.desc[0] == '\0' && e != 0) {
        return util_err(err, code, off, path, "%s: %s", what, strerror(e));
    }
    if (c.desc[0] == '\0') {
        return util_err(err, code, off, path, "%s", what);
    }
    return util_err(err, code, off, path, "%s (HDF5: %s)", what, c.desc);
}

static void close_id(hid_t *id, herr_t (*fn)(hid_t))
{
    if (*id >= 0) {
        (void)fn(*id);
        *id = H5I_INVALID_HID;
    }
}

/* ---- filter 32004 ------------------------------------------------------- */

/* A valid LZ4 block expands at most ~255x; refuse to allocate more than that
 * for a chunk whose header may be forged. */
static bool plausible_decoded_size(uint64_t orig, size_t nbytes)
{
    return orig > 0 && orig <= (uint64_t)nbytes * 256u + 64u && orig < (uint64_t)SIZE_MAX / 2;
}

static size_t lz4_filter_decode(size_t nbytes, size_t *buf_size, void **buf)
{
    const uint64_t orig = codec_lz4_decoded_size(*buf, nbytes);
    if (!plausible_decoded_size(orig, nbytes)) {
        return 0;
    }
    void *const out = H5allocate_memory((size_t)orig, false);
    if (out == NULL) {
        return 0;
    }
    if (codec_lz4_decode(*buf, nbytes, out, (size_t)orig) != (size_t)orig) {
        (void)H5free_memory(out);
        return 0;
    }
    (void)H5free_memory(*buf);
    *buf = out;
    *buf_size = (size_t)orig;
    return (size_t)orig;
}

static size_t lz4_filter_encode(
    size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t *buf_size, void **buf)
{
    uint32_t block = MAX_CHUNK_BYTES;
    if (cd_nelmts > 0 && cd_values[0] > 0 && cd_values[0] < MAX_CHUNK_BYTES) {
        block = cd_values[0];
    }
    const int level = cd_nelmts > 1 ? (int)cd_values[1] : 0;
    const size_t cap = codec_lz4_bound(nbytes, block);
    void *const out = cap > 0 ? H5allocate_memory(cap, false) : NULL;
    if (out == NULL) {
        return 0;
    }
    const size_t n = codec_lz4_encode(*buf, nbytes, out, cap, block, level);
    if (n == 0) {
        (void)H5free_memory(out);
        return 0;
    }
    (void)H5free_memory(*buf);
    *buf = out;
    *buf_size = cap;
    return n;
}

/* HDF5 filter callback: returns the new size, 0 on failure (corrupt input
 * included).  Buffers exchanged with HDF5 use its allocator, not util_*. */
static size_t lz4_filter(unsigned flags,
                         size_t cd_nelmts,
                         const unsigned cd_values[],
                         size_t nbytes,
                         size_t *buf_size,
                         void **buf)
{
    if ((flags & H5Z_FLAG_REVERSE) != 0) {
        return lz4_filter_decode(nbytes, buf_size, buf);
    }
    return lz4_filter_encode(cd_nelmts, cd_values, nbytes, buf_size, buf);
}

static const H5Z_class2_t lz4_filter_class = {
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)LZ4_FILTER_ID,
    1,
    1,
    "lz4 (libslog, LZ4_decompress_safe)",
    NULL,
    NULL,
    lz4_filter,
};

static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
static herr_t filter_status = -1;

/* HDF5's own exit handler prints "HDF5: infinite loop closing library" on
 * stderr after some damaged files (a failed metadata read leaks a free-list
 * block inside HDF5, with no object left open).  libslog reports through
 * slog_error only, so it runs the shutdown itself: only when files are
 * still open (a writer never destroyed: they get closed and flushed as
 * before); otherwise exit frees nothing HDF5 holds, which stays reachable.
 * Without effect when the application used HDF5 first. */
static bool h5_close_failed; /* under the HDF5 lock */

static void h5_at_exit(void)
{
    if (util_trylock_hdf5() != 0) {
        return; /* a thread is inside HDF5 while the process exits */
    }
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* nothing printed at exit either */
    /* a file whose close failed (a full disk) crashes HDF5's shutdown in
     * H5F__close_cb (HDF5 1.10.8, measured): then the process just exits */
    if (!h5_close_failed && H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_FILE) > 0) {
        (void)H5close();
    }
    util_unlock_hdf5();
}

static void filter_register_once(void)
{
    if (H5dont_atexit() >= 0) {
        (void)atexit(h5_at_exit);
    }
    h5_guard g;
    h5_enter(&g);
    filter_status = H5Zregister(&lz4_filter_class);
    h5_leave(&g);
}

int store_register_lz4_filter(slog_error *err)
{
    (void)pthread_once(&filter_once, filter_register_once);
    if (filter_status < 0) {
        return util_err(err, SLOG_EIO, UINT64_MAX, NULL,
                        "Failed to register the LZ4 filter id=%d with HDF5", LZ4_FILTER_ID);
    }
    return SLOG_OK;
}

/* ---- types ---------------------------------------------------------------- */

static hid_t base_type(field_kind k, bool file)
{
    switch (k) {
    case F_U32:
        return file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
    case F_I32:
        return file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    case F_I64:
        return file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    case F_U64:
    case F_U64X4:
    default:
        return file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    }
}

/* Compound type of a layout; file types are little-endian with the same
 * offsets as the C struct, so on x86-64 no conversion happens. */
static hid_t make_type(const layout *l, bool file, uint32_t version, size_t row_bytes)
{
    if (l->fields == NULL) {
        return H5Tcopy(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
    }
    const hid_t t = H5Tcreate(H5T_COMPOUND, row_bytes);
    if (t < 0) {
        return H5I_INVALID_HID;
    }
    for (size_t i = 0; i < l->nfields; i++) {
        const field *const f = &l->fields[i];
        if (f->since > version) {
            continue; /* a member the file's version does not have */
        }
        hid_t m = base_type(f->kind, file);
        bool own = false;
        if (f->kind == F_U64X4) {
            const hsize_t dims[1] = {4};
            m = H5Tarray_create2(m, 1, dims);
            own = true;
        }
        const herr_t rc = m < 0 ? -1 : H5Tinsert(t, f->name, f->offset, m);
        if (own && m >= 0) {
            (void)H5Tclose(m);
        }
        if (rc < 0) {
            (void)H5Tclose(t);
            return H5I_INVALID_HID;
        }
    }
    return t;
}

static bool same_integer(hid_t t, hid_t want)
{
    return H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == H5Tget_size(want) &&
           H5Tget_sign(t) == H5Tget_sign(want);
}

static bool member_matches(hid_t mt, const field *f)
{
    const hid_t want = base_type(f->kind, false);
    if (f->kind != F_U64X4) {
        return same_integer(mt, want);
    }
    hsize_t dims[1] = {0};
    if (H5Tget_class(mt) != H5T_ARRAY || H5Tget_array_ndims(mt) != 1 ||
        H5Tget_array_dims2(mt, dims) != 1 || dims[0] != 4) {
        return false;
    }
    const hid_t super = H5Tget_super(mt);
    const bool ok = super >= 0 && same_integer(super, want);
    if (super >= 0) {
        (void)H5Tclose(super);
    }
    return ok;
}

/* Does the file type t hold every field of l with the right type? */
static bool type_matches(hid_t t, const layout *l, uint32_t version)
{
    if (l->fields == NULL) {
        return same_integer(t, H5T_NATIVE_UINT8);
    }
    if (H5Tget_class(t) != H5T_COMPOUND) {
        return false;
    }
    for (size_t i = 0; i < l->nfields; i++) {
        if (l->fields[i].since > version) {
            continue;
        }
        const int idx = H5Tget_member_index(t, l->fields[i].name);
        const hid_t mt = idx < 0 ? H5I_INVALID_HID : H5Tget_member_type(t, (unsigned)idx);
        const bool ok = mt >= 0 && member_matches(mt, &l->fields[i]);
        if (mt >= 0) {
            (void)H5Tclose(mt);
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* ---- lifecycle helpers ----------------------------------------------------- */

/* HDF5's POSIX descriptor of the file (the default sec2 driver), or -1. */
static int file_descriptor(hid_t file)
{
    const hid_t fapl = H5Fget_access_plist(file);
    void *handle = NULL;
    int fd = -1;
    if (fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 &&
        H5Fget_vfd_handle(file, fapl, &handle) >= 0 && handle != NULL) {
        fd = *(const int *)handle;
    }
    if (fapl >= 0) {
        (void)H5Pclose(fapl);
    }
    return fd;
}

static store *store_alloc(const char *path)
{
    store *const s = util_calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    s->file = H5I_INVALID_HID;
    s->payload = H5I_INVALID_HID;
    s->fd = -1;
    s->lock_fd = -1;
    for (int i = 0; i < T_COUNT; i++) {
        s->t[i].dset = H5I_INVALID_HID;
        s->t[i].mtype = H5I_INVALID_HID;
    }
    s->path = util_strdup(path);
    if (s->path == NULL) {
        util_free(s);
        return NULL;
    }
    return s;
}

static herr_t shared_release(store *s);

/* Close every HDF5 object (under lock); returns the file's close status. */
static herr_t store_close_objects(store *s)
{
    if (s->shared != NULL) {
        for (int i = 0; i < T_COUNT; i++) {
            close_id(&s->t[i].mtype, H5Tclose);
        }
        return shared_release(s);
    }
    for (int i = 0; i < T_COUNT; i++) {
        close_id(&s->t[i].dset, H5Dclose);
        close_id(&s->t[i].mtype, H5Tclose);
    }
    close_id(&s->payload, H5Dclose);
    herr_t rc = 0;
    if (s->file >= 0) {
        rc = H5Fclose(s->file);
        h5_close_failed = h5_close_failed || rc < 0;
        s->file = H5I_INVALID_HID;
    }
    return rc;
}

static void store_free(store *s)
{
    if (s->lock_fd >= 0) {
        (void)close(s->lock_fd); /* releases the writer's lock */
    }
    util_free(s->timeline_ids);
    util_free(s->zbuf);
    util_free(s->cbuf);
    util_free(s->pad);
    util_free(s->path);
    util_free(s);
}

/* Bytes of a memory row as HDF5 fills it: a format 2/3 node row keeps the
 * file's 128 bytes, so that the memory type equals the file type and
 * HDF5's conversion is a no-op (a 168-byte memory type made every read of
 * such a file go through HDF5's compound conversion, 4x the CPU of a
 * whole-trace query); expand_node_rows then spreads the rows out. */
static size_t mem_row_bytes(const store *s, int which)
{
    return which == T_NODES && s->version < 4 ? STORE_NODE_ROW_V2_BYTES
                                              : layouts[which].row_bytes;
}

/* Rows read at a stride of mem_row_bytes into an array of store_node_row:
 * move them to their places, last first (they only move up), and zero the
 * format-4 members the file does not have. */
static void expand_node_rows(const store *s, store_node_row *rows, size_t n)
{
    const size_t m = mem_row_bytes(s, T_NODES);
    if (m == sizeof *rows) {
        return;
    }
    for (size_t i = n; i-- > 0;) {
        unsigned char *const to = (unsigned char *)&rows[i];
        memmove(to, (unsigned char *)rows + i * m, m);
        memset(to + m, 0, sizeof *rows - m);
    }
}

static int make_mem_types(store *s)
{
    for (int i = 0; i < T_COUNT; i++) {
        s->t[i].mtype = make_type(&layouts[i], false, s->version, mem_row_bytes(s, i));
        if (s->t[i].mtype < 0) {
            return -1;
        }
    }
    return 0;
}

static int ensure_buf(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) {
        return 0;
    }
    unsigned char *const p = util_realloc(*buf, need);
    if (p == NULL) {
        return -1;
    }
    *buf = p;
    *cap = need;
    return 0;
}

/* ---- writing: attributes and datasets -------------------------------------- */

static herr_t write_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
    const hid_t space = H5Screate(H5S_SCALAR);
    if (space < 0) {
        return -1;
    }
    const hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, mtype, v);
    if (a >= 0 && H5Aclose(a) < 0) {
        rc = -1;
    }
    (void)H5Sclose(space);
    return rc;
}

/* Fixed-length, NUL-terminated string attribute (size = strlen + 1). */
static herr_t write_attr_string(hid_t loc, const char *name, const char *v, size_t len)
{
    char tmp[sizeof(((store_header *)NULL)->creator) + 1];
    if (len >= sizeof tmp) {
        return -1;
    }
    const hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) {
        return -1;
    }
    herr_t rc = -1;
    if (H5Tset_size(t, len + 1) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0) {
        memcpy(tmp, v, len);
        tmp[len] = '\0';
        rc = write_attr(loc, name, t, t, tmp);
    }
    (void)H5Tclose(t);
    return rc;
}

static herr_t write_header_attrs(hid_t root, const store_header *h)
{
    herr_t rc = write_attr_string(root, "slog_magic", STORE_MAGIC, strlen(STORE_MAGIC));
    rc |= write_attr(root, "format_read_version", H5T_STD_U32LE, H5T_NATIVE_UINT32,
                     &h->format_read_version);
    rc |= write_attr(root, "format_write_version", H5T_STD_U32LE, H5T_NATIVE_UINT32,
                     &h->format_write_version);
    rc |= write_attr(root, "ticks_per_second", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                     &h->ticks_per_second);
    rc |= write_attr(root, "fanout", H5T_STD_U32LE, H5T_NATIVE_UINT32, &h->fanout);
    rc |= write_attr(root, "chunk_bytes", H5T_STD_U32LE, H5T_NATIVE_UINT32, &h->chunk_bytes);
    rc |= write_attr(root, "lz4_level", H5T_STD_I32LE, H5T_NATIVE_INT32, &h->lz4_level);
    rc |= write_attr(root, "preview_bytes", H5T_STD_U32LE, H5T_NATIVE_UINT32, &h->preview_bytes);
    rc |= write_attr_string(root, "creator", h->creator, strnlen(h->creator, sizeof h->creator));
    return rc < 0 ? -1 : 0;
}

static hid_t create_dataset(hid_t file, const char *name, hid_t ftype, hsize_t chunk,
                            const unsigned *lz4_cd, unsigned deflate)
{
    const hsize_t zero[1] = {0};
    const hsize_t one[1] = {1};
    const hsize_t unlimited[1] = {H5S_UNLIMITED};
    const hid_t space =
        chunk > 0 ? H5Screate_simple(1, zero, unlimited) : H5Screate_simple(1, one, NULL);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID;
    herr_t rc = space < 0 || dcpl < 0 ? -1 : H5Pset_obj_track_times(dcpl, 0);
    if (rc >= 0 && chunk > 0) {
        const hsize_t dims[1] = {chunk};
        rc = H5Pset_chunk(dcpl, 1, dims);
    } else if (rc >= 0) {
        rc = H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    }
    if (rc >= 0 && lz4_cd != NULL) {
        rc = H5Pset_filter(dcpl, LZ4_FILTER_ID, H5Z_FLAG_MANDATORY, 1, lz4_cd);
    }
    if (rc >= 0 && deflate > 0) {
        rc = H5Pset_deflate(dcpl, deflate);
    }
    if (rc >= 0) {
        d = H5Dcreate2(file, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    }
    if (dcpl >= 0) {
        (void)H5Pclose(dcpl);
    }
    if (space >= 0) {
        (void)H5Sclose(space);
    }
    return d;
}

static int create_tables(store *s)
{
    for (int i = 0; i < T_COUNT; i++) {
        const hid_t ft = make_type(&layouts[i], true, s->version, layouts[i].row_bytes);
        if (ft < 0) {
            return -1;
        }
        const unsigned deflate = i == T_STRINGS ? STRINGS_DEFLATE : 0;
        s->t[i].dset =
            create_dataset(s->file, layouts[i].name, ft, layouts[i].chunk_rows, NULL, deflate);
        (void)H5Tclose(ft);
        if (s->t[i].dset < 0) {
            return -1;
        }
    }
    const unsigned cd[1] = {s->chunk_bytes};
    s->payload = create_dataset(s->file, "payload", H5T_STD_U8LE, s->chunk_bytes, cd, 0);
    return s->payload < 0 ? -1 : 0;
}

static const store_summary empty_summary = {.complete = 0, .start = INT64_MAX, .end = INT64_MIN};

/* path exists and the caller asked not to replace it. */
static int exists_err(const char *path, slog_error *err)
{
    return util_err(err, SLOG_EIO, UINT64_MAX, path, "%s exists (not replaced: no-replace asked)",
                    path);
}

/* Give the made file its name: a rename, or (no_replace) a hard link that
 * fails when path exists, then the temporary name removed; where the file
 * system has no hard links, a rename after one more look.  0, or -1 with
 * errno (EEXIST: path exists). */
static int put_in_place(const char *creating, const char *path, bool no_replace)
{
    if (!no_replace) {
        return rename(creating, path);
    }
    if (link(creating, path) == 0) {
        return unlink(creating);
    }
    struct stat st;
    if (errno == EEXIST || lstat(path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(creating, path);
}

/* The file is made under a temporary name beside path (creating) and
 * renamed to path once it is a whole SWMR file: a kill during the create
 * never leaves path half made (a file that is not yet HDF5). */
static int create_file(store *s, const char *creating, const store_header *hdr, bool no_replace,
                       slog_error *err)
{
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0 ||
        H5Pset_file_locking(fapl, 0, 1) < 0) {
        if (fapl >= 0) {
            (void)H5Pclose(fapl);
        }
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to set up file access");
    }
    /* The 9 root attributes stay in the object header (compact storage)
     * instead of a dense-storage heap and index; no metadata or raw data
     * aggregation blocks (allocated ahead, partly unused in a small file). */
    const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0 && H5Pset_attr_phase_change(fcpl, 16, 14) >= 0 &&
        H5Pset_obj_track_times(fcpl, 0) >= 0 && /* the root group: identical input, identical bytes */
        H5Pset_meta_block_size(fapl, 0) >= 0 && H5Pset_small_data_block_size(fapl, 0) >= 0) {
        s->file = H5Fcreate(creating, H5F_ACC_TRUNC, fcpl, fapl);
    }
    if (fcpl >= 0) {
        (void)H5Pclose(fcpl);
    }
    (void)H5Pclose(fapl);
    if (s->file < 0) {
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Cannot create file");
    }
    const hid_t root = H5Gopen2(s->file, "/", H5P_DEFAULT);
    const herr_t rc = root < 0 ? -1 : write_header_attrs(root, hdr);
    if (root >= 0) {
        (void)H5Gclose(root);
    }
    if (rc < 0) {
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to write root attributes");
    }
    if (make_mem_types(s) < 0 || create_tables(s) < 0) {
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to create datasets");
    }
    store_summary empty = empty_summary;
    empty.crc = store_summary_crc(&empty);
    if (H5Dwrite(s->t[T_SUMMARY].dset, s->t[T_SUMMARY].mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                 &empty) < 0) {
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to write /summary");
    }
    if (H5Fstart_swmr_write(s->file) < 0) {
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to start SWMR writing");
    }
    s->fd = file_descriptor(s->file); /* to check where chunks went */
    if (put_in_place(creating, s->path, no_replace) != 0) {
        return errno == EEXIST && no_replace ? exists_err(s->path, err)
                                             : util_err(err, SLOG_EIO, UINT64_MAX, s->path,
                                                        "Cannot rename %s into place: %s",
                                                        creating, strerror(errno));
    }
    return SLOG_OK;
}

static int locked_error(const store *s, int e, slog_error *err)
{
    return util_err(err, SLOG_EIO, UINT64_MAX, s->path, "%s",
                    e == EWOULDBLOCK ? "File is being written by another writer (locked)"
                                     : strerror(e));
}

/* 0, or the errno of the exclusive flock that an existing PATH refuses us
 * (EWOULDBLOCK: its writer is live).  A reader that caught a live-looking
 * truncated file probes with a shared lock for microseconds
 * (writer_holds_lock): a refusal is asked again twice, 1 ms apart. */
static int existing_file_busy(const char *path)
{
    int busy = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        const int old = open(path, O_RDONLY | O_CLOEXEC);
        busy = old >= 0 && flock(old, LOCK_EX | LOCK_NB) != 0 ? errno : 0;
        if (old >= 0) {
            (void)close(old); /* drops the test lock */
        }
        if (busy != EWOULDBLOCK) {
            break;
        }
        const struct timespec ms = {0, 1000000L};
        (void)nanosleep(&ms, NULL);
    }
    return busy;
}

/* One writer per file: an exclusive flock on a descriptor of our own on
 * the file being made (PATH.creating, renamed to PATH later: the lock goes
 * with the inode), taken before HDF5 truncates anything and held until the
 * store is freed (a killed writer's lock goes with it); an existing PATH
 * still locked by its writer refuses us too.  HDF5's own locking stays off,
 * so readers (which take no lock) open the file while it is written. */
static int lock_for_writing(store *s, const char *creating, slog_error *err)
{
    const int fd = open(creating, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        return util_err(err, SLOG_EIO, UINT64_MAX, s->path, "Cannot create file: %s",
                        strerror(errno));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        (void)close(fd); /* another writer is creating it: not ours to remove */
        return locked_error(s, e, err);
    }
    const int busy = existing_file_busy(s->path);
    if (busy != 0) {
        (void)unlink(creating); /* ours: we hold its lock */
        (void)close(fd);
        return locked_error(s, busy, err);
    }
    s->lock_fd = fd;
    return SLOG_OK;
}

int store_create(store **out, const char *path, const store_header *hdr, unsigned flags,
                 slog_error *err)
{
    *out = NULL;
    const bool no_replace = (flags & STORE_NO_REPLACE) != 0;
    struct stat st;
    if (no_replace && lstat(path, &st) == 0) {
        return exists_err(path, err);
    }
    if (hdr->chunk_bytes == 0 || hdr->chunk_bytes > MAX_CHUNK_BYTES) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path,
                        "Invalid chunk size chunk_bytes=%" PRIu32, hdr->chunk_bytes);
    }
    int rc = store_register_lz4_filter(err);
    if (rc < 0) {
        return rc;
    }
    store *const s = store_alloc(path);
    if (s == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, path, "Out of memory creating the store");
    }
    s->writing = true;
    s->version = STORE_FORMAT_WRITE_VERSION;
    s->mode = PAYLOAD_LZ4;
    s->chunk_bytes = hdr->chunk_bytes;
    s->lz4_level = hdr->lz4_level;
    char creating[4096];
    if (snprintf(creating, sizeof creating, "%s.creating", path) >= (int)sizeof creating) {
        store_free(s);
        return util_err(err, SLOG_EINVAL, UINT64_MAX, path, "File name too long");
    }
    rc = lock_for_writing(s, creating, err);
    if (rc < 0) {
        store_free(s);
        return rc;
    }
    h5_guard g;
    h5_enter(&g);
    rc = create_file(s, creating, hdr, no_replace, err);
    if (rc < 0) {
        (void)store_close_objects(s);
        (void)unlink(creating); /* ours: we hold its lock */
    }
    h5_leave(&g);
    if (rc < 0) {
        store_free(s);
        return rc;
    }
    *out = s;
    return SLOG_OK;
}

/* ---- writing: appends --------------------------------------------------------- */

/* Write n rows at row index first of a 1-D dataset (under lock). */
static herr_t write_rows(hid_t dset, hid_t mtype, hsize_t first, hsize_t n, const void *rows)
{
    const hid_t fspace = H5Dget_space(dset);
    const hsize_t start[1] = {first};
    const hsize_t count[1] = {n};
    const hid_t mspace = H5Screate_simple(1, count, NULL);
    herr_t rc = -1;
    if (fspace >= 0 && mspace >= 0 &&
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0) {
        rc = H5Dwrite(dset, mtype, mspace, fspace, H5P_DEFAULT, rows);
    }
    if (mspace >= 0) {
        (void)H5Sclose(mspace);
    }
    if (fspace >= 0) {
        (void)H5Sclose(fspace);
    }
    return rc;
}

/* Format 2 rows carry a CRC32C of their bytes: set it in place. */
static void seal_rows(const store *s, int which, void *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (which == T_NODES) {
            store_node_row *const r = (store_node_row *)rows + i;
            r->row_crc = store_node_row_crc(r);
            blob_loc_fill_row(&s->locs, r);
        } else if (which == T_TIMELINES) {
            store_timeline_row *const r = (store_timeline_row *)rows + i;
            r->crc = store_timeline_row_crc(r);
        } else if (which == T_CATEGORIES) {
            store_category_row *const r = (store_category_row *)rows + i;
            r->crc = store_category_row_crc(r);
        }
    }
}

/* Rows per H5Dwrite: HDF5 keeps a selection per chunk a write touches
 * (~2.6 KB each, measured: 32 MB for 10^5 timeline rows in one call), and
 * the sealed copy is as large as the batch, so both stay bounded. */
#define WRITE_BATCH_BYTES ((size_t)256 << 10)

/* Write n rows at row index first, sealed (under lock). */
static herr_t write_sealed(store *s, int which, hsize_t first, const void *rows, size_t n)
{
    const size_t row = layouts[which].row_bytes;
    const size_t batch = WRITE_BATCH_BYTES / row > 0 ? WRITE_BATCH_BYTES / row : 1;
    void *copy = NULL;
    if (which != T_STRINGS) {
        copy = util_malloc((n < batch ? n : batch) * row);
        if (copy == NULL) {
            return -1;
        }
    }
    herr_t rc = 0;
    for (size_t done = 0; done < n && rc >= 0; done += batch) {
        const size_t k = n - done < batch ? n - done : batch;
        const void *src = (const unsigned char *)rows + done * row;
        if (copy != NULL) {
            memcpy(copy, src, k * row);
            seal_rows(s, which, copy, k);
            src = copy;
        }
        rc = write_rows(s->t[which].dset, s->t[which].mtype, first + done, k, src);
    }
    util_free(copy);
    return rc;
}

static int append_rows(store *s, int which, const void *rows, size_t n, slog_error *err)
{
    if (!s->writing) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, s->path, "Store is read-only");
    }
    if (n == 0) {
        return SLOG_OK;
    }
    table *const t = &s->t[which];
    const hsize_t size[1] = {t->rows + n};
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    if (H5Dset_extent(t->dset, size) < 0 || write_sealed(s, which, t->rows, rows, n) < 0) {
        char what[64];
        (void)snprintf(what, sizeof what, "Failed to append to /%s", layouts[which].name);
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, s->path, what);
    } else {
        t->rows += n;
    }
    h5_leave(&g);
    return rc;
}

int store_append_strings(store *s, const void *bytes, size_t n, slog_error *err)
{
    const int rc = append_rows(s, T_STRINGS, bytes, n, err);
    if (rc == SLOG_OK && n > 0) {
        s->strings_crc = codec_crc32c(s->strings_crc, bytes, n);
    }
    return rc;
}

static int remember_timeline_ids(store *s, const store_timeline_row *rows, size_t n)
{
    const size_t have = (size_t)s->t[T_TIMELINES].rows;
    void *p = s->timeline_ids;
    if (util_grow(&p, &s->timeline_ids_cap, have + n, sizeof(uint32_t)) < 0) {
        return -1;
    }
    s->timeline_ids = p;
    for (size_t i = 0; i < n; i++) {
        s->timeline_ids[have + i] = rows[i].id;
    }
    return 0;
}

int store_append_timelines(store *s, const store_timeline_row *rows, size_t n, slog_error *err)
{
    if (s->writing && remember_timeline_ids(s, rows, n) < 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, s->path, "Out of memory for timeline ids");
    }
    return append_rows(s, T_TIMELINES, rows, n, err);
}

int store_update_timeline(store *s, const store_timeline_row *row, slog_error *err)
{
    if (!s->writing) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, s->path, "Store is read-only");
    }
    const size_t rows = (size_t)s->t[T_TIMELINES].rows;
    size_t idx = row->id < rows && s->timeline_ids[row->id] == row->id ? row->id : SIZE_MAX;
    for (size_t i = 0; idx == SIZE_MAX && i < rows; i++) {
        idx = s->timeline_ids[i] == row->id ? i : SIZE_MAX;
    }
    if (idx == SIZE_MAX) {
        return util_err(err, SLOG_EINVAL, UINT64_MAX, s->path,
                        "Cannot update timeline id=%" PRIu32 ": not written", row->id);
    }
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    if (write_sealed(s, T_TIMELINES, idx, row, 1) < 0) {
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to update /timelines");
    }
    h5_leave(&g);
    return rc;
}

int store_append_categories(store *s, const store_category_row *rows, size_t n, slog_error *err)
{
    return append_rows(s, T_CATEGORIES, rows, n, err);
}

int store_append_nodes(store *s, const store_node_row *rows, size_t n, slog_error *err)
{
    return append_rows(s, T_NODES, rows, n, err);
}

/* A short last chunk of len bytes in pad, zeros after it up to `need`
 * (its content block, codec_lz4_padded_block): only what an earlier chunk
 * wrote there is cleared. */
static const unsigned char *pad_chunk(store *s, const unsigned char *src, size_t len, size_t need)
{
    memcpy(s->pad, src, len);
    if (s->pad_dirty > len) {
        memset(s->pad + len, 0, (s->pad_dirty < need ? s->pad_dirty : need) - len);
    }
    s->pad_dirty = s->pad_dirty > need ? s->pad_dirty : len;
    return s->pad;
}

/* Compress chunk i of the blob (zero-padding a short last chunk) into zbuf
 * as the gate says. */
static size_t encode_chunk(store *s, const unsigned char *raw, size_t n, size_t i,
                           codec_lz4_gate *gate)
{
    const size_t cb = s->chunk_bytes;
    const size_t off = i * cb;
    const size_t len = n - off < cb ? n - off : cb;
    const unsigned char *const src =
        len < cb ? pad_chunk(s, raw + off, len, codec_lz4_padded_block(len, cb)) : raw + off;
    return codec_lz4_encode_chunk(src, len, cb, s->zbuf, s->zbuf_cap, gate);
}

/* The file address of the chunk of z bytes (in zbuf) just written (under
 * lock).  HDF5 puts a new chunk at the end of the allocated space unless it
 * reuses freed space, so the guess is the end of file before the write
 * (eoa_before), kept only if the file holds the chunk's first bytes there:
 * H5Dget_chunk_info_by_coord would say for sure, but in HDF5 1.10 it walks
 * the whole chunk index (O(chunks) per call, +55 % of a 10^7-state write).
 * 0 when it cannot tell; a reader checks every blob's CRC anyway. */
static uint64_t chunk_address(const store *s, haddr_t eoa_before, size_t z)
{
    haddr_t eoa = HADDR_UNDEF;
    unsigned char head[64];
    const size_t n = z < sizeof head ? z : sizeof head;
    if (s->fd < 0 || eoa_before == HADDR_UNDEF || eoa_before == 0 ||
        H5Fget_eoa(s->file, &eoa) < 0 || eoa == HADDR_UNDEF || eoa < eoa_before + z ||
        pread(s->fd, head, n, (off_t)eoa_before) != (ssize_t)n || memcmp(head, s->zbuf, n) != 0) {
        return 0;
    }
    return (uint64_t)eoa_before;
}

static int write_blob_chunks(store *s, const unsigned char *raw, size_t n, size_t nchunks,
                             codec_lz4_gate *gate, slog_error *err)
{
    const uint64_t first = s->payload_extent / s->chunk_bytes;
    chunk_span span = {0, 0, false};
    for (size_t i = 0; i < nchunks; i++) {
        const size_t z = encode_chunk(s, raw, n, i, gate);
        if (z == 0) {
            return util_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to compress a chunk");
        }
        const hsize_t off[1] = {(first + i) * s->chunk_bytes};
        h5_guard g;
        h5_enter(&g);
        haddr_t eoa = HADDR_UNDEF;
        if (H5Fget_eoa(s->file, &eoa) < 0) {
            eoa = HADDR_UNDEF;
        }
        const herr_t rc = H5Dwrite_chunk(s->payload, H5P_DEFAULT, 0, off, z, s->zbuf);
        const int code =
            rc < 0 ? h5_err(err, SLOG_EIO, off[0], s->path, "Failed to write a /payload chunk")
                   : SLOG_OK;
        chunk_span_add(&span, i, code == SLOG_OK ? chunk_address(s, eoa, z) : 0, z);
        h5_leave(&g);
        if (code < 0) {
            return code;
        }
    }
    blob_loc_put(&s->locs, first * s->chunk_bytes, &span);
    return SLOG_OK;
}

int store_append_blob(store *s, const void *raw, size_t n, uint64_t *offset, slog_error *err)
{
    codec_lz4_gate gate = {s->lz4_level, 0, 0};
    return store_append_blob_gated(s, raw, n, &gate, offset, err);
}

/* zbuf for one encoded chunk, and pad zeroed once (pad_chunk keeps it so). */
static int ensure_write_bufs(store *s, size_t cb)
{
    if (s->pad == NULL) {
        s->pad = util_calloc(cb, 1);
        s->pad_dirty = 0;
    }
    if (s->pad == NULL) {
        return -1;
    }
    return ensure_buf(&s->zbuf, &s->zbuf_cap, codec_lz4_bound(cb, (uint32_t)cb));
}

int store_append_blob_gated(store *s, const void *raw, size_t n, codec_lz4_gate *gate,
                            uint64_t *offset, slog_error *err)
{
    if (!s->writing) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, s->path, "Store is read-only");
    }
    *offset = s->payload_extent;
    if (n == 0) {
        return SLOG_OK;
    }
    const size_t cb = s->chunk_bytes;
    const size_t nchunks = (n - 1) / cb + 1;
    if (ensure_write_bufs(s, cb) < 0) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, s->path, "Out of memory for a chunk");
    }
    const hsize_t size[1] = {s->payload_extent + (uint64_t)nchunks * cb};
    h5_guard g;
    h5_enter(&g);
    const int rc = H5Dset_extent(s->payload, size) < 0
                       ? h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to extend /payload")
                       : SLOG_OK;
    h5_leave(&g);
    if (rc < 0) {
        return rc;
    }
    const int wrc = write_blob_chunks(s, raw, n, nchunks, gate, err);
    /* The extent already covers the chunks; keep offsets chunk-aligned even
     * after a failed write (the writer's error is sticky anyway). */
    s->payload_extent = size[0];
    return wrc;
}

int store_write_summary(store *s, const store_summary *sum, slog_error *err)
{
    if (!s->writing) {
        return util_err(err, SLOG_ESTATE, UINT64_MAX, s->path, "Store is read-only");
    }
    store_summary sealed = *sum;
    sealed.strings_crc = s->strings_crc;
    sealed.crc = store_summary_crc(&sealed);
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    if (H5Dwrite(s->t[T_SUMMARY].dset, s->t[T_SUMMARY].mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                 &sealed) < 0) {
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to write /summary");
    }
    h5_leave(&g);
    return rc;
}

int store_flush(store *s, slog_error *err)
{
    if (!s->writing) {
        return SLOG_OK;
    }
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    if (H5Fflush(s->file, H5F_SCOPE_LOCAL) < 0) {
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to flush");
    }
    h5_leave(&g);
    return rc;
}

/* ---- opening ------------------------------------------------------------------ */

/* A reader's blob reads land far apart in a big file (a 1000-pixel view of
 * a 9 GB file reads ~130 blobs): tell the kernel not to read ahead around
 * each, which was half of such a query's time (doc/PERFORMANCE.md, "Flat
 * cost").  Only HDF5's default sec2 driver hands out a POSIX descriptor;
 * any failure just leaves the default readahead. */
static void advise_random_access(store *s)
{
    s->fd = file_descriptor(s->file);
    if (s->fd >= 0) {
        (void)posix_fadvise(s->fd, 0, 0, POSIX_FADV_RANDOM);
    }
}

/* Superblock version 2 or 3 (at byte 0: the only kind a SWMR writer
 * makes): does it carry the "open for writing" or "SWMR writer"
 * consistency flag (byte 11, bits 0 and 2), and does the file already
 * reach the end it records (base address + end-of-file address, u64 LE at
 * bytes 12 and 28)?  Read directly: HDF5 refuses such a file plainly. */
static bool superblock_marks_writer(const char *path, bool *reaches_eof)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char b[36];
    struct stat st;
    FILE *const f = fopen(path, "rb");
    const bool got = f != NULL && fread(b, 1, sizeof b, f) == sizeof b && fstat(fileno(f), &st) == 0;
    if (f != NULL) {
        (void)fclose(f);
    }
    if (!got || memcmp(b, sig, sizeof sig) != 0 || (b[8] != 2 && b[8] != 3) || b[9] != 8 ||
        (b[11] & 0x05u) == 0) {
        return false;
    }
    uint64_t base = 0, eof = 0;
    for (int i = 7; i >= 0; i--) {
        base = base << 8 | b[12 + i];
        eof = eof << 8 | b[28 + i];
    }
    *reaches_eof = (uint64_t)st.st_size >= eof && (uint64_t)st.st_size - eof >= base;
    return true;
}

#define LIVE_EOF_WAITS 10u /* 1 + 2 + .. + 512 ms */

/* Does a live libslog writer hold the file (its exclusive flock,
 * lock_for_writing)?  A shared lock taken and dropped at once on a
 * descriptor of our own fails only while it does; a killed writer's lock
 * went with its process. */
static bool writer_holds_lock(const char *path)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    (void)close(fd); /* drops the lock if we got it */
    return held;
}

typedef enum live_verdict {
    LIVE_DAMAGED, /* marked open for writing, never reaches its end */
    LIVE_SWMR,    /* a live writer, caught up: open with SWMR read */
    LIVE_CLOSED,  /* not (or no longer) marked: try the plain open again */
} live_verdict;

/* A plain open that catches a live writer mid-flush may see the file end
 * before the end its superblock records ("truncated"): that is no damage
 * when the superblock marks the file open for writing, a writer still
 * holds its lock, and the file reaches that end a moment later (waits of
 * 1, 2, 4 .. 512 ms, about 1 s in all: a writer descheduled on a loaded
 * machine or slowed by a sanitizer took more than 127 ms), nor when the
 * writer has closed the file since.  A killed writer's truncated file
 * (no lock) is damaged at once. */
static live_verdict live_writer_verdict(const char *path)
{
    for (unsigned k = 0; k < LIVE_EOF_WAITS; k++) {
        bool reaches = false;
        if (!superblock_marks_writer(path, &reaches)) {
            return LIVE_CLOSED;
        }
        if (reaches) {
            return LIVE_SWMR;
        }
        if (!writer_holds_lock(path)) {
            return superblock_marks_writer(path, &reaches) ? LIVE_DAMAGED : LIVE_CLOSED;
        }
        const struct timespec ts = {0, (1L << k) * 1000000L};
        (void)nanosleep(&ts, NULL);
    }
    return LIVE_DAMAGED;
}

/* The plain read-only open; *cause gets HDF5's reason when it fails.  true
 * when the file is damaged: no SWMR retry (a file that looks closed, or
 * a killed writer's); open_file tries again while a writer holds its lock. */
static bool open_plain(store *s, hid_t fapl, h5_cause *cause)
{
    s->file = H5Fopen(s->path, H5F_ACC_RDONLY, fapl);
    *cause = h5_last_cause();
    if (s->file >= 0 || !cause->damaged) {
        return false;
    }
    const live_verdict v = live_writer_verdict(s->path);
    return v != LIVE_SWMR;
}

/* The plain open, then (a live or killed writer's file) the SWMR-read one;
 * *c gets the cause of the failure that says most. */
static void open_plain_or_swmr(store *s, hid_t fapl, h5_cause *c)
{
    if (open_plain(s, fapl, c) || s->file >= 0) {
        return;
    }
    (void)H5Eclear2(H5E_DEFAULT);
    /* SWMR readers retry a metadata read whose checksum fails (the
     * writer may be mid-write), 100 times by default with growing
     * sleeps: a damaged file would then take minutes to refuse. */
    (void)H5Pset_metadata_read_attempts(fapl, SWMR_READ_ATTEMPTS);
    s->file = H5Fopen(s->path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
    s->swmr_read = s->file >= 0;
    const h5_cause c2 = s->file < 0 ? h5_last_cause() : *c;
    if (c2.damaged) {
        *c = c2;
    }
}

/* Open read-only; a file still marked open for write (killed writer, or a
 * live one) opens with SWMR read.  File locking is off: readers never write,
 * and a lock would stop them from following a live writer. */
static int open_file(store *s, slog_error *err)
{
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* No sieve buffer: /summary (the one contiguous dataset) is rewritten
     * in place by a live writer, and a reader that caught it half written
     * must read it again from the file, not from HDF5's copy. */
    if (fapl < 0 || H5Pset_file_locking(fapl, 0, 1) < 0 || H5Pset_sieve_buf_size(fapl, 0) < 0) {
        if (fapl >= 0) {
            (void)H5Pclose(fapl);
        }
        return h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to set up file access");
    }
    h5_cause c;
    bool last = false;
    for (unsigned attempt = 0; attempt < LIVE_EOF_WAITS; attempt++) {
        open_plain_or_swmr(s, fapl, &c);
        /* A writer closing the file rewrites its superblock (flags cleared)
         * before the file reaches its final length: an open in that window
         * fails (1 of 560 opens under a sanitizer at load 7), and a
         * superblock read torn by that rewrite looks closed.  Try again
         * (waits 1 .. 512 ms) while the writer holds its lock, and once
         * after it let go (it has then finished the file). */
        if (s->file >= 0 || !c.damaged || last) {
            break;
        }
        last = !writer_holds_lock(s->path);
        (void)H5Eclear2(H5E_DEFAULT);
        const struct timespec ts = {0, (1L << attempt) * 1000000L};
        (void)nanosleep(&ts, NULL);
    }
    (void)H5Pclose(fapl);
    if (s->file >= 0) {
        advise_random_access(s);
        return SLOG_OK;
    }
    /* precheck_path saw the HDF5 signature: truncation and checksum
     * failures mean a damaged file, anything else a file we cannot read. */
    if (c.damaged) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                        "Damaged HDF5 file: truncated or bad checksum (HDF5: %s)", c.desc);
    }
    return util_err(err, SLOG_EFORMAT, UINT64_MAX, s->path,
                    "Cannot open as HDF5, damaged or not HDF5 (HDF5: %s)", c.desc);
}

static bool scalar_space(hid_t a)
{
    const hid_t sp = H5Aget_space(a);
    const bool ok = sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1;
    if (sp >= 0) {
        (void)H5Sclose(sp);
    }
    return ok;
}

static int
read_attr_int(store *s, hid_t root, const char *name, hid_t mtype, void *out, slog_error *err)
{
    if (H5Aexists(root, name) <= 0) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, "Missing root attribute name=%s",
                        name);
    }
    const hid_t a = H5Aopen(root, name, H5P_DEFAULT);
    const hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    const bool ok =
        t >= 0 && same_integer(t, mtype) && scalar_space(a) && H5Aread(a, mtype, out) >= 0;
    if (t >= 0) {
        (void)H5Tclose(t);
    }
    if (a >= 0) {
        (void)H5Aclose(a);
    }
    return ok ? SLOG_OK
              : util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                         "Bad type or value of root attribute name=%s", name);
}

/* Read a fixed-length string attribute into buf (NUL-terminated, cut to
 * cap - 1).  Returns 0, or -1 when missing or of another type. */
static int read_attr_string(hid_t root, const char *name, char *buf, size_t cap)
{
    if (H5Aexists(root, name) <= 0) {
        return -1;
    }
    const hid_t a = H5Aopen(root, name, H5P_DEFAULT);
    const hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    const size_t size = t < 0 ? 0 : H5Tget_size(t);
    bool ok = t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0 && size > 0 &&
              size <= MAX_STRING_ATTR && scalar_space(a);
    char tmp[MAX_STRING_ATTR + 1] = {0};
    ok = ok && H5Aread(a, t, tmp) >= 0;
    if (ok) {
        const size_t len = strnlen(tmp, size);
        const size_t keep = len < cap - 1 ? len : cap - 1;
        memcpy(buf, tmp, keep);
        buf[keep] = '\0';
    }
    if (t >= 0) {
        (void)H5Tclose(t);
    }
    if (a >= 0) {
        (void)H5Aclose(a);
    }
    return ok ? 0 : -1;
}

static int check_magic_and_version(store *s, hid_t root, store_header *h, slog_error *err)
{
    char magic[32];
    if (read_attr_string(root, "slog_magic", magic, sizeof magic) < 0 ||
        strcmp(magic, STORE_MAGIC) != 0) {
        return util_err(err, SLOG_EFORMAT, UINT64_MAX, s->path,
                        "Not a libslog file (HDF5 without a slog_magic attribute)");
    }
    int rc = read_attr_int(s, root, "format_read_version", H5T_NATIVE_UINT32,
                           &h->format_read_version, err);
    if (rc < 0) {
        return rc;
    }
    if (h->format_read_version > STORE_FORMAT_READ_VERSION) {
        return util_err(err, SLOG_EVERSION, UINT64_MAX, s->path,
                        "File needs format read version %" PRIu32
                        ", this library reads up to version %d",
                        h->format_read_version, STORE_FORMAT_READ_VERSION);
    }
    if (h->format_read_version == 0) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                        "Bad root attribute format_read_version=0");
    }
    return SLOG_OK;
}

static int read_header(store *s, hid_t root, store_header *h, slog_error *err)
{
    memset(h, 0, sizeof *h);
    int rc = check_magic_and_version(s, root, h, err);
    if (rc == SLOG_OK) {
        rc = read_attr_int(s, root, "format_write_version", H5T_NATIVE_UINT32,
                           &h->format_write_version, err);
    }
    if (rc == SLOG_OK) {
        rc = read_attr_int(s, root, "ticks_per_second", H5T_NATIVE_UINT64, &h->ticks_per_second,
                           err);
    }
    if (rc == SLOG_OK) {
        rc = read_attr_int(s, root, "fanout", H5T_NATIVE_UINT32, &h->fanout, err);
    }
    if (rc == SLOG_OK) {
        rc = read_attr_int(s, root, "chunk_bytes", H5T_NATIVE_UINT32, &h->chunk_bytes, err);
    }
    if (rc == SLOG_OK) {
        rc = read_attr_int(s, root, "lz4_level", H5T_NATIVE_INT32, &h->lz4_level, err);
    }
    if (rc == SLOG_OK) {
        rc = read_attr_int(s, root, "preview_bytes", H5T_NATIVE_UINT32, &h->preview_bytes, err);
    }
    if (rc == SLOG_OK && read_attr_string(root, "creator", h->creator, sizeof h->creator) < 0) {
        rc = util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                      "Missing or bad root attribute name=creator");
    }
    return rc;
}

/* ---- readers of one file share its HDF5 handles ----------------------------------
 * HDF5 shares one open file, and one open dataset, between all handles of
 * a process on the same file; H5Drefresh then cannot drop a dataset's
 * cached chunk index while another handle holds it open, and a reader
 * refreshing beside another would read stale chunks.  So every reading
 * store of one file (device and inode) uses the same file and dataset
 * handles, counted; a refresh by one is seen by all (what each sees is
 * bounded by its own summary, and the datasets only grow).  The list is
 * read and changed under the HDF5 lock. */
struct shared_file {
    dev_t dev;
    ino_t ino;
    unsigned refs;
    bool swmr_read;
    hid_t file, payload;
    hid_t dset[T_COUNT];
    shared_file *next;
};

static shared_file *shared_files;

static shared_file *shared_find(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return NULL;
    }
    for (shared_file *f = shared_files; f != NULL; f = f->next) {
        if (f->dev == st.st_dev && f->ino == st.st_ino) {
            return f;
        }
    }
    return NULL;
}

static hid_t shared_payload(const shared_file *f)
{
    return f->payload;
}

static hid_t shared_dset(const shared_file *f, int which)
{
    return f->dset[which];
}

/* s uses f's file (f found by shared_find; datasets follow in open_datasets). */
static void shared_join(store *s)
{
    s->file = s->shared->file;
    s->swmr_read = s->shared->swmr_read;
    s->fd = file_descriptor(s->file);
    s->shared->refs++;
}

/* The first reader of a file hands its handles to a new shared entry. */
static int shared_add(store *s)
{
    struct stat st;
    shared_file *const f = util_calloc(1, sizeof *f);
    if (f == NULL || stat(s->path, &st) != 0) {
        util_free(f);
        return f == NULL ? -1 : 0; /* cannot stat: keep the handles private */
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->refs = 1;
    f->swmr_read = s->swmr_read;
    f->file = s->file;
    f->payload = s->payload;
    for (int i = 0; i < T_COUNT; i++) {
        f->dset[i] = s->t[i].dset;
    }
    f->next = shared_files;
    shared_files = f;
    s->shared = f;
    return 0;
}

/* Drop s's use of its shared handles; the last user closes them. */
static herr_t shared_release(store *s)
{
    shared_file *const f = s->shared;
    s->shared = NULL;
    s->fd = -1;
    s->file = s->payload = H5I_INVALID_HID;
    for (int i = 0; i < T_COUNT; i++) {
        s->t[i].dset = H5I_INVALID_HID;
    }
    if (--f->refs > 0) {
        return 0;
    }
    for (shared_file **p = &shared_files; *p != NULL; p = &(*p)->next) {
        if (*p == f) {
            *p = f->next;
            break;
        }
    }
    for (int i = 0; i < T_COUNT; i++) {
        close_id(&f->dset[i], H5Dclose);
    }
    close_id(&f->payload, H5Dclose);
    const herr_t rc = H5Fclose(f->file);
    util_free(f);
    return rc;
}

/* Open the 1-D dataset l->name and check its element type; *extent gets
 * its size. */
static int open_dataset(store *s, const layout *l, hid_t reuse, hid_t *out, uint64_t *extent,
                        slog_error *err)
{
    const char *const name = l->name;
    if (reuse < 0 && H5Lexists(s->file, name, H5P_DEFAULT) <= 0) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, "Missing dataset /%s", name);
    }
    *out = reuse >= 0 ? reuse : H5Dopen2(s->file, name, H5P_DEFAULT);
    const hid_t t = *out < 0 ? H5I_INVALID_HID : H5Dget_type(*out);
    const hid_t sp = *out < 0 ? H5I_INVALID_HID : H5Dget_space(*out);
    hsize_t dims[1] = {0};
    const bool ok = t >= 0 && sp >= 0 && type_matches(t, l, s->version) &&
                    H5Sget_simple_extent_ndims(sp) == 1 &&
                    H5Sget_simple_extent_dims(sp, dims, NULL) == 1;
    if (t >= 0) {
        (void)H5Tclose(t);
    }
    if (sp >= 0) {
        (void)H5Sclose(sp);
    }
    *extent = dims[0];
    if (!ok) {
        char what[80];
        (void)snprintf(
            what, sizeof what,
            *out < 0 ? "Cannot open dataset /%s" : "Dataset /%s has the wrong type or shape", name);
        return h5_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, what);
    }
    return SLOG_OK;
}

static payload_mode mode_of_pipeline(hid_t dcpl)
{
    const int n = H5Pget_nfilters(dcpl);
    if (n == 0) {
        return PAYLOAD_RAW;
    }
    if (n != 1) {
        return PAYLOAD_PIPELINE;
    }
    unsigned flags = 0;
    size_t nelmts = 0;
    unsigned config = 0;
    const H5Z_filter_t id = H5Pget_filter2(dcpl, 0, &flags, &nelmts, NULL, 0, NULL, &config);
    return id == LZ4_FILTER_ID ? PAYLOAD_LZ4 : PAYLOAD_PIPELINE;
}

/* /payload: u8, chunked; read the real chunk size and filter pipeline (a
 * repack may have changed both). */
static int open_payload(store *s, slog_error *err)
{
    const layout bytes = {"payload", NULL, 0, 1, 0};
    const hid_t reuse = s->shared != NULL ? shared_payload(s->shared) : H5I_INVALID_HID;
    int rc = open_dataset(s, &bytes, reuse, &s->payload, &s->payload_extent, err);
    if (rc < 0) {
        return rc;
    }
    const hid_t dcpl = H5Dget_create_plist(s->payload);
    hsize_t chunk[1] = {0};
    const bool chunked =
        dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, chunk) == 1;
    if (chunked) {
        s->mode = mode_of_pipeline(dcpl);
    } else if (dcpl >= 0 && H5Pget_layout(dcpl) >= 0) {
        s->mode = PAYLOAD_PIPELINE; /* contiguous or compact after a repack */
        chunk[0] = PIPELINE_READ_BYTES;
    }
    if (dcpl >= 0) {
        (void)H5Pclose(dcpl);
    }
    if (chunk[0] == 0 || chunk[0] > MAX_CHUNK_BYTES) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                        "Bad layout of dataset /payload chunk=%" PRIu64, (uint64_t)chunk[0]);
    }
    s->chunk_bytes = (uint32_t)chunk[0];
    return SLOG_OK;
}

static int open_datasets(store *s, slog_error *err)
{
    for (int i = 0; i < T_COUNT; i++) {
        const hid_t reuse = s->shared != NULL ? shared_dset(s->shared, i) : H5I_INVALID_HID;
        const int rc = open_dataset(s, &layouts[i], reuse, &s->t[i].dset, &s->t[i].rows, err);
        if (rc < 0) {
            return rc;
        }
    }
    if (s->t[T_SUMMARY].rows != 1) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                        "Dataset /summary has %" PRIu64 " rows instead of 1", s->t[T_SUMMARY].rows);
    }
    const int rc = open_payload(s, err);
    if (rc < 0) {
        return rc;
    }
    if (make_mem_types(s) < 0) {
        return h5_err(err, SLOG_ENOMEM, UINT64_MAX, s->path, "Failed to build memory types");
    }
    return SLOG_OK;
}

static int open_store(store *s, store_header *hdr, slog_error *err)
{
    s->shared = shared_find(s->path);
    int rc = SLOG_OK;
    if (s->shared != NULL) {
        shared_join(s);
    } else {
        rc = open_file(s, err);
    }
    if (rc < 0) {
        return rc;
    }
    const hid_t root = H5Gopen2(s->file, "/", H5P_DEFAULT);
    if (root < 0) {
        return h5_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, "Cannot open the root group");
    }
    rc = read_header(s, root, hdr, err);
    (void)H5Gclose(root);
    if (rc < 0) {
        return rc;
    }
    s->lz4_level = hdr->lz4_level;
    s->version = hdr->format_write_version; /* the members its tables have */
    rc = open_datasets(s, err);
    if (rc == SLOG_OK && s->shared == NULL && shared_add(s) != 0) {
        rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, s->path, "Out of memory opening the store");
    }
    return rc;
}

/* Refuse what HDF5 cannot tell apart from damage: a missing or non-HDF5 file. */
static int precheck_path(const char *path, slog_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return util_err(err, SLOG_EIO, UINT64_MAX, path, "Cannot open file: %s", strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return util_err(err, SLOG_EFORMAT, UINT64_MAX, path, "Not a regular file");
    }
    if (access(path, R_OK) != 0) {
        return util_err(err, SLOG_EIO, UINT64_MAX, path, "Cannot read file: %s", strerror(errno));
    }
    h5_guard g;
    h5_enter(&g);
    const htri_t is = H5Fis_hdf5(path);
    h5_leave(&g);
    if (is < 0) { /* HDF5 could not look: the system may say why (no descriptor left...) */
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            return util_err(err, SLOG_EIO, UINT64_MAX, path, "Cannot open file: %s",
                            strerror(errno));
        }
        (void)close(fd);
    }
    if (is <= 0) {
        return util_err(err, SLOG_EFORMAT, UINT64_MAX, path, "Not an HDF5 file");
    }
    return SLOG_OK;
}

int store_open(store **out, const char *path, store_header *hdr, slog_error *err)
{
    *out = NULL;
    int rc = store_register_lz4_filter(err);
    if (rc == SLOG_OK) {
        rc = precheck_path(path, err);
    }
    if (rc < 0) {
        return rc;
    }
    store *const s = store_alloc(path);
    if (s == NULL) {
        return util_err(err, SLOG_ENOMEM, UINT64_MAX, path, "Out of memory opening the store");
    }
    h5_guard g;
    h5_enter(&g);
    rc = open_store(s, hdr, err);
    if (rc < 0) {
        (void)store_close_objects(s);
    }
    h5_leave(&g);
    if (rc < 0) {
        store_free(s);
        return rc;
    }
    *out = s;
    return SLOG_OK;
}

/* ---- reading tables ------------------------------------------------------------ */

/* Members newer than the file's version read as 0 (HDF5's conversion
 * leaves the bytes outside the memory type's members undefined). */
static void clear_absent_members(const store *s, int which, void *rows, size_t n)
{
    const layout *const l = &layouts[which];
    for (size_t f = 0; f < l->nfields; f++) {
        if (l->fields[f].since <= s->version) {
            continue;
        }
        const size_t size = l->fields[f].kind == F_U32 || l->fields[f].kind == F_I32 ? 4 : 8;
        for (size_t i = 0; i < n; i++) {
            memset((unsigned char *)rows + i * l->row_bytes + l->fields[f].offset, 0, size);
        }
    }
}

static int read_rows(store *s, int which, void **rows, uint64_t *n, slog_error *err)
{
    *rows = NULL;
    *n = 0;
    table *const t = &s->t[which];
    const size_t row = layouts[which].row_bytes;
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    hsize_t dims[1] = {0};
    const hid_t sp =
        (s->swmr_read && H5Drefresh(t->dset) < 0) ? H5I_INVALID_HID : H5Dget_space(t->dset);
    char what[80];
    (void)snprintf(what, sizeof what, "Failed to read the /%s table", layouts[which].name);
    if (sp < 0 || H5Sget_simple_extent_dims(sp, dims, NULL) != 1) {
        rc = h5_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, what);
    } else if (dims[0] > 0) {
        void *const buf = dims[0] <= SIZE_MAX / row ? util_malloc((size_t)dims[0] * row) : NULL;
        if (buf == NULL) {
            rc = util_err(err, SLOG_ENOMEM, UINT64_MAX, s->path,
                          "Out of memory reading /%s rows=%" PRIu64, layouts[which].name,
                          (uint64_t)dims[0]);
        } else if (H5Dread(t->dset, t->mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            util_free(buf);
            rc = h5_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, what);
        } else {
            if (which == T_NODES) {
                expand_node_rows(s, buf, (size_t)dims[0]);
            }
            clear_absent_members(s, which, buf, (size_t)dims[0]);
            *rows = buf;
            *n = dims[0];
            t->rows = dims[0];
        }
    }
    if (sp >= 0) {
        (void)H5Sclose(sp);
    }
    h5_leave(&g);
    return rc;
}

int store_read_summary(store *s, store_summary *sum, slog_error *err)
{
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    memset(sum, 0, sizeof *sum);
    if (H5Dread(s->t[T_SUMMARY].dset, s->t[T_SUMMARY].mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, sum) <
        0) {
        rc = h5_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path, "Failed to read /summary");
    }
    h5_leave(&g);
    clear_absent_members(s, T_SUMMARY, sum, 1);
    return rc;
}

int store_read_strings(store *s, char **bytes, uint64_t *n, slog_error *err)
{
    void *p = NULL;
    const int rc = read_rows(s, T_STRINGS, &p, n, err);
    *bytes = p;
    return rc;
}

int store_read_timelines(store *s, store_timeline_row **rows, uint64_t *n, slog_error *err)
{
    void *p = NULL;
    const int rc = read_rows(s, T_TIMELINES, &p, n, err);
    *rows = p;
    return rc;
}

int store_read_categories(store *s, store_category_row **rows, uint64_t *n, slog_error *err)
{
    void *p = NULL;
    const int rc = read_rows(s, T_CATEGORIES, &p, n, err);
    *rows = p;
    return rc;
}

bool store_is_swmr(const store *s)
{
    return s->swmr_read;
}

uint32_t store_format_version(const store *s)
{
    return s->version;
}

int store_read_nodes(store *s, store_node_row **rows, uint64_t *n, slog_error *err)
{
    void *p = NULL;
    const int rc = read_rows(s, T_NODES, &p, n, err);
    *rows = p;
    return rc;
}

/* The extent of /nodes, refreshed first under SWMR (call under the lock). */
static int node_rows_extent(store *s, uint64_t *rows)
{
    table *const t = &s->t[T_NODES];
    hsize_t dims[1] = {0};
    const hid_t sp =
        (s->swmr_read && H5Drefresh(t->dset) < 0) ? H5I_INVALID_HID : H5Dget_space(t->dset);
    const int ok = sp >= 0 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1;
    if (sp >= 0) {
        (void)H5Sclose(sp);
    }
    *rows = dims[0];
    return ok ? 0 : -1;
}

/* Rows [first, first + n) of a table through one hyperslab read (under the lock). */
static int read_slab(store *s, int which, uint64_t first, size_t n, void *rows)
{
    table *const t = &s->t[which];
    const hsize_t start[1] = {first};
    const hsize_t count[1] = {n};
    const hid_t fsp = H5Dget_space(t->dset);
    const hid_t msp = H5Screate_simple(1, count, NULL);
    herr_t rc = fsp < 0 || msp < 0
                    ? -1
                    : H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0) {
        rc = H5Dread(t->dset, t->mtype, msp, fsp, H5P_DEFAULT, rows);
    }
    if (msp >= 0) {
        (void)H5Sclose(msp);
    }
    if (fsp >= 0) {
        (void)H5Sclose(fsp);
    }
    return rc < 0 ? -1 : 0;
}

int store_read_node_rows(store *s, uint64_t first, size_t n, store_node_row *rows,
                         slog_error *err)
{
    if (n == 0) {
        return SLOG_OK;
    }
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    uint64_t have = s->t[T_NODES].rows;
    if (first + n > have && node_rows_extent(s, &have) == 0) {
        s->t[T_NODES].rows = have; /* SWMR: the writer may have appended */
    }
    if (first + n > have) {
        rc = util_err(err, SLOG_ECORRUPT, UINT64_MAX, s->path,
                      "Corrupt file: /nodes has %" PRIu64 " rows, %" PRIu64 " needed", have,
                      first + n);
    } else if (read_slab(s, T_NODES, first, n, rows) != 0) {
        rc = h5_err(err, SLOG_ECORRUPT, first * sizeof *rows, s->path,
                    "Failed to read /nodes rows");
    }
    h5_leave(&g);
    if (rc == SLOG_OK) {
        expand_node_rows(s, rows, n);
        clear_absent_members(s, T_NODES, rows, n);
    }
    return rc;
}

int store_read_strings_range(store *s, uint64_t first, size_t n, char *dst, slog_error *err)
{
    if (n == 0) {
        return SLOG_OK;
    }
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    if (first > s->t[T_STRINGS].rows || n > s->t[T_STRINGS].rows - first) {
        rc = util_err(err, SLOG_ECORRUPT, first, s->path,
                      "Corrupt file: /strings has %" PRIu64 " bytes, %" PRIu64 " needed",
                      s->t[T_STRINGS].rows, first + n);
    } else if (read_slab(s, T_STRINGS, first, n, dst) != 0) {
        rc = h5_err(err, SLOG_ECORRUPT, first, s->path, "Failed to read /strings");
    }
    h5_leave(&g);
    return rc;
}

/* Read one dataset's extent, after H5Drefresh under SWMR (under the lock).
 * A plain open may share the file with a live writer of this process (HDF5
 * hands both the same open file): its extent is current without refresh. */
static int refresh_one(hid_t dset, bool swmr, uint64_t *extent)
{
    hsize_t dims[1] = {0};
    const hid_t sp = swmr && H5Drefresh(dset) < 0 ? H5I_INVALID_HID : H5Dget_space(dset);
    const int ok = sp >= 0 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1;
    if (sp >= 0) {
        (void)H5Sclose(sp);
    }
    if (ok) {
        *extent = dims[0];
    }
    return ok ? 0 : -1;
}

int store_refresh(store *s, bool summary, slog_error *err)
{
    h5_guard g;
    h5_enter(&g);
    int rc = SLOG_OK;
    for (int i = 0; i < T_COUNT && rc == SLOG_OK; i++) {
        if ((i == T_SUMMARY) != summary) {
            continue;
        }
        if (refresh_one(s->t[i].dset, s->swmr_read, &s->t[i].rows) != 0) {
            rc = h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to refresh a table");
        }
    }
    if (rc == SLOG_OK && !summary &&
        refresh_one(s->payload, s->swmr_read, &s->payload_extent) != 0) {
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to refresh /payload");
    }
    h5_leave(&g);
    return rc;
}

/* ---- sealing a killed writer's file ----------------------------------------------- */

int store_seal(const char *path, slog_error *err)
{
    int rc = precheck_path(path, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    h5_guard g;
    h5_enter(&g);
    const hbool_t yes = 1;
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* h5clear's two file-access properties (registered by HDF5 itself) */
    hid_t f = fapl < 0 || H5Pset(fapl, "clear_status_flags", &yes) < 0 ||
                      H5Pset(fapl, "skip_eof_check", &yes) < 0
                  ? H5I_INVALID_HID
                  : H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (f < 0) {
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, path,
                    "Cannot open read-write to seal it (in use, or not writable)");
    } else if (H5Fincrement_filesize(f, 0) < 0) {
        rc = h5_err(err, SLOG_ECORRUPT, UINT64_MAX, path, "Cannot set the file's end");
    }
    if (f >= 0 && H5Fclose(f) < 0 && rc == SLOG_OK) {
        rc = h5_err(err, SLOG_EIO, UINT64_MAX, path, "Failed to close the sealed file");
    }
    if (fapl >= 0) {
        (void)H5Pclose(fapl);
    }
    h5_leave(&g);
    return rc;
}

/* ---- reading blobs -------------------------------------------------------------- */

/* Is [offset, offset + n) inside /payload?  The extent may have grown
 * since open (a live writer, through SWMR or, in this process, the shared
 * open file): read it again once before giving up. */
static int check_blob_range(store *s, uint64_t offset, uint64_t n, slog_error *err)
{
    if (offset <= s->payload_extent && n <= s->payload_extent - offset) {
        return SLOG_OK;
    }
    h5_guard g;
    h5_enter(&g);
    (void)refresh_one(s->payload, s->swmr_read, &s->payload_extent);
    h5_leave(&g);
    if (offset <= s->payload_extent && n <= s->payload_extent - offset) {
        return SLOG_OK;
    }
    return util_err(err, SLOG_ECORRUPT, offset, s->path,
                    "Blob at /payload byte %" PRIu64 " length=%" PRIu64
                    " ends past the dataset (%" PRIu64 " bytes)",
                    offset, n, s->payload_extent);
}

int store_check_blob(store *s, uint64_t offset, uint64_t n, slog_error *err)
{
    return check_blob_range(s, offset, n, err);
}

/* Any pipeline but [32004] or none: HDF5 reads and filters (under lock). */
static int
read_blob_pipeline(store *s, uint64_t offset, uint64_t n, void *dst, store_io *io, slog_error *err)
{
    const hsize_t start[1] = {offset};
    const hsize_t count[1] = {n};
    h5_guard g;
    h5_enter(&g);
    const hid_t fsp = H5Dget_space(s->payload);
    const hid_t msp = H5Screate_simple(1, count, NULL);
    herr_t rc = fsp < 0 || msp < 0
                    ? -1
                    : H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0) {
        rc = H5Dread(s->payload, H5T_NATIVE_UINT8, msp, fsp, H5P_DEFAULT, dst);
    }
    const int code = rc < 0 ? h5_err(err, SLOG_ECORRUPT, offset, s->path,
                                     "Failed to read /payload through its filters")
                            : SLOG_OK;
    if (msp >= 0) {
        (void)H5Sclose(msp);
    }
    if (fsp >= 0) {
        (void)H5Sclose(fsp);
    }
    h5_leave(&g);
    if (code == SLOG_OK && io != NULL) {
        io->bytes_read += n;
        io->bytes_decoded += n;
    }
    return code;
}

/* Fetch the stored bytes of the chunk at byte coff into zbuf (under lock).
 * Returns the stored size, 0 on error (err filled). */
static size_t fetch_chunk(store *s, uint64_t coff, uint32_t *mask, slog_error *err)
{
    const hsize_t off[1] = {coff};
    hsize_t size = 0;
    const size_t limit = (size_t)s->chunk_bytes * 5 + 64; /* 1-byte blocks: 5 bytes each */
    if (H5Dget_chunk_storage_size(s->payload, off, &size) < 0 || size == 0) {
        (void)h5_err(err, SLOG_ECORRUPT, coff, s->path, "Missing /payload chunk");
        return 0;
    }
    if (size > limit) {
        (void)util_err(err, SLOG_ECORRUPT, coff, s->path,
                       "Corrupt /payload chunk at byte %" PRIu64 ": stored size %" PRIu64, coff,
                       (uint64_t)size);
        return 0;
    }
    if (ensure_buf(&s->zbuf, &s->zbuf_cap, (size_t)size) < 0) {
        (void)util_err(err, SLOG_ENOMEM, coff, s->path, "Out of memory for a chunk");
        return 0;
    }
    *mask = 0;
    if (H5Dread_chunk(s->payload, H5P_DEFAULT, off, mask, s->zbuf) < 0) {
        (void)h5_err(err, SLOG_ECORRUPT, coff, s->path, "Cannot read /payload chunk");
        return 0;
    }
    return (size_t)size;
}

/* A chunk fetch_chunk put in zbuf. */
typedef struct fetched_chunk {
    uint64_t coff; /* its /payload offset */
    size_t z;      /* its stored bytes */
    uint32_t mask; /* its filter mask: bit 0 set, LZ4 skipped (raw) */
} fetched_chunk;

/* Turn the fetched chunk c into its first `want` decoded bytes at out
 * (want <= cb: a blob ending inside the chunk does not pay for decoding the
 * zero padding after it; its checksum covers what it uses). */
static int decode_chunk(store *s, const fetched_chunk *c, unsigned char *out, size_t want,
                        slog_error *err)
{
    const size_t cb = s->chunk_bytes;
    const size_t z = c->z;
    const uint64_t coff = c->coff;
    const bool raw = s->mode == PAYLOAD_RAW || (c->mask & 1u) != 0;
    if (raw ? z != cb
            : codec_lz4_decoded_size(s->zbuf, z) != cb ||
                  codec_lz4_decode_prefix(s->zbuf, z, out, cb, want) != want) {
        return util_err(err, SLOG_ECORRUPT, coff, s->path,
                        "Corrupt /payload chunk at byte %" PRIu64 ": does not decode to %zu bytes",
                        coff, cb);
    }
    if (raw) {
        memcpy(out, s->zbuf, want);
    }
    return SLOG_OK;
}

/* A blob being read: bytes [offset, end) of /payload go to dst. */
typedef struct blob_req {
    uint64_t offset;
    uint64_t end;
    unsigned char *dst;
    store_io *io;
} blob_req;

/* One chunk of a blob: fetch under the lock, decode outside, copy the part
 * of [offset, end) it covers (straight into dst when it is all inside). */
static int read_one_chunk(store *s, uint64_t coff, const blob_req *r, slog_error *err)
{
    const uint64_t cb = s->chunk_bytes;
    h5_guard g;
    h5_enter(&g);
    uint32_t mask = 0;
    const size_t z = fetch_chunk(s, coff, &mask, err);
    h5_leave(&g);
    if (z == 0) {
        return err != NULL ? err->code : SLOG_ECORRUPT;
    }
    const uint64_t lo = coff > r->offset ? coff : r->offset;
    const uint64_t hi = coff + cb < r->end ? coff + cb : r->end;
    const bool head = lo == coff; /* the blob's bytes start the chunk: decode just them */
    const size_t want = (size_t)(hi - coff);
    unsigned char *const out = head ? r->dst + (coff - r->offset) : s->cbuf;
    const fetched_chunk c = {coff, z, mask};
    const int rc = decode_chunk(s, &c, out, want, err);
    if (rc < 0) {
        return rc;
    }
    if (!head) {
        memcpy(r->dst + (lo - r->offset), s->cbuf + (lo - coff), (size_t)(hi - lo));
    }
    if (r->io != NULL) {
        r->io->bytes_read += z;
        r->io->bytes_decoded += want;
    }
    return SLOG_OK;
}

int store_read_blob(store *s, uint64_t offset, uint64_t n, void *dst, store_io *io, slog_error *err)
{
    if (n == 0) {
        return SLOG_OK;
    }
    int rc = check_blob_range(s, offset, n, err);
    if (rc < 0) {
        return rc;
    }
    if (s->mode == PAYLOAD_PIPELINE) {
        return read_blob_pipeline(s, offset, n, dst, io, err);
    }
    if (ensure_buf(&s->cbuf, &s->cbuf_cap, s->chunk_bytes) < 0) {
        return util_err(err, SLOG_ENOMEM, offset, s->path, "Out of memory for a chunk");
    }
    const uint64_t cb = s->chunk_bytes;
    const blob_req r = {offset, offset + n, dst, io};
    for (uint64_t coff = offset - offset % cb; coff < r.end && rc == SLOG_OK; coff += cb) {
        rc = read_one_chunk(s, coff, &r, err);
    }
    return rc;
}

int store_read_blob_at(store *s, store_blob_addr at, uint64_t offset, uint64_t n, void *dst,
                       store_io *io)
{
    const uint64_t addr = at.addr;
    const uint32_t zlen = at.zlen;
    const uint64_t cb = s->chunk_bytes;
    const uint64_t blob_off = offset - offset % cb;
    const uint64_t chunks = (offset + n - blob_off + cb - 1) / cb;
    if (s->fd < 0 || addr == 0 || zlen == 0 || n == 0 || s->mode != PAYLOAD_LZ4 ||
        zlen > chunks * (cb * 5 + 64) || ensure_buf(&s->zbuf, &s->zbuf_cap, zlen) < 0) {
        return 1;
    }
    size_t got = 0;
    while (got < zlen) {
        const ssize_t r = pread(s->fd, s->zbuf + got, zlen - got, (off_t)(addr + got));
        if (r <= 0) {
            return 1; /* a short file or an error: HDF5's own path decides */
        }
        got += (size_t)r;
    }
    uint64_t decoded = 0;
    const blob_part part = {offset, n, dst};
    if (blob_loc_decode(s->zbuf, zlen, s->chunk_bytes, blob_off, &part, &decoded) != 0) {
        return 1;
    }
    if (io != NULL) {
        io->bytes_read += zlen;
        io->bytes_decoded += decoded;
    }
    return SLOG_OK;
}

uint64_t store_file_bytes(const store *s)
{
    struct stat st;
    if (s == NULL || stat(s->path, &st) != 0) {
        return 0;
    }
    return (uint64_t)st.st_size;
}

int store_close(store *s, slog_error *err)
{
    if (s == NULL) {
        return SLOG_OK;
    }
    h5_guard g;
    h5_enter(&g);
    const herr_t hrc = store_close_objects(s);
    const int rc =
        hrc < 0 ? h5_err(err, SLOG_EIO, UINT64_MAX, s->path, "Failed to close file") : SLOG_OK;
    h5_leave(&g);
    store_free(s);
    return rc;
}

/* ---- after fork ---------------------------------------------------------- */

/* A child process forgets a file its parent writes: its copy of the file
 * descriptor is pointed at /dev/null before the HDF5 objects are closed, so
 * whatever HDF5 flushes now (or at the child's exit) lands nowhere and the
 * parent's file is untouched.  Only HDF5's default sec2 driver hands out a
 * descriptor; with another driver nothing is closed (the objects leak). */
void store_forget_after_fork(store *s)
{
    if (s == NULL) {
        return;
    }
    h5_guard g;
    h5_enter(&g);
    const hid_t fapl = H5Fget_access_plist(s->file);
    void *handle = NULL;
    int redirected = 0;
    if (fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 &&
        H5Fget_vfd_handle(s->file, fapl, &handle) >= 0 && handle != NULL) {
        const int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
        redirected = nul >= 0 && dup2(nul, *(const int *)handle) >= 0;
        if (nul >= 0) {
            (void)close(nul);
        }
    }
    if (fapl >= 0) {
        (void)H5Pclose(fapl);
    }
    if (redirected) {
        (void)store_close_objects(s);
    }
    h5_leave(&g);
    if (redirected) {
        store_free(s);
    }
}
