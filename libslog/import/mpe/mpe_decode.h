/* SPDX-License-Identifier: MIT
 *
 * mpe_decode.h - what the CLOG2 and SLOG-2 decoders share: a forward-only
 * input that knows its byte offset, a bounds-checked big-endian cursor, the
 * decoded model (categories, lines, drawables), MPE info formats ("iter=%d")
 * and the X11 colour names of MPE.  Nothing here calls libslog: decoders
 * produce mpe_drawable values through a callback, so they can be tested
 * against the reference counts and fuzzed without a writer.
 * Layer: slog-import helper (libc only).
 */
#ifndef SLOG_MPE_DECODE_H
#define SLOG_MPE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A decoding error: the byte offset of the bad or missing input and one
 * sentence.  Decoders return -1 after filling it. */
typedef struct mpe_err {
    uint64_t offset; /* UINT64_MAX = unknown */
    char msg[256];
} mpe_err;

int mpe_fail(mpe_err *e, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Forward-only input over any byte source (file, gzip stream). */
typedef long (*mpe_read_fn)(void *user, void *buf, size_t n); /* bytes, 0 end, -1 error */
typedef const char *(*mpe_errstr_fn)(void *user);

typedef struct mpe_in {
    mpe_read_fn read;
    mpe_errstr_fn errstr; /* may be NULL */
    void *user;
    uint64_t pos; /* bytes consumed so far = offset of the next byte */
} mpe_in;

/* Read up to n bytes; *got < n only at the end of the input. */
int mpe_in_read(mpe_in *in, void *buf, size_t n, size_t *got, mpe_err *e);
/* Read exactly n bytes of `what`; a short input is an error at the end offset. */
int mpe_in_need(mpe_in *in, void *buf, size_t n, const char *what, mpe_err *e);
/* A growable byte buffer (p may be NULL while cap is 0). */
typedef struct mpe_buf {
    unsigned char *p;
    size_t cap;
} mpe_buf;

/* Read exactly n bytes of `what` to b->p[at..at+n), growing the buffer as
 * the bytes arrive: a length field claiming more than the input holds
 * fails at the end of the input without allocating the claim. */
int mpe_in_need_grow(mpe_in *in, mpe_buf *b, size_t at, size_t n, const char *what, mpe_err *e);
/* Discard n bytes (which must exist). */
int mpe_in_skip(mpe_in *in, uint64_t n, const char *what, mpe_err *e);
/* 1 if the input is at its end, 0 if more bytes follow (one is consumed). */
int mpe_in_at_end(mpe_in *in, mpe_err *e);

/* Bounds-checked big-endian cursor over bytes that sit at file offset
 * `base`.  A read past the end sets `bad` (sticky) and returns 0. */
typedef struct mpe_cur {
    const unsigned char *p;
    size_t len;
    size_t at;
    uint64_t base;
    bool bad;
} mpe_cur;

void mpe_cur_init(mpe_cur *c, const void *p, size_t len, uint64_t base);
uint8_t mpe_cur_u8(mpe_cur *c);
int16_t mpe_cur_i16(mpe_cur *c);
int32_t mpe_cur_i32(mpe_cur *c);
int64_t mpe_cur_i64(mpe_cur *c);
float mpe_cur_f32(mpe_cur *c);
double mpe_cur_f64(mpe_cur *c);
/* Borrow n bytes (NULL and bad when fewer remain). */
const unsigned char *mpe_cur_bytes(mpe_cur *c, size_t n);
static inline uint64_t mpe_cur_off(const mpe_cur *c)
{
    return c->base + c->at;
}

/* Plain big-endian loads (caller checked the length). */
int32_t mpe_be_i32(const unsigned char *p);
int16_t mpe_be_i16(const unsigned char *p);
int64_t mpe_be_i64(const unsigned char *p);
double mpe_be_f64(const unsigned char *p);
float mpe_be_f32(const unsigned char *p);

/* Kinds, numbered as slog_kind (state 0, event 1, arrow 2). */
typedef enum mpe_kind {
    MPE_STATE = 0,
    MPE_EVENT = 1,
    MPE_ARROW = 2
} mpe_kind;

/* An info format: n typed values, n + 1 keys (the text around them).
 * "iter=%d res=%E" -> keys "iter=", " res=", "" and types "dE". */
#define MPE_FMT_MAX 64
typedef struct mpe_fmt {
    uint32_t ntypes;
    uint32_t nkeys; /* entries of keys (ntypes + 1 from a format string) */
    char types[MPE_FMT_MAX];
    char **keys; /* owned array of owned strings (an entry may be NULL) */
} mpe_fmt;

/* Split a printf-like MPE format (tokens %s %h %d %x %l %X %e %E). */
int mpe_fmt_parse(mpe_fmt *f, const char *format);
/* An empty format with room for n keys (all NULL). */
int mpe_fmt_init(mpe_fmt *f, uint32_t nkeys);
void mpe_fmt_free(mpe_fmt *f);
/* The arg key for value i: the key text without blanks and separators
 * (" residual=" -> "residual"); "arg<i>" when nothing is left. */
void mpe_fmt_arg_key(const mpe_fmt *f, uint32_t i, char *out, size_t outlen);

/* One decoded info value.  Strings point into the info bytes. */
typedef struct mpe_value {
    int64_t i;
    double d;
    const unsigned char *s;
    uint32_t slen;
    char type; /* s h d x l X e E */
} mpe_value;

/* Decode info bytes value by value as the format says.  Returns the number
 * of values decoded; fewer than f->ntypes when the bytes run out (bytes left
 * over are ignored: CLOG2 cargo carries stale bytes after its values). */
uint32_t mpe_info_decode(const mpe_fmt *f, const unsigned char *info, size_t len, mpe_value *out);

/* A legend entry, as SLOG-2 stores it (CLOG2 derives the same). */
typedef struct mpe_category {
    int32_t index; /* SLOG-2 category index */
    mpe_kind kind;
    char *name;    /* owned */
    uint32_t rgba; /* 0xRRGGBBAA; 0 = no colour known */
    mpe_fmt fmt;
    bool defined;   /* a definition record named it */
    uint64_t count; /* real drawables decoded */
} mpe_category;

/* A line ID (a timeline of MPE) and what it means. */
typedef struct mpe_line {
    uint32_t line_id;
    int32_t world_rank; /* -1 unknown */
    int32_t comm;       /* communicator LID, 0 = MPI_COMM_WORLD */
    int32_t comm_rank;
    int32_t thread;
} mpe_line;

/* A decoded drawable, valid during the callback. */
typedef struct mpe_drawable {
    mpe_kind kind;
    uint32_t category; /* slot in the decoder's category table */
    uint32_t line;     /* line ID (arrows: sender side) */
    uint32_t line_to;  /* arrows: receiver line ID; else == line */
    double start;      /* seconds */
    double end;
    uint32_t depth; /* states: states open on the line at its start */
    const unsigned char *info;
    uint32_t info_len;
    uint64_t offset; /* input offset of the record or object that completed it */
} mpe_drawable;

/* Return 0 to go on, nonzero to stop decoding (returned as is). */
typedef int (*mpe_emit_fn)(void *user, const mpe_drawable *d);

/* X11 / jumpshot colour name -> 0xRRGGBBAA (alpha 255); 0 when unknown.
 * Case and blanks are ignored, text after ':' too. */
uint32_t mpe_colour_rgba(const char *name);

/* Seconds (f64) -> integer nanoseconds, the one conversion both importers
 * use: llround(t * 1e9).  Returns false when t is not finite or too big. */
bool mpe_seconds_to_ns(double t, int64_t *ns);

/* A small open-addressing map (two u64 keys -> u32 value). */
typedef struct mpe_map {
    uint64_t *keys; /* 2 per slot */
    uint32_t *vals;
    unsigned char *used;
    size_t cap;
    size_t n;
} mpe_map;

int mpe_map_put(mpe_map *m, uint64_t a, uint64_t b, uint32_t val); /* 0 ok, -1 ENOMEM */
bool mpe_map_get(const mpe_map *m, uint64_t a, uint64_t b, uint32_t *val);
void mpe_map_free(mpe_map *m);

#endif /* SLOG_MPE_DECODE_H */
