/* SPDX-License-Identifier: MIT
 *
 * mpe_decode.c - shared pieces of the CLOG2 and SLOG-2 decoders: offset-
 * tracking input, big-endian cursor, info formats, colour names, a small
 * hash map.  Every read is bounds-checked; a decoder never trusts a length
 * from the file before checking it against what is left.
 * Layer: slog-import helper (libc only).
 */
#include "mpe_decode.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mpe_fail(mpe_err *e, uint64_t offset, const char *fmt, ...)
{
    if (e == NULL) {
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    e->offset = offset;
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above; analyzer false positive
    (void)vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- input ---------------------------------------------------------- */

int mpe_in_read(mpe_in *in, void *buf, size_t n, size_t *got, mpe_err *e)
{
    unsigned char *p = buf;
    size_t done = 0;
    while (done < n) {
        const long r = in->read(in->user, p + done, n - done);
        if (r < 0) {
            const char *why = in->errstr != NULL ? in->errstr(in->user) : NULL;
            return mpe_fail(e, in->pos + done, "Failed to read input: %s",
                            why != NULL ? why : "read error");
        }
        if (r == 0) {
            break;
        }
        done += (size_t)r;
    }
    in->pos += done;
    *got = done;
    return 0;
}

int mpe_in_need(mpe_in *in, void *buf, size_t n, const char *what, mpe_err *e)
{
    const uint64_t start = in->pos;
    size_t got = 0;
    if (mpe_in_read(in, buf, n, &got, e) != 0) {
        return -1;
    }
    if (got < n) {
        return mpe_fail(e, in->pos,
                        "truncated: %s needs %zu bytes from byte %llu, input ends at byte %llu",
                        what, n, (unsigned long long)start, (unsigned long long)in->pos);
    }
    return 0;
}

int mpe_in_need_grow(mpe_in *in, mpe_buf *b, size_t at, size_t n, const char *what, mpe_err *e)
{
    const size_t step = (size_t)1 << 20;
    const uint64_t start = in->pos;
    size_t done = 0;
    while (done < n) {
        const size_t want = n - done < step ? n - done : step;
        if (b->cap < at + done + want) {
            unsigned char *nb = realloc(b->p, at + done + want);
            if (nb == NULL) {
                return mpe_fail(e, in->pos, "out of memory");
            }
            b->p = nb;
            b->cap = at + done + want;
        }
        size_t got = 0;
        if (mpe_in_read(in, b->p + at + done, want, &got, e) != 0) {
            return -1;
        }
        done += got;
        if (got < want) {
            return mpe_fail(e, in->pos,
                            "truncated: %s needs %zu bytes from byte %llu, input ends at byte %llu",
                            what, n, (unsigned long long)start, (unsigned long long)in->pos);
        }
    }
    return 0;
}

int mpe_in_skip(mpe_in *in, uint64_t n, const char *what, mpe_err *e)
{
    unsigned char scratch[4096];
    const uint64_t start = in->pos;
    while (n > 0) {
        const size_t want = n < sizeof scratch ? (size_t)n : sizeof scratch;
        size_t got = 0;
        if (mpe_in_read(in, scratch, want, &got, e) != 0) {
            return -1;
        }
        if (got < want) {
            return mpe_fail(e, in->pos, "truncated: %s from byte %llu, input ends at byte %llu",
                            what, (unsigned long long)start, (unsigned long long)in->pos);
        }
        n -= got;
    }
    return 0;
}

int mpe_in_at_end(mpe_in *in, mpe_err *e)
{
    unsigned char b;
    size_t got = 0;
    if (mpe_in_read(in, &b, 1, &got, e) != 0) {
        return -1;
    }
    return got == 0 ? 1 : 0;
}

/* ---- big-endian ----------------------------------------------------- */

static uint64_t load_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = (v << 8) | p[i];
    }
    return v;
}

int32_t mpe_be_i32(const unsigned char *p)
{
    return (int32_t)(uint32_t)load_be(p, 4);
}

int16_t mpe_be_i16(const unsigned char *p)
{
    return (int16_t)(uint16_t)load_be(p, 2);
}

int64_t mpe_be_i64(const unsigned char *p)
{
    return (int64_t)load_be(p, 8);
}

double mpe_be_f64(const unsigned char *p)
{
    const uint64_t bits = load_be(p, 8);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

float mpe_be_f32(const unsigned char *p)
{
    const uint32_t bits = (uint32_t)load_be(p, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void mpe_cur_init(mpe_cur *c, const void *p, size_t len, uint64_t base)
{
    c->p = p;
    c->len = len;
    c->at = 0;
    c->base = base;
    c->bad = false;
}

const unsigned char *mpe_cur_bytes(mpe_cur *c, size_t n)
{
    if (c->bad || c->len - c->at < n) {
        c->bad = true;
        return NULL;
    }
    const unsigned char *p = c->p + c->at;
    c->at += n;
    return p;
}

uint8_t mpe_cur_u8(mpe_cur *c)
{
    const unsigned char *p = mpe_cur_bytes(c, 1);
    return p != NULL ? p[0] : 0;
}

int16_t mpe_cur_i16(mpe_cur *c)
{
    const unsigned char *p = mpe_cur_bytes(c, 2);
    if (p == NULL) {
        return 0;
    }
    return mpe_be_i16(p);
}

int32_t mpe_cur_i32(mpe_cur *c)
{
    const unsigned char *p = mpe_cur_bytes(c, 4);
    return p != NULL ? mpe_be_i32(p) : 0;
}

int64_t mpe_cur_i64(mpe_cur *c)
{
    const unsigned char *p = mpe_cur_bytes(c, 8);
    return p != NULL ? mpe_be_i64(p) : 0;
}

float mpe_cur_f32(mpe_cur *c)
{
    const unsigned char *p = mpe_cur_bytes(c, 4);
    return p != NULL ? mpe_be_f32(p) : 0.0f;
}

double mpe_cur_f64(mpe_cur *c)
{
    const unsigned char *p = mpe_cur_bytes(c, 8);
    return p != NULL ? mpe_be_f64(p) : 0.0;
}

/* ---- info formats --------------------------------------------------- */

static bool is_fmt_type(char c)
{
    return c != '\0' && strchr("shdxlXeE", c) != NULL;
}

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

int mpe_fmt_init(mpe_fmt *f, uint32_t nkeys)
{
    memset(f, 0, sizeof *f);
    if (nkeys == 0) {
        return 0;
    }
    f->keys = calloc(nkeys, sizeof *f->keys);
    if (f->keys == NULL) {
        return -1;
    }
    f->nkeys = nkeys;
    return 0;
}

/* Tokens in a format, or MPE_FMT_MAX + 1 when there are too many. */
static uint32_t count_tokens(const char *p)
{
    uint32_t n = 0;
    for (; *p != '\0' && n <= MPE_FMT_MAX; p++) {
        if (p[0] == '%' && is_fmt_type(p[1])) {
            n++;
            p++;
        }
    }
    return n;
}

int mpe_fmt_parse(mpe_fmt *f, const char *format)
{
    const uint32_t n = count_tokens(format);
    if (n > MPE_FMT_MAX || mpe_fmt_init(f, n + 1) != 0) {
        memset(f, 0, sizeof *f);
        return -1;
    }
    const char *key = format;
    const char *p = format;
    while (*p != '\0') {
        if (p[0] == '%' && is_fmt_type(p[1])) {
            f->keys[f->ntypes] = dup_range(key, (size_t)(p - key));
            if (f->keys[f->ntypes] == NULL) {
                mpe_fmt_free(f);
                return -1;
            }
            f->types[f->ntypes++] = p[1];
            p += 2;
            key = p;
        } else {
            p++;
        }
    }
    f->keys[f->ntypes] = dup_range(key, (size_t)(p - key));
    if (f->keys[f->ntypes] == NULL) {
        mpe_fmt_free(f);
        return -1;
    }
    return 0;
}

void mpe_fmt_free(mpe_fmt *f)
{
    for (uint32_t i = 0; i < f->nkeys; i++) {
        free(f->keys[i]);
    }
    free(f->keys);
    memset(f, 0, sizeof *f);
}

static bool is_key_trim(char c)
{
    return isspace((unsigned char)c) || c == '=' || c == ':' || c == ',' || c == ';';
}

void mpe_fmt_arg_key(const mpe_fmt *f, uint32_t i, char *out, size_t outlen)
{
    const char *k = (i < f->ntypes && i < f->nkeys && f->keys[i] != NULL) ? f->keys[i] : "";
    size_t n = strlen(k);
    while (n > 0 && is_key_trim(k[n - 1])) {
        n--;
    }
    while (n > 0 && is_key_trim(*k)) {
        k++;
        n--;
    }
    if (n == 0) {
        (void)snprintf(out, outlen, "arg%u", i);
        return;
    }
    (void)snprintf(out, outlen, "%.*s", (int)n, k);
}

/* Bytes one value of `type` takes at `p` (with `left` bytes left), 0 if it
 * does not fit. */
static size_t value_size(char type, const unsigned char *p, size_t left)
{
    switch (type) {
    case 'h':
        return left >= 2 ? 2 : 0;
    case 'd':
    case 'x':
    case 'e':
        return left >= 4 ? 4 : 0;
    case 'l':
    case 'X':
    case 'E':
        return left >= 8 ? 8 : 0;
    case 's': {
        if (left < 2) {
            return 0;
        }
        const int16_t n = mpe_be_i16(p);
        return (n >= 0 && (size_t)n <= left - 2) ? 2 + (size_t)n : 0;
    }
    default:
        return 0;
    }
}

uint32_t mpe_info_decode(const mpe_fmt *f, const unsigned char *info, size_t len, mpe_value *out)
{
    size_t at = 0;
    uint32_t n = 0;
    for (; n < f->ntypes; n++) {
        const char t = f->types[n];
        const unsigned char *p = info + at;
        const size_t sz = value_size(t, p, len - at);
        if (sz == 0) {
            break;
        }
        mpe_value *v = &out[n];
        memset(v, 0, sizeof *v);
        v->type = t;
        switch (t) {
        case 'h':
            v->i = mpe_be_i16(p);
            break;
        case 'd':
            v->i = mpe_be_i32(p);
            break;
        case 'x':
            v->i = (int64_t)(uint32_t)mpe_be_i32(p);
            break;
        case 'l':
        case 'X':
            v->i = mpe_be_i64(p);
            break;
        case 'e':
            v->d = (double)mpe_be_f32(p);
            break;
        case 'E':
            v->d = mpe_be_f64(p);
            break;
        default: /* 's' */
            v->s = p + 2;
            v->slen = (uint32_t)(sz - 2);
            break;
        }
        at += sz;
    }
    return n;
}

/* ---- colours -------------------------------------------------------- */

/* The colour names of the MPE corpus with the RGB values jumpshot.colors
 * gives them (taken from the SLOG-2 category maps of the same runs; note
 * gray = 192,192,192), plus the X11 basics. */
static const struct {
    const char *name; /* lower case, no blanks */
    uint32_t rgb;
} colour_table[] = {
    {"aquamarine", 0x7fffd4},
    {"beige", 0xf5f5dc},
    {"black", 0x000000},
    {"blue", 0x0000ff},
    {"brown", 0xa52a2a},
    {"cadetblue", 0x5f9ea0},
    {"chartreuse", 0x7fff00},
    {"chocolate", 0xd2691e},
    {"coral", 0xff7f50},
    {"cornflowerblue", 0x6495ed},
    {"cyan", 0x00ffff},
    {"darkblue", 0x00008b},
    {"darkcyan", 0x008b8b},
    {"darkgoldenrod", 0xb8860b},
    {"darkgray", 0xa9a9a9},
    {"darkgreen", 0x006400},
    {"darkgrey", 0xa9a9a9},
    {"darkkhaki", 0xbdb76b},
    {"darkmagenta", 0x8b008b},
    {"darkolivegreen", 0x556b2f},
    {"darkolivegreen2", 0xbcee68},
    {"darkorange", 0xff8c00},
    {"darkorchid", 0x9932cc},
    {"darkred", 0x8b0000},
    {"darksalmon", 0xe9967a},
    {"darkseagreen", 0x8fbc8f},
    {"darkslateblue", 0x483d8b},
    {"darkslategray", 0x2f4f4f},
    {"darkturquoise", 0x00ced1},
    {"darkviolet", 0x9400d3},
    {"deeppink", 0xff1493},
    {"deepskyblue", 0x00bfff},
    {"dodgerblue", 0x1e90ff},
    {"firebrick", 0xb22222},
    {"forestgreen", 0x228b22},
    {"gold", 0xffd700},
    {"goldenrod", 0xdaa520},
    {"gray", 0xc0c0c0},
    {"green", 0x00ff00},
    {"greenyellow", 0xadff2f},
    {"grey", 0xc0c0c0},
    {"hotpink", 0xff69b4},
    {"indianred", 0xcd5c5c},
    {"ivory", 0xfffff0},
    {"khaki", 0xf0e68c},
    {"lavender", 0xe6e6fa},
    {"lawngreen", 0x7cfc00},
    {"lightblue", 0xadd8e6},
    {"lightcoral", 0xf08080},
    {"lightcyan", 0xe0ffff},
    {"lightgray", 0xd3d3d3},
    {"lightgreen", 0x90ee90},
    {"lightgrey", 0xd3d3d3},
    {"lightpink", 0xffb6c1},
    {"lightsalmon", 0xffa07a},
    {"lightseagreen", 0x20b2aa},
    {"lightskyblue", 0x87cefa},
    {"lightslateblue", 0x8470ff},
    {"lightsteelblue", 0xb0c4de},
    {"lightyellow", 0xffffe0},
    {"limegreen", 0x32cd32},
    {"magenta", 0xff00ff},
    {"maroon", 0xb03060},
    {"mediumblue", 0x0000cd},
    {"mediumorchid", 0xba55d3},
    {"mediumpurple", 0x9370db},
    {"mediumseagreen", 0x3cb371},
    {"midnightblue", 0x191970},
    {"navy", 0x000080},
    {"navyblue", 0x000080},
    {"olivedrab", 0x6b8e23},
    {"orange", 0xffa500},
    {"orangered", 0xff4500},
    {"orchid", 0xda70d6},
    {"palegreen", 0x98fb98},
    {"paleturquoise", 0xafeeee},
    {"peru", 0xcd853f},
    {"pink", 0xffc0cb},
    {"plum", 0xdda0dd},
    {"powderblue", 0xb0e0e6},
    {"purple", 0xa020f0},
    {"red", 0xff0000},
    {"royalblue", 0x4169e1},
    {"saddlebrown", 0x8b4513},
    {"salmon", 0xfa8072},
    {"sandybrown", 0xf4a460},
    {"seagreen", 0x2e8b57},
    {"sienna", 0xa0522d},
    {"skyblue", 0x87ceeb},
    {"slateblue", 0x6a5acd},
    {"slategray", 0x708090},
    {"springgreen", 0x00ff7f},
    {"steelblue", 0x4682b4},
    {"tan", 0xd2b48c},
    {"thistle", 0xd8bfd8},
    {"tomato", 0xff6347},
    {"turquoise", 0x40e0d0},
    {"violet", 0xee82ee},
    {"violetred", 0xd02090},
    {"wheat", 0xf5deb3},
    {"white", 0xffffff},
    {"yellow", 0xffff00},
    {"yellowgreen", 0x9acd32},
};

/* "Sea Green:extra" -> "seagreen". */
static void colour_key(const char *name, char *key, size_t len)
{
    size_t n = 0;
    for (const char *p = name; *p != '\0' && *p != ':' && n + 1 < len; p++) {
        const char ch = *p;
        if (ch == ' ' || ch == '\t') {
            continue;
        }
        static const char upper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        static const char lower[] = "abcdefghijklmnopqrstuvwxyz";
        const char *u = strchr(upper, ch);
        if (u != NULL) {
            key[n++] = lower[u - upper];
        } else {
            key[n++] = ch;
        }
    }
    key[n] = '\0';
}

uint32_t mpe_colour_rgba(const char *name)
{
    char key[64];
    colour_key(name, key, sizeof key);
    for (size_t i = 0; i < sizeof colour_table / sizeof colour_table[0]; i++) {
        if (strcmp(colour_table[i].name, key) == 0) {
            return (colour_table[i].rgb << 8) | 0xffu;
        }
    }
    return 0;
}

bool mpe_seconds_to_ns(double t, int64_t *ns)
{
    const double v = t * 1e9;
    if (!isfinite(v) || v >= 9.2e18 || v <= -9.2e18) {
        return false;
    }
    *ns = (int64_t)llround(v);
    return true;
}

/* ---- map ------------------------------------------------------------ */

static size_t map_slot(uint64_t a, uint64_t b, size_t cap)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    return (size_t)h & (cap - 1);
}

static int map_grow(mpe_map *m)
{
    const size_t ncap = m->cap == 0 ? 64 : m->cap * 2;
    uint64_t *keys = calloc(ncap * 2, sizeof *keys);
    uint32_t *vals = calloc(ncap, sizeof *vals);
    unsigned char *used = calloc(ncap, 1);
    if (keys == NULL || vals == NULL || used == NULL) {
        free(keys);
        free(vals);
        free(used);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->used[i] == 0) {
            continue;
        }
        size_t s = map_slot(m->keys[2 * i], m->keys[2 * i + 1], ncap);
        while (used[s] != 0) {
            s = (s + 1) & (ncap - 1);
        }
        used[s] = 1;
        keys[2 * s] = m->keys[2 * i];
        keys[2 * s + 1] = m->keys[2 * i + 1];
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = keys;
    m->vals = vals;
    m->used = used;
    m->cap = ncap;
    return 0;
}

int mpe_map_put(mpe_map *m, uint64_t a, uint64_t b, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m) != 0) {
        return -1;
    }
    size_t s = map_slot(a, b, m->cap);
    while (m->used[s] != 0) {
        if (m->keys[2 * s] == a && m->keys[2 * s + 1] == b) {
            m->vals[s] = val;
            return 0;
        }
        s = (s + 1) & (m->cap - 1);
    }
    m->used[s] = 1;
    m->keys[2 * s] = a;
    m->keys[2 * s + 1] = b;
    m->vals[s] = val;
    m->n++;
    return 0;
}

bool mpe_map_get(const mpe_map *m, uint64_t a, uint64_t b, uint32_t *val)
{
    if (m->cap == 0) {
        return false;
    }
    size_t s = map_slot(a, b, m->cap);
    while (m->used[s] != 0) {
        if (m->keys[2 * s] == a && m->keys[2 * s + 1] == b) {
            *val = m->vals[s];
            return true;
        }
        s = (s + 1) & (m->cap - 1);
    }
    return false;
}

void mpe_map_free(mpe_map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}
