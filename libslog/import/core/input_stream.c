/* SPDX-License-Identifier: MIT
 *
 * input_stream.c - the byte stream under every text importer.  The container
 * is recognised from its first bytes, never from the file name: gzip
 * (1f 8b; several members are concatenated, as `cat a.gz b.gz` makes, and
 * zero padding after the last member is ignored), a zip archive holding
 * exactly one member (stored or deflated; the central directory is read
 * first so a multi-member archive is refused before any byte is imported;
 * an archive cut short has none, and its first member is read up to the
 * cut, with a note, as a gzip file cut short is), or plain bytes.
 * Reads go through one fixed input buffer, so memory does not depend on the
 * input size.  Standard input ("-") and pipes are read
 * through input_pipe.c, which replays the bytes the format probe read; so
 * are the caller's callback and memory inputs.  A read checks the import's
 * cancel flag first.
 * Import library, core: libc, POSIX, zlib.
 */
#include "import_run.h"
#include "importer.h"
#include "input_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define STREAM_INBUF ((size_t)256 * 1024)

typedef enum stream_kind { STREAM_PLAIN, STREAM_GZIP, STREAM_ZIP_STORED, STREAM_ZIP_DEFLATE } stream_kind;

struct import_stream {
    int fd;
    input_pipe *pipe;   /* not seekable: read through this, fd unused */
    stream_kind kind;
    z_stream z;
    bool z_live;
    bool z_done;        /* current deflate stream ended */
    bool eof;           /* no more file bytes */
    unsigned char *in;  /* compressed input buffer */
    size_t in_len;      /* valid bytes in `in` */
    size_t in_off;      /* next unread byte in `in` (plain and stored) */
    uint64_t pos;       /* file bytes handed to the decoder so far */
    uint64_t size;      /* file size */
    uint64_t member_left; /* zip: compressed bytes of the member not yet read */
    uint32_t zip_crc;   /* zip: expected CRC-32 of the member */
    uLong crc;          /* zip: CRC-32 of what we produced */
    const slog_atomic_int *cancel; /* the import's cancel flag, or NULL */
    bool inflated_any;  /* inflating has given at least one byte */
    bool truncated;     /* the file ended inside a compressed stream, after some data */
    bool zip_cut;       /* zip without its directory: read from the local header, no CRC */
    char err[256];
};

static int stream_fail(import_stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int stream_fail(import_stream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t rd_le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* pread the whole range or fail. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

/* read(2) from the file or the pipe, EINTR retried. */
static ssize_t fd_read(import_stream *s, void *buf, size_t n)
{
    if (s->pipe != NULL) {
        return input_pipe_read(s->pipe, buf, n);
    }
    ssize_t r;
    do {
        r = read(s->fd, buf, n);
    } while (r < 0 && errno == EINTR);
    return r;
}

/* Why fd_read failed. */
static int read_failed(import_stream *s)
{
    const char *const why = s->pipe != NULL ? input_pipe_error(s->pipe) : "";
    return stream_fail(s, "Failed to read: %s", why[0] != '\0' ? why : strerror(errno));
}

/* Refill `in` from the file (up to `limit` bytes for zip members). */
static int stream_fill(import_stream *s, uint64_t limit)
{
    size_t want = STREAM_INBUF;
    if (limit < want) {
        want = (size_t)limit;
    }
    s->in_off = 0;
    s->in_len = 0;
    if (want == 0) {
        s->eof = true;
        return 0;
    }
    const ssize_t r = fd_read(s, s->in, want);
    if (r < 0) {
        return read_failed(s);
    }
    if (r == 0) {
        s->eof = true;
    }
    s->in_len = (size_t)r;
    s->pos += (uint64_t)r;
    return 0;
}

/* Position the file at the data of the member whose local header is at lho
 * and set kind; flags and method come from the directory, or from the local
 * header itself when the directory is missing. */
static int zip_start_member(import_stream *s, uint32_t flags, uint32_t method, uint64_t lho)
{
    if (flags & 1u) {
        return stream_fail(s, "Cannot import an encrypted zip member");
    }
    if (method != 0 && method != 8) {
        return stream_fail(s, "Cannot import zip compression method %u (only stored and deflate)",
                           method);
    }
    unsigned char lh[30];
    if (read_at(s->fd, lh, sizeof lh, lho) != 0 || rd_le32(lh) != 0x04034b50u) {
        return stream_fail(s, "Cannot read zip archive: bad local file header");
    }
    const uint64_t data = lho + 30 + rd_le16(lh + 26) + rd_le16(lh + 28);
    if (lseek(s->fd, (off_t)data, SEEK_SET) < 0) {
        return stream_fail(s, "Failed to seek: %s", strerror(errno));
    }
    s->pos = data;
    s->kind = method == 0 ? STREAM_ZIP_STORED : STREAM_ZIP_DEFLATE;
    s->crc = crc32(0L, Z_NULL, 0);
    if (method == 8) {
        if (inflateInit2(&s->z, -MAX_WBITS) != Z_OK) {
            return stream_fail(s, "Failed to start inflate");
        }
        s->z_live = true;
    }
    return 0;
}

/* A zip archive cut short has no directory (it is written last): read the
 * member that starts the file up to the cut, as a gzip file cut short is
 * read, and say so (import_stream_note).  A deflated member ends itself; a
 * stored one only when its local header gives its size (flag bit 3 clear). */
static int zip_open_cut(import_stream *s)
{
    unsigned char lh[30];
    if (s->size < sizeof lh || read_at(s->fd, lh, sizeof lh, 0) != 0) {
        return stream_fail(s, "Cannot read zip archive: no end-of-central-directory record");
    }
    const uint32_t flags = rd_le16(lh + 6);
    const uint32_t method = rd_le16(lh + 8);
    const uint64_t data = 30u + rd_le16(lh + 26) + rd_le16(lh + 28);
    const uint64_t size = rd_le32(lh + 18);
    const bool sized = method == 0 && (flags & 8u) == 0 && data <= s->size;
    if (method != 8 && !sized) {
        return stream_fail(s, "Cannot read zip archive: no end-of-central-directory record");
    }
    s->zip_cut = true;
    if (sized) {
        s->member_left = size < s->size - data ? size : s->size - data;
        s->truncated = size > s->size - data;
    }
    return zip_start_member(s, flags, method, 0);
}

/* Locate the single member of a zip archive: position the file at its data
 * and set kind and sizes.  Uses the end-of-central-directory record. */
static int zip_open_member(import_stream *s)
{
    unsigned char tail[65536 + 22];
    const uint64_t tail_len = s->size < sizeof tail ? s->size : sizeof tail;
    if (tail_len < 22 || read_at(s->fd, tail, (size_t)tail_len, s->size - tail_len) != 0) {
        return zip_open_cut(s);
    }
    long eocd = -1;
    for (long i = (long)tail_len - 22; i >= 0; i--) {
        if (rd_le32(tail + i) == 0x06054b50u) {
            eocd = i;
            break;
        }
    }
    if (eocd < 0) {
        return zip_open_cut(s);
    }
    const unsigned char *e = tail + eocd;
    const uint32_t entries = rd_le16(e + 10);
    if (entries != 1) {
        return stream_fail(s, "Cannot import a zip archive with %u members: only single-member "
                              "archives are supported (unzip it first)", entries);
    }
    unsigned char cd[46];
    if (read_at(s->fd, cd, sizeof cd, rd_le32(e + 16)) != 0 || rd_le32(cd) != 0x02014b50u) {
        return stream_fail(s, "Cannot read zip archive: bad central directory");
    }
    s->zip_crc = rd_le32(cd + 16);
    s->member_left = rd_le32(cd + 20);
    return zip_start_member(s, rd_le16(cd + 8), rd_le16(cd + 10), rd_le32(cd + 42));
}

/* Open the file, or the pipe/callback/memory source; sets s->size.
 * 0, or -1 with the message in errbuf. */
static int stream_open_source(import_stream *s, input_sources *srcs, const char *path,
                              char *errbuf, size_t errlen)
{
    const int piped = input_pipe_open(&s->pipe, srcs, path, errbuf, errlen);
    if (piped != 0) {
        return piped < 0 ? -1 : 0; /* a pipe: progress without a total */
    }
    /* "-" redirected from a file: a descriptor of its own, from the start */
    const bool is_stdin = strcmp(path, "-") == 0;
    struct stat st;
    s->fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0 || fstat(s->fd, &st) != 0 ||
        (is_stdin && S_ISREG(st.st_mode) && lseek(s->fd, 0, SEEK_SET) != 0)) {
        (void)snprintf(errbuf, errlen, "Cannot open: %s", strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        (void)snprintf(errbuf, errlen, "Cannot read: is a directory");
        return -1;
    }
    s->size = (uint64_t)st.st_size;
    return 0;
}

/* The container from the first bytes: gzip, single-member zip, or plain. */
static int stream_open_container(import_stream *s, char *errbuf, size_t errlen)
{
    unsigned char magic[4] = {0, 0, 0, 0};
    const ssize_t nm = s->pipe != NULL ? input_pipe_peek(s->pipe, magic, sizeof magic)
                                       : pread(s->fd, magic, sizeof magic, 0);
    s->kind = STREAM_PLAIN;
    if (nm >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        s->kind = STREAM_GZIP;
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
            (void)snprintf(errbuf, errlen, "Failed to start inflate");
            return -1;
        }
        s->z_live = true;
    } else if (nm == 4 && rd_le32(magic) == 0x04034b50u) {
        if (s->pipe != NULL) {
            (void)snprintf(errbuf, errlen,
                           "Cannot read a zip archive from %s (its directory is at the end): "
                           "give the file",
                           input_pipe_what(s->pipe));
            return -1;
        }
        if (zip_open_member(s) != 0) {
            (void)snprintf(errbuf, errlen, "%s", s->err);
            return -1;
        }
    }
    return 0;
}

int import_stream_open(import_stream **out, const import_ctx *ctx, const char *path,
                       char *errbuf, size_t errlen)
{
    *out = NULL;
    import_stream *s = calloc(1, sizeof *s);
    unsigned char *in = malloc(STREAM_INBUF);
    if (s == NULL || in == NULL) {
        free(s);
        free(in);
        (void)snprintf(errbuf, errlen, "Out of memory");
        return -1;
    }
    s->in = in;
    s->fd = -1;
    const bool in_run = ctx != NULL && ctx->run != NULL;
    s->cancel = in_run ? ctx->run->opt.cancel : NULL;
    if (stream_open_source(s, in_run ? &ctx->run->sources : NULL, path, errbuf, errlen) != 0 ||
        stream_open_container(s, errbuf, errlen) != 0) {
        import_stream_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

static long stream_read_plain(import_stream *s, unsigned char *buf, size_t n, bool zip)
{
    if (s->in_off == s->in_len) {
        if (s->eof) {
            return 0;
        }
        if (stream_fill(s, zip ? s->member_left : UINT64_MAX) != 0) {
            return -1;
        }
        if (zip) {
            s->member_left -= s->in_len;
            if (s->in_len == 0 && s->member_left > 0) {
                return stream_fail(s, "Truncated zip archive");
            }
        }
        if (s->in_len == 0) {
            return 0;
        }
    }
    size_t take = s->in_len - s->in_off;
    if (take > n) {
        take = n;
    }
    memcpy(buf, s->in + s->in_off, take);
    s->in_off += take;
    return (long)take;
}

/* Plain bytes with nothing buffered: read straight into the caller's buffer
 * (one copy instead of two). */
static long stream_read_direct(import_stream *s, unsigned char *buf, size_t n)
{
    if (s->eof) {
        return 0;
    }
    const ssize_t r = fd_read(s, buf, n);
    if (r < 0) {
        return read_failed(s);
    }
    if (r == 0) {
        s->eof = true;
    }
    s->pos += (uint64_t)r;
    return (long)r;
}

/* After a gzip member ends: another member follows, zero padding, or junk. */
static int gzip_next_member(import_stream *s)
{
    for (;;) {
        while (s->z.avail_in > 0 && s->z.next_in[0] == 0) {
            s->z.next_in++;
            s->z.avail_in--;
        }
        if (s->z.avail_in > 0) {
            if (s->z.next_in[0] != 0x1f) {
                return stream_fail(s, "Trailing garbage after gzip data at byte %llu",
                                   (unsigned long long)(s->pos - s->z.avail_in));
            }
            if (inflateReset(&s->z) != Z_OK) {
                return stream_fail(s, "Failed to restart inflate");
            }
            s->z_done = false;
            return 0;
        }
        if (s->eof) {
            return 0;
        }
        if (stream_fill(s, UINT64_MAX) != 0) {
            return -1;
        }
        s->z.next_in = s->in;
        s->z.avail_in = (uInt)s->in_len;
    }
}

/* After a deflate stream ended: 0 to go on with the next gzip member,
 * 1 at the end of the data, -1 on error (set). */
static int inflate_at_end(import_stream *s, bool zip)
{
    if (zip || gzip_next_member(s) != 0 || s->z_done || s->z.avail_in == 0) {
        return !zip && s->err[0] != '\0' ? -1 : 1;
    }
    return 0;
}

/* Give the inflater the next input bytes: 0; 1 at the end of a gzip file
 * cut short after some data (a killed job's trace: what it held is kept,
 * and the importer says so, import_stream_note); -1 on error (set). */
static int inflate_refill(import_stream *s, bool zip)
{
    if (s->eof && (!zip || s->zip_cut) && s->inflated_any) {
        s->truncated = true;
        return 1;
    }
    if (s->eof) {
        return stream_fail(s, "Truncated %s data (ends inside a compressed stream)",
                           zip ? "zip" : "gzip");
    }
    const bool sized = zip && !s->zip_cut;
    if (stream_fill(s, sized ? s->member_left : UINT64_MAX) != 0) {
        return -1;
    }
    if (sized) {
        s->member_left -= s->in_len;
    }
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)s->in_len;
    return 0;
}

/* One step of inflating: 1 to go on, 0 at the end of the data, -1 on error. */
static int inflate_step(import_stream *s, bool zip)
{
    if (s->z_done) {
        const int end = inflate_at_end(s, zip);
        if (end != 0) {
            return end < 0 ? -1 : 0;
        }
    }
    if (s->z.avail_in == 0) {
        const int more = inflate_refill(s, zip);
        return more < 0 ? -1 : more > 0 ? 0 : 1;
    }
    const uInt room = s->z.avail_out;
    const int rc = inflate(&s->z, Z_NO_FLUSH);
    s->inflated_any = s->inflated_any || s->z.avail_out < room;
    if (rc == Z_STREAM_END) {
        s->z_done = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return stream_fail(s, "Corrupt %s data: %s", zip ? "zip" : "gzip",
                           s->z.msg != NULL ? s->z.msg : "inflate failed");
    }
    return 1;
}

static long stream_read_inflate(import_stream *s, unsigned char *buf, size_t n)
{
    const bool zip = s->kind == STREAM_ZIP_DEFLATE;
    s->z.next_out = buf;
    s->z.avail_out = (uInt)(n > 0x40000000u ? 0x40000000u : n);
    while (s->z.avail_out > 0) {
        const int step = inflate_step(s, zip);
        if (step < 0) {
            return -1;
        }
        if (step == 0) {
            break;
        }
    }
    const size_t got = n - s->z.avail_out;
    return (long)got;
}

const char *import_stream_note(const import_stream *s)
{
    if (s->zip_cut) {
        return s->truncated ? "the zip archive has no directory and its member is cut short "
                              "(the file is cut short): what it held up to the cut is kept"
                            : "the zip archive has no directory (the file is cut short after "
                              "its member): the member was read without its CRC-32 check";
    }
    return s->truncated ? "the gzip data ends inside a compressed stream (the file is cut short): "
                          "what it held up to there is kept"
                        : NULL;
}

long import_stream_read(import_stream *s, void *buf, size_t n)
{
    if (s->err[0] != '\0') {
        return -1;
    }
    if (s->cancel != NULL && atomic_load_explicit(s->cancel, memory_order_relaxed) != 0) {
        return stream_fail(s, "Import cancelled");
    }
    long got;
    switch (s->kind) {
    case STREAM_PLAIN:
        if (s->in_off == s->in_len) {
            return stream_read_direct(s, buf, n);
        }
        return stream_read_plain(s, buf, n, false);
    case STREAM_ZIP_STORED:
        got = stream_read_plain(s, buf, n, true);
        break;
    case STREAM_GZIP:
        return stream_read_inflate(s, buf, n);
    case STREAM_ZIP_DEFLATE:
    default:
        got = stream_read_inflate(s, buf, n);
        break;
    }
    /* zip members carry a CRC-32: check it at the end. */
    if (got > 0) {
        s->crc = crc32(s->crc, buf, (uInt)got);
    } else if (got == 0 && !s->zip_cut && s->crc != s->zip_crc) {
        return stream_fail(s, "Corrupt zip member: CRC-32 mismatch");
    }
    return got;
}

uint64_t import_stream_pos(const import_stream *s)
{
    if (s->kind == STREAM_PLAIN || s->kind == STREAM_ZIP_STORED) {
        return s->pos - (s->in_len - s->in_off);
    }
    return s->pos - s->z.avail_in;
}

uint64_t import_stream_size(const import_stream *s)
{
    return s->size;
}

const char *import_stream_error(const import_stream *s)
{
    return s->err;
}

void import_stream_close(import_stream *s)
{
    if (s == NULL) {
        return;
    }
    if (s->z_live) {
        (void)inflateEnd(&s->z);
    }
    if (s->fd >= 0) {
        (void)close(s->fd);
    }
    input_pipe_close(s->pipe);
    free(s->in);
    free(s);
}
