/* SPDX-License-Identifier: MIT
 *
 * chrome_parse.c - streaming reader of Chrome Trace Event JSON and DFTracer
 * JSON-lines: yajl's push parser over chunks (never a whole document), with
 * a small frame stack saying where we are (root object, events array, event,
 * args, stackFrames...).  Each event becomes one packed chrome_event record
 * handed to the sink; nested args values are re-serialised as JSON text.
 *
 * Repairs (each warned with file:line:col and counted):
 *  - between events, a missing ',' or a ',' before ']' makes yajl stop on
 *    the offending '{' or ']'; a fresh yajl handle is primed with a
 *    synthetic prefix re-creating the open containers ("[" or
 *    {"k":[ ) and fed again from that byte;
 *  - end of input inside the events array (missing ']', with or without a
 *    trailing ','): the events read are kept; inside an event: that partial
 *    event is dropped;
 *  - invalid UTF-8 in strings (yajl is told not to validate): replaced by
 *    U+FFFD;
 *  - JSON-lines: a line that ends inside a string has a raw newline in the
 *    string; it is joined with the next line (the newline kept as "\n").
 * Anything else is an error at file:line:col saying what was expected.
 *
 * Fast path: between two events of an array (and for each .pfw line) yajl
 * hands over to chrome_scan.c, which reads plain events in place and calls
 * the same handlers; whatever it declines (a repair, an error, the end of
 * the chunk) is undone and read by a fresh yajl handle primed to the same
 * containers, which hands back after that event.  SLOG_CHROME_FAST=0 turns
 * the scanner off (tests/chrome_fast_equiv.py compares both ways).
 * Import library, chrome: public libslog headers, yajl, libc.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "chrome.h"
#include "chrome_scan.h"
#include "text_lines.h"

#define MAX_FRAMES 16
#define MAX_CAPTURE_DEPTH 4096
#define MAX_STRING_BYTES ((size_t)1 << 20) /* longer strings and keys are cut (repaired) */
#define MAX_LINE_JOINS 64
#define MAX_LINE_FIXES 16 /* trailing commas blanked in one line */

typedef enum frame_kind {
    FR_ROOTOBJ,  /* the root object: keys choose what follows */
    FR_EVENTS,   /* an array of events (or samples, or system events) */
    FR_EVENT,    /* one event object */
    FR_ARGS,     /* the event's "args" object */
    FR_ID2,      /* the event's "id2" object */
    FR_FRAMES,   /* the top-level "stackFrames" object */
    FR_FRAME,    /* one stack frame */
    FR_SYSOBJ,   /* systemTraceEvents given as an object */
} frame_kind;

typedef enum events_kind { EV_TRACE, EV_SAMPLES, EV_SYSTEM } events_kind;

/* What to do with a value that arrives (depends on frame and key). */
typedef enum slot {
    SLOT_IGNORE,
    SLOT_NAME, SLOT_CAT, SLOT_PH, SLOT_SCOPE, SLOT_BP, SLOT_S, SLOT_SF, SLOT_BIND,
    SLOT_TS, SLOT_DUR, SLOT_TDUR, SLOT_TTS,
    SLOT_PID, SLOT_TID, SLOT_ID, SLOT_ID2_LOCAL, SLOT_ID2_GLOBAL,
    SLOT_FLOW_IN, SLOT_FLOW_OUT,
    SLOT_ARGS, SLOT_ID2,
    SLOT_EXTRA,    /* unknown event field: kept as arg "@key" */
    SLOT_ARG,      /* member of args */
    SLOT_FRAME_NAME, SLOT_FRAME_PARENT,
    SLOT_TOP_EVENTS, SLOT_TOP_SAMPLES, SLOT_TOP_FRAMES, SLOT_TOP_SYSTEM, SLOT_TOP_OTHER,
    SLOT_SYS_EVENTS,
} slot;

struct chrome_parser {
    import_ctx *ctx;
    chrome_mode mode;
    uint32_t input;
    uint64_t *seq;
    chrome_sink sink;
    chrome_pool *pool;          /* where records are allocated */
    yajl_callbacks cb;
    yajl_handle h;
    text_lines lines;
    const unsigned char *chunk; /* chunk being parsed (JSON mode) */
    size_t chunk_pos;           /* where the current yajl_parse call started */
    bool started, root_seen, root_done, replaying, failed, in_line;

    frame_kind fr[MAX_FRAMES];
    events_kind evk[MAX_FRAMES];
    int nfr;
    slot pending;               /* what the next value is for */

    /* JSON capture of a nested value (args members, extras) */
    int cap_depth;
    slot cap_slot;
    size_t cap_start;
    bool cap_after_key;
    unsigned char *cap_comma;   /* per depth: a member was written */
    /* skipping a value we only count */
    int skip_depth;

    chrome_builder b;
    char topkey[64];
    char *tmp;                  /* UTF-8 repair buffer */
    size_t tmpcap;

    /* JSON-lines */
    char *line;
    size_t line_len, line_cap;
    uint64_t line_no;           /* 1-based number of the (first) line in `line` */
    uint64_t phys_lines;        /* physical lines started so far */
    uint64_t line_off;          /* stream offset of its first byte */
    uint64_t stream_off;        /* bytes fed so far */
    uint32_t joins;             /* raw newlines joined into `line` */
    uint32_t fixes;             /* trailing commas blanked in the current line */
    uint64_t cur_line_base;     /* stream offset of line[0] while parsing it */
    char *fix;                  /* a line with a trailing ',' blanked out */
    size_t fix_cap;
    uint64_t bad_line_no, bad_line_col, bad_off; /* the first line skipped (for the error) */

    /* the fast path (chrome_scan.c) between yajl's turns */
    chrome_scan scan;
    bool fast_enabled;          /* SLOG_IMPORT_NO_FAST_SCAN turns it off (tests compare) */
    bool fast_ready;            /* yajl stopped between two events: the scanner reads on */
    bool fast_switch;           /* a handler asked yajl to stop for the scanner */
    bool fast_after_elem;       /* an element precedes: the scanner expects ',' first */
    bool in_fast;               /* the handlers run for the scanner */
    uint64_t fast_off;          /* stream offset just after the scanned event's '{' */
    uint32_t fast_run;          /* events scanned since yajl last handed over */
    uint32_t fast_backoff, fast_cooldown; /* events left to yajl after a decline */
    uint32_t time_unit;         /* slog_import_time_unit of ts/dur */

    /* counts */
    uint64_t n_events, n_samples, n_frames, n_system, n_nonobj;
    uint64_t n_missing_comma, n_trailing_comma, n_missing_close, n_truncated, n_utf8, n_nul,
        n_newline_joins, n_bad_time, n_rounded, n_inner_comma, n_bad_lines, n_long_string;
    uint64_t n_topkey[8];
};

static const char *const topkey_names[8] = {
    "displayTimeUnit", "metadata", "otherData", "baseTimeNanoseconds", "systemTraceEvents (text)",
    "traceEvents (not an array)", "top-level key (other)", "line (blank or bracket)",
};

/* ---------------------------------------------------------------- errors */

static uint64_t cur_offset(chrome_parser *p)
{
    if (p->in_fast) {
        return p->fast_off;
    }
    if (p->mode == CHROME_MODE_LINES) {
        return p->cur_line_base + yajl_get_bytes_consumed(p->h);
    }
    if (p->h == NULL || p->chunk == NULL) {
        return p->lines.base + p->lines.len;
    }
    return p->lines.base + p->chunk_pos + yajl_get_bytes_consumed(p->h);
}

static void locate(chrome_parser *p, uint64_t off, uint64_t *line, uint64_t *col)
{
    if (p->mode == CHROME_MODE_LINES) {
        *line = p->line_no;
        *col = off >= p->cur_line_base ? off - p->cur_line_base + 1 : 1;
        return;
    }
    text_lines_locate(&p->lines, off, line, col);
}

/* A warning at a stream offset; the literal format is also its cap key. */
#define pwarn_at(p, off, ...)                                                                   \
    do {                                                                                       \
        uint64_t wl_ = 0, wc_ = 0;                                                             \
        const uint64_t wo_ = (off);                                                            \
        locate((p), wo_, &wl_, &wc_);                                                          \
        import_warn((p)->ctx, wl_, wc_, wo_, __VA_ARGS__);                                     \
    } while (0)

static int pfail_at(chrome_parser *p, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int pfail_at(chrome_parser *p, uint64_t off, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    const int len = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (len < 0) {
        msg[0] = '\0';
    }
    uint64_t line = 0, col = 0;
    locate(p, off, &line, &col);
    p->failed = true;
    return import_fail(p->ctx, line, col, off, "%s", msg);
}

/* ---------------------------------------------------------------- UTF-8 */

/* The length of the valid prefix of @p s: UTF-8, and with @p no_nul no NUL
 * (ASCII without NUL is checked eight bytes at a time). */
static size_t utf8_valid_len(const unsigned char *s, size_t len, bool no_nul)
{
    const uint64_t ones = no_nul ? 0x0101010101010101ull : 0;
    size_t i = 0;
    for (uint64_t w; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        if ((w | ((w - ones) & ~w)) & 0x8080808080808080ull) {
            break;
        }
    }
    while (i < len) {
        if (s[i] < 0x80 && (s[i] != 0 || !no_nul)) {
            i++;
            continue;
        }
        const size_t k = s[i] == 0 ? 0 : chrome_utf8_seq(s + i, len - i);
        if (k == 0) {
            break;
        }
        i += k;
    }
    return i;
}

enum { UTF8_BAD = 1, UTF8_NUL = 2 };

/* Copy @p s to @p out (room for 3 bytes per byte) with each bad byte (and
 * with @p no_nul each NUL) replaced by U+FFFD; returns the length, *what
 * says which were found. */
static size_t utf8_repair(const unsigned char *s, size_t len, bool no_nul, char *out,
                          unsigned *what)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        const size_t k = s[i] == 0    ? (no_nul ? 0 : 1)
                         : s[i] < 0x80 ? 1
                                       : chrome_utf8_seq(s + i, len - i);
        if (k == 0) {
            out[o++] = (char)0xef; /* U+FFFD */
            out[o++] = (char)0xbf;
            out[o++] = (char)0xbd;
            *what |= s[i] != 0 ? UTF8_BAD : UTF8_NUL;
            i++;
        } else {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    return o;
}

/* Validate; on bad bytes build a repaired copy in p->tmp.  With @p no_nul
 * a NUL (JSON's \u0000, decoded by yajl) is a bad byte too: the string is
 * stored as a C string, which would end at it and lose the rest.  Returns
 * the text to use (s itself when valid) and sets *n; NULL on no memory. */
static const unsigned char *utf8_fix(chrome_parser *p, const unsigned char *s, size_t *n,
                                     bool no_nul)
{
    const size_t len = *n;
    if (utf8_valid_len(s, len, no_nul) == len) {
        return s;
    }
    if (p->tmpcap < len * 3 + 1) {
        char *t = realloc(p->tmp, len * 3 + 1);
        if (t == NULL) {
            return NULL;
        }
        p->tmp = t;
        p->tmpcap = len * 3 + 1;
    }
    unsigned what = 0;
    *n = utf8_repair(s, len, no_nul, p->tmp, &what);
    if (what & UTF8_BAD) {
        p->n_utf8++;
        pwarn_at(p, cur_offset(p), "invalid UTF-8 in a string (replaced by U+FFFD)");
    }
    if (what & UTF8_NUL) {
        p->n_nul++;
        pwarn_at(p, cur_offset(p), "\\u0000 in a string (replaced by U+FFFD: text is stored "
                                   "NUL-terminated)");
    }
    return (const unsigned char *)p->tmp;
}

/* --------------------------------------------------------- JSON capture */

static int cap_json_string(chrome_builder *b, const unsigned char *s, size_t n)
{
    if (chrome_builder_put(b, "\"", 1) != 0) {
        return -1;
    }
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            continue;
        }
        if (chrome_builder_put(b, s + run, i - run) != 0) {
            return -1;
        }
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            esc[2] = '\0';
        } else if (c == '\n') {
            memcpy(esc, "\\n", 3);
        } else if (c == '\t') {
            memcpy(esc, "\\t", 3);
        } else {
            (void)snprintf(esc, sizeof esc, "\\u%04x", c);
        }
        if (chrome_builder_put(b, esc, strlen(esc)) != 0) {
            return -1;
        }
        run = i + 1;
    }
    if (chrome_builder_put(b, s + run, n - run) != 0 || chrome_builder_put(b, "\"", 1) != 0) {
        return -1;
    }
    return 0;
}

static int cap_prefix(chrome_parser *p)
{
    if (p->cap_after_key) {
        p->cap_after_key = false;
        return 0;
    }
    if (p->cap_depth > 0) {
        unsigned char *c = &p->cap_comma[p->cap_depth];
        if (*c && chrome_builder_put(&p->b, ",", 1) != 0) {
            return -1;
        }
        *c = 1;
    }
    return 0;
}

static int cap_open(chrome_parser *p, char ch)
{
    if (cap_prefix(p) != 0) {
        return -1;
    }
    if (p->cap_depth + 1 >= MAX_CAPTURE_DEPTH) {
        return -2;
    }
    p->cap_depth++;
    p->cap_comma[p->cap_depth] = 0;
    return chrome_builder_put(&p->b, &ch, 1);
}

/* ------------------------------------------------------------ dispatch */

#define RC_SWITCH 0x5a /* from a handler: stop yajl for the scanner (no error) */

/* yajl's handlers call this between two elements of an events array: stop
 * yajl there and let the scanner read on (JSON mode, unless backing off). */
static int fast_offer(chrome_parser *p, bool after_elem)
{
    if (!p->fast_enabled || p->in_fast || p->mode != CHROME_MODE_JSON ||
        p->evk[p->nfr - 1] == EV_SYSTEM) {
        return 0;
    }
    if (p->fast_cooldown > 0) {
        p->fast_cooldown--;
        return 0;
    }
    p->fast_switch = true;
    p->fast_after_elem = after_elem;
    return RC_SWITCH;
}

static void push_frame(chrome_parser *p, frame_kind k, events_kind ek)
{
    p->fr[p->nfr] = k;
    p->evk[p->nfr] = ek;
    p->nfr++;
}

static frame_kind top_frame(const chrome_parser *p)
{
    return p->fr[p->nfr - 1];
}

static void start_event(chrome_parser *p, events_kind ek)
{
    chrome_builder_reset(&p->b);
    p->b.offset = cur_offset(p) - 1;
    locate(p, p->b.offset, &p->b.line, &p->b.col);
    if (ek == EV_SAMPLES) {
        p->b.flags |= CEV_SAMPLE;
    }
}

static int finish_event(chrome_parser *p)
{
    chrome_event *ev = chrome_builder_pack(&p->b, p->pool);
    if (ev == NULL) {
        return pfail_at(p, p->b.offset, "Out of memory");
    }
    ev->seq = (*p->seq)++;
    ev->input = p->input;
    if (ev->flags & CEV_SAMPLE) {
        p->n_samples++;
    } else {
        p->n_events++;
    }
    if (ev->flags & CEV_BAD_TIME) {
        p->n_bad_time++;
    }
    if (ev->flags & CEV_ROUNDED) {
        p->n_rounded++;
    }
    if (p->sink.event(p->sink.user, ev) != 0) {
        p->failed = true;
        return 1;
    }
    return 0;
}

typedef struct key_slot {
    char name[9];
    slot s;
} key_slot;

/* Inlined with a constant @p len, the compares are one integer compare each. */
static inline slot find_key(const char *k, const key_slot *t, size_t len)
{
    for (; t->name[0] != '\0'; t++) {
        if (memcmp(k, t->name, len) == 0) {
            return t->s;
        }
    }
    return SLOT_EXTRA;
}

/* Known event keys (this runs once per key of every event). */
static slot event_key_slot(const char *k, size_t n)
{
    static const key_slot k1[] = {{"s", SLOT_S}, {"", SLOT_EXTRA}};
    static const key_slot k2[] = {{"ph", SLOT_PH}, {"ts", SLOT_TS}, {"id", SLOT_ID},
                                  {"bp", SLOT_BP}, {"sf", SLOT_SF}, {"", SLOT_EXTRA}};
    static const key_slot k3[] = {{"cat", SLOT_CAT}, {"pid", SLOT_PID}, {"tid", SLOT_TID},
                                  {"dur", SLOT_DUR}, {"tts", SLOT_TTS}, {"id2", SLOT_ID2},
                                  {"", SLOT_EXTRA}};
    static const key_slot k4[] = {{"name", SLOT_NAME}, {"args", SLOT_ARGS},
                                  {"tdur", SLOT_TDUR}, {"", SLOT_EXTRA}};
    static const key_slot k5[] = {{"scope", SLOT_SCOPE}, {"", SLOT_EXTRA}};
    static const key_slot k7[] = {{"bind_id", SLOT_BIND}, {"flow_in", SLOT_FLOW_IN},
                                  {"", SLOT_EXTRA}};
    static const key_slot k8[] = {{"flow_out", SLOT_FLOW_OUT}, {"", SLOT_EXTRA}};
    switch (n) {
    case 1: return find_key(k, k1, 1);
    case 2: return find_key(k, k2, 2);
    case 3: return find_key(k, k3, 3);
    case 4: return find_key(k, k4, 4);
    case 5: return find_key(k, k5, 5);
    case 7: return find_key(k, k7, 7);
    case 8: return find_key(k, k8, 8);
    default: return SLOT_EXTRA;
    }
}

static slot top_key_slot(chrome_parser *p, const char *k, size_t n)
{
    (void)snprintf(p->topkey, sizeof p->topkey, "%.*s", (int)(n < 63 ? n : 63), k);
    if (n == 11 && memcmp(k, "traceEvents", n) == 0) {
        return SLOT_TOP_EVENTS;
    }
    if (n == 7 && memcmp(k, "samples", n) == 0) {
        return SLOT_TOP_SAMPLES;
    }
    if (n == 11 && memcmp(k, "stackFrames", n) == 0) {
        return SLOT_TOP_FRAMES;
    }
    if (n == 17 && memcmp(k, "systemTraceEvents", n) == 0) {
        return SLOT_TOP_SYSTEM;
    }
    return SLOT_TOP_OTHER;
}

static void count_top_other(chrome_parser *p)
{
    static const char *const known[] = {"displayTimeUnit", "metadata", "otherData",
                                        "baseTimeNanoseconds"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(p->topkey, known[i]) == 0) {
            p->n_topkey[i]++;
            return;
        }
    }
    p->n_topkey[6]++;
}

/* A scalar value (string, number text, bool, null) for the pending slot. */
typedef enum scalar_kind { SC_STRING, SC_NUMBER, SC_BOOL, SC_NULL } scalar_kind;

/* A time parsed as microseconds (in ns) rescaled to the caller's unit:
 * false when it leaves the int64 range. */
static bool rescale_time(uint32_t unit, int64_t *v, bool *rounded)
{
    static const int64_t mul[] = {1, 1, 1, 1000, 1000000}; /* by slog_import_time_unit */
    if (unit == SLOG_IMPORT_TIME_NS) {
        const int64_t q = *v / 1000;
        const int64_t r = *v % 1000;
        *rounded = *rounded || r != 0;
        *v = q + (r >= 500 ? 1 : r <= -500 ? -1 : 0); /* half away from zero */
        return true;
    }
    const int64_t m = mul[unit < 5 ? unit : 0];
    if (*v > INT64_MAX / m || *v < INT64_MIN / m) {
        return false;
    }
    *v *= m;
    return true;
}

static int set_time(chrome_parser *p, const char *t, size_t n, int64_t *dst, uint32_t flag)
{
    bool rounded = false;
    int64_t v = 0;
    const bool micro = p->time_unit == SLOG_IMPORT_TIME_DEFAULT || p->time_unit == SLOG_IMPORT_TIME_US;
    if (chrome_time_parse(t, n, &v, &rounded) != 0 ||
        (!micro && !rescale_time(p->time_unit, &v, &rounded))) {
        p->b.flags |= CEV_BAD_TIME;
        return 0;
    }
    *dst = v;
    p->b.flags |= flag | (rounded ? CEV_ROUNDED : 0u);
    return 0;
}

/* Length + 1 of the string just stored at @p off (the arena's last), or 0
 * when 254 or more: chrome_event's len1_* (saves the key ids a strlen). */
static unsigned char len1_last(const chrome_builder *b, size_t off)
{
    const size_t len = b->alen - off - 1;
    return len < 254 ? (unsigned char)(len + 1) : 0;
}

/* An id-like value: integers (number or string) in canonical form. */
static size_t store_idlike(chrome_builder *b, const char *t, size_t n)
{
    /* already canonical: digits without a leading zero (the usual pid) */
    bool plain = n > 0 && n < 40 && (t[0] != '0' || n == 1);
    for (size_t i = 0; plain && i < n; i++) {
        plain = t[i] >= '0' && t[i] <= '9';
    }
    if (plain) {
        return chrome_builder_str(b, t, n);
    }
    char canon[48];
    if (chrome_int_canon(t, n, canon, sizeof canon)) {
        return chrome_builder_str(b, canon, strlen(canon));
    }
    return chrome_builder_str(b, t, n);
}

static bool integer_text(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char c = t[i];
        if (!((c >= '0' && c <= '9') || (i == 0 && c == '-'))) {
            return false;
        }
    }
    return n > 0;
}

/* The number text kept as JSON text (exact), e.g. beyond 64 bits. */
static int json_text_arg(chrome_barg *a, chrome_builder *b, const char *t, size_t n)
{
    a->type = SLOG_ARG_JSON;
    a->v.s = chrome_builder_str(b, t, n);
    return a->v.s == CHROME_NO_OFF ? -1 : 0;
}

/* An integer of up to 18 digits: fits int64 whatever the digits, no strtoll. */
static void small_int_arg(chrome_barg *a, const char *t, size_t n)
{
    const bool neg = t[0] == '-';
    int64_t v = 0;
    for (size_t i = neg ? 1u : 0u; i < n; i++) {
        v = v * 10 + (t[i] - '0');
    }
    a->type = SLOG_ARG_INT;
    a->v.i = neg ? -v : v;
}

/* A longer integer as int64 or uint64; false beyond 64 bits. */
static bool big_int_arg(chrome_barg *a, const char *buf)
{
    char *end = NULL;
    errno = 0;
    const long long v = strtoll(buf, &end, 10);
    if (errno == 0 && *end == '\0') {
        a->type = SLOG_ARG_INT;
        a->v.i = v;
        return true;
    }
    if (buf[0] == '-') {
        return false;
    }
    errno = 0;
    const unsigned long long u = strtoull(buf, &end, 10);
    if (errno == 0 && *end == '\0') {
        a->type = SLOG_ARG_UINT;
        a->v.u = u;
        return true;
    }
    return false;
}

static int typed_number_arg(chrome_barg *a, chrome_builder *b, const char *t, size_t n)
{
    char buf[64];
    const bool integer = integer_text(t, n);
    if (n >= sizeof buf) {
        return json_text_arg(a, b, t, n); /* very long numbers keep their text */
    }
    if (integer && n <= 18 && (t[0] != '-' || n > 1)) {
        small_int_arg(a, t, n);
        return 0;
    }
    memcpy(buf, t, n);
    buf[n] = '\0';
    if (integer) {
        return big_int_arg(a, buf) ? 0 : json_text_arg(a, b, t, n);
    }
    a->type = SLOG_ARG_DOUBLE;
    a->v.d = strtod(buf, NULL);
    return 0;
}

static int scalar_arg(chrome_parser *p, scalar_kind k, const char *t, size_t n, bool bv)
{
    chrome_builder *b = &p->b;
    chrome_barg *a = chrome_builder_arg(b);
    if (a == NULL) {
        return -1;
    }
    switch (k) {
    case SC_STRING:
        a->type = SLOG_ARG_STRING;
        a->v.s = chrome_builder_str(b, t, n);
        return a->v.s == CHROME_NO_OFF ? -1 : 0;
    case SC_NUMBER:
        return typed_number_arg(a, b, t, n);
    case SC_BOOL:
        a->type = SLOG_ARG_BOOL;
        a->v.b = bv;
        return 0;
    case SC_NULL:
    default:
        a->type = SLOG_ARG_JSON;
        a->v.s = chrome_builder_str(b, "null", 4);
        return a->v.s == CHROME_NO_OFF ? -1 : 0;
    }
}

/* Where a string field of the event goes, NULL when @p s is not one. */
static size_t *string_field(chrome_builder *b, slot s)
{
    switch (s) {
    case SLOT_NAME:
        return &b->name;
    case SLOT_CAT:
        return &b->cat;
    case SLOT_PH:
        return &b->ph;
    case SLOT_SCOPE:
        return &b->scope;
    case SLOT_BP:
        return &b->bp;
    case SLOT_S:
        return &b->s;
    default:
        return NULL;
    }
}

static int set_string_field(chrome_builder *b, slot s, size_t *dst, const char *t, size_t n)
{
    *dst = chrome_builder_str(b, t, n);
    if (*dst == CHROME_NO_OFF) {
        return -1;
    }
    if (s == SLOT_NAME) {
        b->len1_name = len1_last(b, *dst);
    } else if (s == SLOT_CAT) {
        b->len1_cat = len1_last(b, *dst);
    }
    return 0;
}

/* Where a time field goes (and its flag), NULL when @p s is not one. */
static int64_t *time_field(chrome_builder *b, slot s, uint32_t *flag)
{
    switch (s) {
    case SLOT_TS:
        *flag = CEV_HAS_TS;
        return &b->ts;
    case SLOT_DUR:
        *flag = CEV_HAS_DUR;
        return &b->dur;
    case SLOT_TDUR:
        *flag = CEV_HAS_TDUR;
        return &b->tdur;
    case SLOT_TTS:
        *flag = CEV_HAS_TTS;
        return &b->tts;
    default:
        return NULL;
    }
}

/* pid, tid, sf, bind_id and the ids: canonical integer text or the string. */
static int set_id_field(chrome_builder *b, slot s, const char *t, size_t n)
{
    const size_t off = store_idlike(b, t, n);
    if (off == CHROME_NO_OFF) {
        return -1;
    }
    switch (s) {
    case SLOT_PID:
        b->pid = off;
        b->len1_pid = len1_last(b, off);
        break;
    case SLOT_TID:
        b->tid = off;
        b->len1_tid = len1_last(b, off);
        break;
    case SLOT_SF:
        b->sf = off;
        break;
    case SLOT_BIND:
        b->bind_id = off;
        break;
    default:
        b->id = off;
        b->id_kind = (char)(s == SLOT_ID ? 'i' : s == SLOT_ID2_LOCAL ? 'l' : 'g');
        break;
    }
    return 0;
}

static int scalar_event_field(chrome_parser *p, slot s, scalar_kind k, const char *t, size_t n,
                              bool bv)
{
    chrome_builder *b = &p->b;
    const bool text = k == SC_STRING || k == SC_NUMBER;
    size_t *const str = string_field(b, s);
    if (str != NULL) {
        return text ? set_string_field(b, s, str, t, n) : 0;
    }
    uint32_t flag = 0;
    int64_t *const time = time_field(b, s, &flag);
    if (time != NULL) {
        return text ? set_time(p, t, n, time, flag) : 0;
    }
    switch (s) {
    case SLOT_PID:
    case SLOT_TID:
    case SLOT_SF:
    case SLOT_BIND:
    case SLOT_ID:
    case SLOT_ID2_LOCAL:
    case SLOT_ID2_GLOBAL:
        return text ? set_id_field(b, s, t, n) : 0;
    case SLOT_FLOW_IN:
    case SLOT_FLOW_OUT:
        b->flags |= (k == SC_BOOL && bv) ? (s == SLOT_FLOW_IN ? CEV_FLOW_IN : CEV_FLOW_OUT) : 0u;
        return 0;
    case SLOT_ARGS:
        b->key = chrome_builder_str(b, "@args", 5);
        return b->key == CHROME_NO_OFF ? -1 : scalar_arg(p, k, t, n, bv);
    case SLOT_EXTRA:
    case SLOT_ARG:
        return scalar_arg(p, k, t, n, bv);
    default:
        return 0;
    }
}

/* A scalar inside a captured value: appended as JSON text. */
static int cap_scalar(chrome_parser *p, scalar_kind k, const char *t, size_t n, bool bv)
{
    if (cap_prefix(p) != 0) {
        return -1;
    }
    switch (k) {
    case SC_STRING:
        return cap_json_string(&p->b, (const unsigned char *)t, n);
    case SC_NUMBER:
        return chrome_builder_put(&p->b, t, n);
    case SC_BOOL:
        return bv ? chrome_builder_put(&p->b, "true", 4) : chrome_builder_put(&p->b, "false", 5);
    case SC_NULL:
    default:
        return chrome_builder_put(&p->b, "null", 4);
    }
}

static int events_scalar(chrome_parser *p)
{
    if (p->evk[p->nfr - 1] == EV_SYSTEM) {
        p->n_system++;
    } else {
        p->n_nonobj++;
        pwarn_at(p, cur_offset(p), "an events array element that is not an object (skipped)");
    }
    return 0;
}

/* name and parent of a stackFrames entry (the parent id kept in the cat slot). */
static int frame_scalar(chrome_parser *p, slot s, scalar_kind k, const char *t, size_t n)
{
    if ((s != SLOT_FRAME_NAME && s != SLOT_FRAME_PARENT) || (k != SC_STRING && k != SC_NUMBER)) {
        return 0;
    }
    const bool name = s == SLOT_FRAME_NAME;
    const size_t off = name ? chrome_builder_str(&p->b, t, n) : store_idlike(&p->b, t, n);
    if (off == CHROME_NO_OFF) {
        return -1;
    }
    *(name ? &p->b.name : &p->b.cat) = off;
    return 0;
}

static int root_scalar(chrome_parser *p, slot s)
{
    if (s == SLOT_TOP_SYSTEM) {
        p->n_topkey[4]++;
    } else if (s == SLOT_TOP_EVENTS || s == SLOT_TOP_SAMPLES || s == SLOT_TOP_FRAMES) {
        p->n_topkey[5]++;
    } else {
        count_top_other(p);
    }
    return 0;
}

/* Length to keep of a string or key: at most MAX_STRING_BYTES, cut at a
 * UTF-8 character boundary, so what one hostile string costs downstream
 * (records, interned names, the file) is bounded. */
static size_t clip_long(chrome_parser *p, const char *t, size_t n)
{
    if (n <= MAX_STRING_BYTES) {
        return n;
    }
    size_t keep = MAX_STRING_BYTES;
    while (keep > 0 && ((unsigned char)t[keep] & 0xC0) == 0x80) {
        keep--;
    }
    p->n_long_string++;
    pwarn_at(p, cur_offset(p), "a string of %zu bytes (cut to %zu)", n, keep);
    return keep;
}

static int on_scalar(chrome_parser *p, scalar_kind k, const char *t, size_t n, bool bv)
{
    if (p->skip_depth > 0) {
        return 0;
    }
    n = k == SC_STRING ? clip_long(p, t, n) : n;
    if (p->cap_depth > 0) {
        return cap_scalar(p, k, t, n, bv);
    }
    if (p->nfr == 0) {
        return -3; /* a scalar as the whole document */
    }
    const slot s = p->pending;
    p->pending = SLOT_IGNORE;
    switch (top_frame(p)) {
    case FR_EVENTS:
        return events_scalar(p);
    case FR_EVENT:
    case FR_ARGS:
    case FR_ID2:
        return scalar_event_field(p, s, k, t, n, bv);
    case FR_FRAME:
        return frame_scalar(p, s, k, t, n);
    case FR_ROOTOBJ:
        return root_scalar(p, s);
    case FR_FRAMES:
    case FR_SYSOBJ:
    default:
        return 0;
    }
}

/* ------------------------------------------------------ yajl callbacks */

#define CB_PARSER(ctx) chrome_parser *p = (chrome_parser *)(ctx)
#define CB_RESULT(rc) return cb_result(p, (rc))

static int cb_result(chrome_parser *p, int rc)
{
    if (rc == 0) {
        return 1;
    }
    if (rc == RC_SWITCH) {
        return 0; /* yajl_status_client_canceled with p->fast_switch set */
    }
    if (!p->failed) {
        if (rc == -2) {
            (void)pfail_at(p, cur_offset(p), "nesting deeper than %d levels", MAX_CAPTURE_DEPTH);
        } else if (rc == -3) {
            (void)pfail_at(p, cur_offset(p), "expected '[' or '{' (a trace is an array or object)");
        } else if (rc > 0) {
            p->failed = true; /* already reported */
        } else {
            (void)pfail_at(p, cur_offset(p), "Out of memory");
        }
    }
    return 0;
}

static int cb_null(void *ctx)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(on_scalar(p, SC_NULL, NULL, 0, false));
}

static int cb_bool(void *ctx, int v)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(on_scalar(p, SC_BOOL, NULL, 0, v != 0));
}

static int cb_number(void *ctx, const char *s, size_t n)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(on_scalar(p, SC_NUMBER, s, n, false));
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    if (p->skip_depth > 0) {
        return 1;
    }
    const unsigned char *t = utf8_fix(p, s, &n, p->cap_depth == 0);
    if (t == NULL) {
        CB_RESULT(-1);
    }
    CB_RESULT(on_scalar(p, SC_STRING, (const char *)t, n, false));
}

/* Capture a nested value as JSON text into a new arg. */
static int capture_value(chrome_parser *p, bool is_map)
{
    chrome_barg *a = chrome_builder_arg(&p->b);
    if (a == NULL) {
        return -1;
    }
    a->type = SLOG_ARG_JSON;
    p->cap_start = p->b.alen;
    p->cap_after_key = false;
    p->cap_depth = 0;
    return cap_open(p, is_map ? '{' : '[');
}

static int skip_value(chrome_parser *p)
{
    p->skip_depth = 1;
    return 0;
}

/* Under the root object: the events (or samples) array, stackFrames,
 * systemTraceEvents; anything else is counted and skipped. */
static int open_in_root(chrome_parser *p, slot s, bool is_map)
{
    if ((s == SLOT_TOP_EVENTS || s == SLOT_TOP_SAMPLES) && !is_map) {
        push_frame(p, FR_EVENTS, s == SLOT_TOP_EVENTS ? EV_TRACE : EV_SAMPLES);
        return fast_offer(p, false);
    }
    if (s == SLOT_TOP_FRAMES && is_map) {
        push_frame(p, FR_FRAMES, EV_TRACE);
        return 0;
    }
    if (s == SLOT_TOP_SYSTEM) {
        push_frame(p, is_map ? FR_SYSOBJ : FR_EVENTS, EV_SYSTEM);
        return 0;
    }
    if (s == SLOT_TOP_EVENTS) {
        p->n_topkey[5]++;
    } else {
        count_top_other(p);
    }
    return skip_value(p);
}

/* An element of an events array: an event when it is an object. */
static int open_in_events(chrome_parser *p, bool is_map)
{
    const events_kind ek = p->evk[p->nfr - 1];
    if (ek == EV_SYSTEM) {
        p->n_system++;
        return skip_value(p);
    }
    if (!is_map) {
        p->n_nonobj++;
        pwarn_at(p, cur_offset(p) - 1, "an events array element that is not an object (skipped)");
        return skip_value(p);
    }
    start_event(p, ek);
    push_frame(p, FR_EVENT, ek);
    return 0;
}

static int open_in_frames(chrome_parser *p, bool is_map)
{
    if (!is_map) {
        return skip_value(p);
    }
    push_frame(p, FR_FRAME, EV_TRACE);
    p->b.name = CHROME_NO_OFF;
    p->b.cat = CHROME_NO_OFF;
    return 0;
}

/* A container as an event field: args and id2 objects are read; an array
 * as args and unknown fields are kept as JSON text; else skipped. */
static int open_in_event(chrome_parser *p, slot s, bool is_map)
{
    if ((s == SLOT_ARGS || s == SLOT_ID2) && is_map) {
        push_frame(p, s == SLOT_ARGS ? FR_ARGS : FR_ID2, EV_TRACE);
        return 0;
    }
    if (s == SLOT_ARGS) {
        p->b.key = chrome_builder_str(&p->b, "@args", 5);
        return p->b.key == CHROME_NO_OFF ? -1 : capture_value(p, is_map);
    }
    if (s == SLOT_EXTRA) {
        return capture_value(p, is_map);
    }
    return skip_value(p); /* a container where a scalar field belongs */
}

static int open_root(chrome_parser *p, bool is_map)
{
    p->root_seen = true;
    push_frame(p, is_map ? FR_ROOTOBJ : FR_EVENTS, EV_TRACE);
    return is_map ? 0 : fast_offer(p, false);
}

/* A container starts: decide its frame from the pending slot. */
static int open_container(chrome_parser *p, bool is_map)
{
    if (p->skip_depth > 0) {
        if (p->skip_depth >= MAX_CAPTURE_DEPTH) {
            return -2; /* yajl's own stack would grow with every '[' */
        }
        p->skip_depth++;
        return 0;
    }
    if (p->cap_depth > 0) {
        return cap_open(p, is_map ? '{' : '[');
    }
    if (p->nfr == 0) {
        return open_root(p, is_map);
    }
    if (p->nfr >= MAX_FRAMES - 1) {
        return -2;
    }
    const slot s = p->pending;
    p->pending = SLOT_IGNORE;
    switch (top_frame(p)) {
    case FR_ROOTOBJ:
        return open_in_root(p, s, is_map);
    case FR_SYSOBJ:
        if (s == SLOT_SYS_EVENTS && !is_map) {
            push_frame(p, FR_EVENTS, EV_SYSTEM);
            return 0;
        }
        return skip_value(p);
    case FR_EVENTS:
        return open_in_events(p, is_map);
    case FR_FRAMES:
        return open_in_frames(p, is_map);
    case FR_EVENT:
        return open_in_event(p, s, is_map);
    case FR_ARGS:
        return capture_value(p, is_map);
    case FR_ID2:
    case FR_FRAME:
    default:
        return skip_value(p);
    }
}

/* The end of a captured container; the outermost ends the arg's text. */
static int cap_close(chrome_parser *p, bool is_map)
{
    const char ch = is_map ? '}' : ']';
    if (chrome_builder_put(&p->b, &ch, 1) != 0) {
        return -1;
    }
    p->cap_depth--;
    if (p->cap_depth == 0) {
        if (chrome_builder_put(&p->b, "", 1) != 0) { /* NUL-terminate the text */
            return -1;
        }
        p->b.args[p->b.nargs - 1].v.s = p->cap_start;
    }
    return 0;
}

static int finish_frame(chrome_parser *p)
{
    p->n_frames++;
    const char *name = p->b.name == CHROME_NO_OFF ? "" : p->b.arena + p->b.name;
    const char *parent = p->b.cat == CHROME_NO_OFF ? NULL : p->b.arena + p->b.cat;
    const int rc = p->sink.frame(p->sink.user, p->input, p->b.arena + p->b.key, name, parent);
    return rc != 0 ? 1 : 0;
}

static int close_container(chrome_parser *p, bool is_map)
{
    if (p->skip_depth > 0) {
        p->skip_depth--;
        return 0;
    }
    if (p->cap_depth > 0) {
        return cap_close(p, is_map);
    }
    if (p->nfr == 0) {
        return 0;
    }
    const frame_kind k = top_frame(p);
    p->nfr--;
    if (p->nfr == 0) {
        p->root_done = true;
    }
    if (k == FR_EVENT) {
        const int rc = finish_event(p);
        return rc == 0 ? fast_offer(p, true) : rc;
    }
    if (k == FR_FRAME && p->sink.frame != NULL) {
        return finish_frame(p);
    }
    return 0;
}

static int cb_start_map(void *ctx)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(open_container(p, true));
}

static int cb_end_map(void *ctx)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(close_container(p, true));
}

static int cb_start_array(void *ctx)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(open_container(p, false));
}

static int cb_end_array(void *ctx)
{
    CB_PARSER(ctx);
    if (p->replaying) {
        return 1;
    }
    CB_RESULT(close_container(p, false));
}

static bool key_is(const char *key, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(key, want, n) == 0;
}

/* A key inside a captured value: appended as JSON text. */
static int cap_key(chrome_parser *p, const unsigned char *k, size_t n)
{
    unsigned char *c = &p->cap_comma[p->cap_depth];
    if (*c && chrome_builder_put(&p->b, ",", 1) != 0) {
        return -1;
    }
    *c = 1;
    p->cap_after_key = true;
    if (cap_json_string(&p->b, k, n) != 0 || chrome_builder_put(&p->b, ":", 1) != 0) {
        return -1;
    }
    return 0;
}

/* A key of the event: known fields have a slot, others become "@key" args. */
static int event_key(chrome_parser *p, const char *key, size_t n)
{
    p->b.nkeys++;
    p->pending = event_key_slot(key, n);
    if (p->pending != SLOT_EXTRA) {
        return 0;
    }
    p->b.key = p->b.alen;
    if (chrome_builder_put(&p->b, "@", 1) != 0 ||
        chrome_builder_str(&p->b, key, n) == CHROME_NO_OFF) {
        return -1;
    }
    return 0;
}

/* The key of an args member, or of a stackFrames entry (which reuse the
 * builder's arena, one entry at a time). */
static int store_key(chrome_parser *p, const char *key, size_t n, bool restart)
{
    if (restart) {
        p->b.alen = 0;
    }
    p->b.key = chrome_builder_str(&p->b, key, n);
    return p->b.key == CHROME_NO_OFF ? -1 : 0;
}

static slot id2_key_slot(const char *key, size_t n)
{
    return key_is(key, n, "local")    ? SLOT_ID2_LOCAL
           : key_is(key, n, "global") ? SLOT_ID2_GLOBAL
                                      : SLOT_IGNORE;
}

static slot frame_key_slot(const char *key, size_t n)
{
    return key_is(key, n, "name")     ? SLOT_FRAME_NAME
           : key_is(key, n, "parent") ? SLOT_FRAME_PARENT
                                      : SLOT_IGNORE;
}

static int on_key(chrome_parser *p, const unsigned char *k, size_t n)
{
    if (p->skip_depth > 0) {
        return 0;
    }
    n = clip_long(p, (const char *)k, n);
    if (p->cap_depth > 0) {
        return cap_key(p, k, n);
    }
    const char *key = (const char *)k;
    switch (top_frame(p)) {
    case FR_ROOTOBJ:
        p->pending = top_key_slot(p, key, n);
        return 0;
    case FR_SYSOBJ:
        p->pending = key_is(key, n, "events") ? SLOT_SYS_EVENTS : SLOT_IGNORE;
        return 0;
    case FR_EVENT:
        return event_key(p, key, n);
    case FR_ARGS:
        p->pending = SLOT_ARG;
        return store_key(p, key, n, false);
    case FR_ID2:
        p->pending = id2_key_slot(key, n);
        return 0;
    case FR_FRAMES:
        return store_key(p, key, n, true);
    case FR_FRAME:
        p->pending = frame_key_slot(key, n);
        return 0;
    case FR_EVENTS:
    default:
        return 0;
    }
}

/* A known key of an event (the usual case) is taken here, before any UTF-8
 * check (known keys are ASCII). */
static bool known_event_key(chrome_parser *p, const char *k, size_t n)
{
    if (p->skip_depth == 0 && p->cap_depth == 0 && p->nfr > 0 && top_frame(p) == FR_EVENT) {
        const slot s = event_key_slot(k, n);
        if (s != SLOT_EXTRA) {
            p->b.nkeys++;
            p->pending = s;
            return true;
        }
    }
    return false;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
    CB_PARSER(ctx);
    if (p->replaying || known_event_key(p, (const char *)k, n)) {
        return 1;
    }
    const unsigned char *t = utf8_fix(p, k, &n, p->cap_depth == 0);
    if (t == NULL) {
        CB_RESULT(-1);
    }
    CB_RESULT(on_key(p, t, n));
}

/* ------------------------------------------------------------ JSON mode */

static int new_handle(chrome_parser *p)
{
    if (p->h != NULL) {
        yajl_free(p->h);
    }
    p->h = yajl_alloc(&p->cb, NULL, p);
    if (p->h == NULL) {
        return -1;
    }
    (void)yajl_config(p->h, yajl_dont_validate_strings, 1);
    return 0;
}

/* A fresh handle that is inside the same containers as the old one was
 * (and after an element of the innermost array when @p after_elem). */
static int restart_handle(chrome_parser *p, bool after_elem)
{
    if (new_handle(p) != 0) {
        return -1;
    }
    char prefix[MAX_FRAMES * 8 + 2];
    size_t n = 0;
    for (int i = 0; i < p->nfr; i++) {
        for (const char *c = p->fr[i] == FR_EVENTS ? "[" : "{\"k\":"; *c != '\0'; c++) {
            prefix[n++] = *c;
        }
    }
    if (after_elem) {
        prefix[n++] = '{';
        prefix[n++] = '}';
    }
    p->replaying = true;
    const yajl_status st = yajl_parse(p->h, (const unsigned char *)prefix, n);
    p->replaying = false;
    return st == yajl_status_ok ? 0 : -1;
}

static const char *expected_here(const chrome_parser *p)
{
    if (p->nfr == 0) {
        return p->root_done ? "end of input after the trace" : "'[' or '{' (a trace is an array or object)";
    }
    switch (top_frame(p)) {
    case FR_EVENTS:
        return "',' or ']' after an event";
    case FR_ROOTOBJ:
    case FR_SYSOBJ:
    case FR_FRAMES:
        return "a key or '}' in the top-level object";
    case FR_EVENT:
    case FR_ARGS:
    case FR_ID2:
    case FR_FRAME:
    default:
        return "valid JSON inside an event";
    }
}

static bool top_frame_is_inside_event(const chrome_parser *p)
{
    if (p->nfr == 0) {
        return false;
    }
    const frame_kind k = top_frame(p);
    return k == FR_EVENT || k == FR_ARGS || k == FR_ID2 || p->cap_depth > 0;
}

/* Between two events, a '{' (a missing ',') or a ']' (after a trailing
 * ',') is repaired: a fresh handle is primed to the open containers and
 * reads on from that byte.  False when the error is not one of those. */
static bool repair_between(chrome_parser *p, unsigned char c, uint64_t off, int *rc)
{
    const bool between = p->nfr > 0 && top_frame(p) == FR_EVENTS && p->cap_depth == 0 &&
                         p->skip_depth == 0;
    if (!between || (c != '{' && c != ']')) {
        return false;
    }
    if (c == '{') {
        p->n_missing_comma++;
        pwarn_at(p, off, "missing ',' between events (inserted)");
    } else {
        p->n_trailing_comma++;
        pwarn_at(p, off, "trailing ',' before ']' (ignored)");
    }
    *rc = restart_handle(p, false) != 0 ? pfail_at(p, off, "Out of memory") : 0;
    return true;
}

/* yajl's message, first line only. */
static void yajl_message(chrome_parser *p, char *out, size_t size)
{
    unsigned char *msg = yajl_get_error(p->h, 0, NULL, 0);
    (void)snprintf(out, size, "%s", msg != NULL ? (const char *)msg : "");
    yajl_free_error(p->h, msg);
    char *nl = strchr(out, '\n');
    if (nl != NULL) {
        *nl = '\0';
    }
}

/* A syntax error at byte @p c: what was expected there, what was found. */
static int syntax_error(chrome_parser *p, unsigned char c, uint64_t off)
{
    char yajl_msg[160];
    yajl_message(p, yajl_msg, sizeof yajl_msg);
    /* yajl's own expectation ("... I expect ',' or '}'") is the most precise */
    const char *want = strstr(yajl_msg, "I expect ");
    char expected[200];
    if (want != NULL && top_frame_is_inside_event(p)) {
        (void)snprintf(expected, sizeof expected, "%s inside an event", want + 9);
    } else {
        (void)snprintf(expected, sizeof expected, "%s", expected_here(p));
    }
    if (c >= 0x20 && c < 0x7f) {
        return pfail_at(p, off, "expected %s, found '%c' (%s)", expected, c, yajl_msg);
    }
    return pfail_at(p, off, "expected %s, found byte 0x%02x (%s)", expected, c, yajl_msg);
}

/* yajl stopped at chunk[at-1]; repair between events or fail. */
static int json_error(chrome_parser *p, const unsigned char *buf, size_t len, size_t *at)
{
    const size_t consumed = yajl_get_bytes_consumed(p->h);
    const size_t end = p->chunk_pos + consumed < len ? p->chunk_pos + consumed : len;
    const size_t bad = end > 0 ? end - 1 : 0;
    const uint64_t off = p->lines.base + bad;
    int rc = 0;
    if (len > 0 && repair_between(p, buf[bad], off, &rc)) {
        *at = bad;
        return rc;
    }
    if (p->failed) {
        return 1; /* a callback reported already */
    }
    if (len == 0 || bad >= len) {
        return pfail_at(p, off, "expected %s", expected_here(p));
    }
    return syntax_error(p, buf[bad], off);
}

/* ------------------------------------------------------------ fast path */

static int fast_key(void *user, const char *k, size_t n)
{
    chrome_parser *p = user;
    return known_event_key(p, k, n) ? 0 : on_key(p, (const unsigned char *)k, n);
}

static int fast_string(void *user, const char *s, size_t n)
{
    return on_scalar(user, SC_STRING, s, n, false);
}

static int fast_number(void *user, const char *s, size_t n)
{
    return on_scalar(user, SC_NUMBER, s, n, false);
}

static int fast_bool(void *user, bool v)
{
    return on_scalar(user, SC_BOOL, NULL, 0, v);
}

static int fast_null(void *user)
{
    return on_scalar(user, SC_NULL, NULL, 0, false);
}

static int fast_open(void *user, bool is_map)
{
    return open_container(user, is_map);
}

static int fast_close(void *user, bool is_map)
{
    return close_container(user, is_map);
}

static const chrome_scan_sink fast_sink = {fast_key,  fast_string, fast_number, fast_bool,
                                           fast_null, fast_open,   fast_close};

/* One event at s[0] == '{' through the scanner; @p base is the stream
 * offset of s[0].  With @p whole, it must fill all @p n bytes.  Returns its
 * length, 0 when the scanner declined (all undone: yajl reads it), or
 * SIZE_MAX on failure (reported). */
static size_t fast_event(chrome_parser *p, const unsigned char *s, size_t n, uint64_t base,
                         bool whole)
{
    const int nfr = p->nfr;
    const slot pending = p->pending;
    p->in_fast = true;
    p->fast_off = base + 1;
    long r = chrome_scan_object(&p->scan, s, n, &fast_sink, p);
    if (r > 0 && whole && (size_t)r != n) {
        r = CHROME_SCAN_DECLINED;
    }
    int rc = r > 0 ? close_container(p, true) : r == CHROME_SCAN_STOPPED ? p->scan.stop : 0;
    if (rc != 0) {
        (void)cb_result(p, rc);
        p->failed = true;
        p->in_fast = false;
        return SIZE_MAX;
    }
    p->in_fast = false;
    if (r > 0) {
        p->fast_run++;
        return (size_t)r;
    }
    p->nfr = nfr; /* undo the event's frames; the builder restarts with it */
    p->pending = pending;
    p->cap_depth = 0;
    p->skip_depth = 0;
    /* Declining at once again after yajl handed over: leave yajl more
     * events each time (a file full of what the scanner declines costs
     * little); after a good run, come back at once. */
    if (p->fast_run == 0) {
        p->fast_backoff = p->fast_backoff == 0 ? 1 : p->fast_backoff < 1024 ? p->fast_backoff * 2
                                                                              : 1024;
    } else {
        p->fast_backoff = 0;
    }
    p->fast_cooldown = p->fast_backoff;
    p->fast_run = 0;
    return 0;
}

static size_t skip_json_ws(const unsigned char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) {
        i++;
    }
    return i;
}

/* Events of the array from buf[at] while they are plain: returns where the
 * scanner stopped; p->fast_ready stays set when it read all of buf, else
 * yajl goes on from the returned offset (a ',' or '{' or anything else). */
static size_t fast_events(chrome_parser *p, const unsigned char *buf, size_t len, size_t at)
{
    size_t i = at;
    p->fast_run = 0;
    for (;;) {
        i = skip_json_ws(buf, len, i);
        if (i == len) {
            return i;
        }
        size_t ev = i;
        if (p->fast_after_elem) {
            if (buf[i] != ',') {
                break;
            }
            ev = skip_json_ws(buf, len, i + 1);
        }
        if (ev == len || buf[ev] != '{') {
            break;
        }
        const size_t r = fast_event(p, buf + ev, len - ev, p->lines.base + ev, false);
        if (r == SIZE_MAX) {
            return len;
        }
        if (r == 0) {
            break;
        }
        i = ev + r;
        p->fast_after_elem = true;
    }
    p->fast_ready = false;
    return i;
}

/* The scanner's turn from *at: -1 failed, 1 the chunk is all read (the next
 * starts with the scanner), 0 yajl reads on from *at (primed again). */
static int fast_turn(chrome_parser *p, const unsigned char *buf, size_t len, size_t *at)
{
    *at = fast_events(p, buf, len, *at);
    if (p->failed) {
        return -1;
    }
    if (p->fast_ready) {
        return 1;
    }
    if (restart_handle(p, p->fast_after_elem) != 0) {
        (void)pfail_at(p, p->lines.base + *at, "Out of memory");
        return -1;
    }
    return 0;
}

/* A handler stopped yajl between two events for the scanner. */
static bool handed_to_fast(chrome_parser *p, yajl_status st)
{
    if (st != yajl_status_client_canceled || !p->fast_switch || p->failed) {
        return false;
    }
    p->fast_switch = false;
    p->fast_ready = true;
    return true;
}

static int json_feed(chrome_parser *p, const unsigned char *buf, size_t len, size_t at)
{
    p->chunk = buf;
    while (at < len) {
        if (p->fast_ready) {
            const int turn = fast_turn(p, buf, len, &at);
            if (turn != 0) {
                return turn < 0 ? 1 : 0;
            }
        }
        p->chunk_pos = at;
        const yajl_status st = yajl_parse(p->h, buf + at, len - at);
        if (st == yajl_status_ok) {
            return 0;
        }
        if (handed_to_fast(p, st)) {
            at += yajl_get_bytes_consumed(p->h);
            continue;
        }
        if (st == yajl_status_client_canceled || p->failed || json_error(p, buf, len, &at) != 0) {
            return 1;
        }
    }
    return 0;
}

/* The input ended inside the trace: keep what was read. */
static int json_truncated(chrome_parser *p, uint64_t end)
{
    bool dropped = false;
    while (p->nfr > 0 && top_frame(p) != FR_EVENTS) {
        const frame_kind k = top_frame(p);
        dropped |= k == FR_EVENT || k == FR_ARGS || k == FR_ID2;
        if (k == FR_ROOTOBJ) {
            break;
        }
        p->nfr--;
    }
    if (dropped) {
        p->n_truncated++;
        pwarn_at(p, end, "input ends inside an event (that event is dropped)");
    }
    p->n_missing_close++;
    pwarn_at(p, end, "input ends before the closing '%s' (events read so far are kept)",
             p->nfr > 0 && top_frame(p) == FR_EVENTS ? "]" : "}");
    return 0;
}

static int json_finish(chrome_parser *p)
{
    p->chunk = NULL;
    const uint64_t end = p->lines.base + p->lines.len;
    if (!p->root_seen && p->nfr == 0) {
        return pfail_at(p, end, "expected '[' or '{': the input holds no trace");
    }
    if (!p->root_done) {
        return json_truncated(p, end);
    }
    const yajl_status st = yajl_complete_parse(p->h);
    if (st != yajl_status_ok && !p->failed) {
        return pfail_at(p, end, "expected end of input after the trace");
    }
    return p->failed ? 1 : 0;
}

/* ----------------------------------------------------------- lines mode */

/* Does the text end inside a JSON string? */
static bool ends_in_string(const char *s, size_t n)
{
    bool in = false;
    for (size_t i = 0; i < n; i++) {
        if (in) {
            if (s[i] == '\\') {
                i++;
            } else if (s[i] == '"') {
                in = false;
            }
        } else if (s[i] == '"') {
            in = true;
        }
    }
    return in;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Parse one event line (already trimmed).  0 ok, 1 failed, 2 incomplete
 * (ends inside a string: the caller joins the next line). */
/* The scanner's try at a line: true when it read the line (*rc set). */
static bool lines_fast(chrome_parser *p, const char *s, size_t n, uint64_t base, int *rc)
{
    if (!p->fast_enabled || n == 0 || s[0] != '{') {
        return false;
    }
    if (p->fast_cooldown > 0) {
        p->fast_cooldown--;
        return false;
    }
    const size_t r = fast_event(p, (const unsigned char *)s, n, base, true);
    *rc = r == SIZE_MAX ? 1 : 0;
    return r != 0;
}

static int lines_parse(chrome_parser *p, const char *s, size_t n, uint64_t base);

/* The ',' just before s[bad] (blanks between allowed), or SIZE_MAX. */
static size_t comma_before(const char *s, size_t bad)
{
    size_t i = bad;
    while (i > 0 && is_ws(s[i - 1])) {
        i--;
    }
    return i > 0 && s[i - 1] == ',' ? i - 1 : SIZE_MAX;
}

/* The line again with its comma at @p at blanked (a space keeps every
 * column where it was): DFTracer wrote "args":{"step":1,}. */
static int lines_fix_comma(chrome_parser *p, const char *s, size_t n, uint64_t base, size_t at)
{
    if (s != p->fix) {
        if (p->fix_cap < n) {
            char *f = realloc(p->fix, n);
            if (f == NULL) {
                return pfail_at(p, base, "Out of memory");
            }
            p->fix = f;
            p->fix_cap = n;
        }
        memcpy(p->fix, s, n);
    }
    p->fix[at] = ' ';
    p->fixes++;
    p->n_inner_comma++;
    pwarn_at(p, base + at, "trailing ',' before '}' or ']' inside an event (removed)");
    return lines_parse(p, p->fix, n, base);
}

/* A line yajl rejected at s[bad]: a trailing ',' before a closing '}' or
 * ']' is removed and the line read again; any other error skips the line
 * (counted, warned with its line:column), so that one bad line never loses
 * the others. */
static int lines_bad(chrome_parser *p, const char *s, size_t n, uint64_t base, size_t bad)
{
    const size_t comma = bad < n && (s[bad] == '}' || s[bad] == ']') ? comma_before(s, bad)
                                                                      : SIZE_MAX;
    if (comma != SIZE_MAX && p->fixes < MAX_LINE_FIXES) {
        return lines_fix_comma(p, s, n, base, comma);
    }
    if (p->n_bad_lines++ == 0) {
        p->bad_off = base + bad;
        locate(p, p->bad_off, &p->bad_line_no, &p->bad_line_col);
    }
    pwarn_at(p, base + bad, "expected one JSON object per line (an event): line skipped");
    return 0;
}

/* One line (or lines joined) with yajl: 0 ok, 1 failed (reported), 2 it
 * ends inside a string or an object (to be joined with the next line). */
static int lines_parse(chrome_parser *p, const char *s, size_t n, uint64_t base)
{
    p->cur_line_base = base;
    p->nfr = 0;
    push_frame(p, FR_EVENTS, EV_TRACE);
    p->cap_depth = 0;
    p->skip_depth = 0;
    int rc = 0;
    if (lines_fast(p, s, n, base, &rc)) {
        return rc;
    }
    if (new_handle(p) != 0) {
        return pfail_at(p, base, "Out of memory");
    }
    (void)yajl_config(p->h, yajl_allow_multiple_values, 1); /* "{...} {...}" on one line */
    yajl_status st = yajl_parse(p->h, (const unsigned char *)s, n);
    if (st == yajl_status_ok) {
        st = yajl_complete_parse(p->h);
    }
    if (st == yajl_status_ok) {
        return p->nfr == 1 ? 0 : 2;
    }
    if (p->failed || st == yajl_status_client_canceled) {
        return 1;
    }
    if (ends_in_string(s, n)) {
        return 2;
    }
    const size_t consumed = yajl_get_bytes_consumed(p->h);
    return lines_bad(p, s, n, base, consumed > 0 ? consumed - 1 : 0);
}

static int lines_handle(chrome_parser *p, const char *s, size_t n, uint64_t base)
{
    size_t i = 0;
    p->fixes = 0;
    while (i < n && is_ws(s[i])) {
        i++;
    }
    while (n > i && is_ws(s[n - 1])) {
        n--;
    }
    if (i < n && s[i] == '[') {
        i++; /* "[" alone, or "[{...}" on the first line */
        while (i < n && is_ws(s[i])) {
            i++;
        }
    }
    while (n > i && (s[n - 1] == ']' || s[n - 1] == ',' || is_ws(s[n - 1]))) {
        if (s[n - 1] == ']' && n - 1 > i && s[n - 2] != '}' && s[n - 2] != ',' &&
            !is_ws(s[n - 2])) {
            break; /* a ']' that belongs to the event */
        }
        n--;
    }
    if (i == n) {
        p->n_topkey[7]++;
        return 0;
    }
    return lines_parse(p, s + i, n - i, base + i);
}

static int line_append(chrome_parser *p, const unsigned char *s, size_t n)
{
    if (p->line_len + n + 2 > p->line_cap) {
        size_t cap = p->line_cap ? p->line_cap : 4096;
        while (cap < p->line_len + n + 2) {
            cap *= 2;
        }
        char *l = realloc(p->line, cap);
        if (l == NULL) {
            return -1;
        }
        p->line = l;
        p->line_cap = cap;
    }
    memcpy(p->line + p->line_len, s, n);
    p->line_len += n;
    return 0;
}

/* After a physical line was parsed (rc of lines_handle); the line, or its
 * start when rc == 2, is in p->line. */
static int lines_after(chrome_parser *p, int rc, bool at_eof)
{
    if (rc == 2) {
        if (at_eof) {
            p->n_truncated++;
            pwarn_at(p, p->line_off + p->line_len,
                     "input ends inside an event (that event is dropped)");
            p->line_len = 0;
            return 0;
        }
        if (p->joins >= MAX_LINE_JOINS) {
            return pfail_at(p, p->line_off + p->line_len,
                            "expected the end of a string before the end of the line");
        }
        /* raw newline inside a string: keep it as \n and read on */
        p->cur_line_base = p->line_off;
        pwarn_at(p, p->line_off + p->line_len,
                 "raw newline inside a string (joined with the next line)");
        p->n_newline_joins++;
        p->joins++;
        return line_append(p, (const unsigned char *)"\\n", 2) != 0 ? -1 : 2;
    }
    p->line_len = 0;
    p->joins = 0;
    return rc;
}

/* A complete physical line is in p->line (without its newline). */
static int lines_complete(chrome_parser *p, bool at_eof)
{
    return lines_after(p, lines_handle(p, p->line, p->line_len, p->line_off), at_eof);
}

/* Bytes of a line start at chunk offset @p at: note where the line began. */
static void line_begin(chrome_parser *p, size_t at)
{
    if (p->line_len == 0 && p->joins == 0) {
        p->line_off = p->stream_off + at;
        p->line_no = p->phys_lines + 1;
    }
    if (!p->in_line) {
        p->phys_lines++;
        p->in_line = true;
    }
}

/* A whole line inside the chunk, parsed where it is; one with a raw newline
 * in a string is copied to p->line to be joined.  0 ok, 1 failed. */
static int lines_in_place(chrome_parser *p, const unsigned char *s, size_t n)
{
    int rc = lines_handle(p, (const char *)s, n, p->line_off);
    if (rc == 2) {
        if (line_append(p, s, n) != 0) {
            return pfail_at(p, p->line_off, "Out of memory");
        }
        rc = lines_after(p, rc, false);
    }
    return rc != 0 && rc != 2 ? 1 : 0;
}

static int lines_feed(chrome_parser *p, const unsigned char *buf, size_t len)
{
    size_t at = 0;
    while (at < len) {
        const unsigned char *nl = memchr(buf + at, '\n', len - at);
        const size_t end = nl != NULL ? (size_t)(nl - buf) : len;
        line_begin(p, at);
        if (nl != NULL && p->line_len == 0 && p->joins == 0) {
            p->in_line = false;
            if (lines_in_place(p, buf + at, end - at) != 0) {
                return 1;
            }
            at = end + 1;
            continue;
        }
        if (line_append(p, buf + at, end - at) != 0) {
            return pfail_at(p, p->line_off, "Out of memory");
        }
        if (nl == NULL) {
            break;
        }
        at = end + 1;
        p->in_line = false;
        const int rc = lines_complete(p, false);
        if (rc == 2) {
            continue; /* the joined line continues on the next one */
        }
        if (rc != 0) {
            return 1;
        }
    }
    p->stream_off += len;
    return 0;
}

/* ------------------------------------------------------------------ API */

int chrome_parser_create(chrome_parser **out, import_ctx *ctx, const chrome_parser_input *in,
                         const chrome_sink *sink)
{
    chrome_parser *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return -1;
    }
    p->cap_comma = malloc(MAX_CAPTURE_DEPTH);
    if (p->cap_comma == NULL) {
        free(p);
        return -1;
    }
    p->ctx = ctx;
    p->mode = in->mode;
    p->input = in->input;
    p->seq = in->seq;
    p->sink = *sink;
    p->pool = in->pool;
    p->cb.yajl_null = cb_null;
    p->cb.yajl_boolean = cb_bool;
    p->cb.yajl_number = cb_number;
    p->cb.yajl_string = cb_string;
    p->cb.yajl_start_map = cb_start_map;
    p->cb.yajl_map_key = cb_map_key;
    p->cb.yajl_end_map = cb_end_map;
    p->cb.yajl_start_array = cb_start_array;
    p->cb.yajl_end_array = cb_end_array;
    p->fast_enabled = (import_options(ctx)->flags & SLOG_IMPORT_NO_FAST_SCAN) == 0;
    p->time_unit = import_options(ctx)->time_unit;
    text_lines_init(&p->lines);
    chrome_builder_reset(&p->b);
    if (new_handle(p) != 0) {
        chrome_parser_destroy(p);
        return -1;
    }
    *out = p;
    return 0;
}

/* One chunk of a JSON document, from byte `at`.  The line tracker counts
 * the chunk's newlines before returning: the caller reuses or unmaps the
 * chunk's memory afterwards. */
static int json_feed_chunk(chrome_parser *p, const unsigned char *buf, size_t len, size_t at)
{
    text_lines_chunk(&p->lines, buf, len);
    const int rc = json_feed(p, buf, len, at);
    text_lines_chunk_done(&p->lines);
    return rc;
}

int chrome_parser_feed(chrome_parser *p, const unsigned char *buf, size_t len)
{
    if (p->failed) {
        return 1;
    }
    if (!p->started) {
        size_t i = 0;
        if (len >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf) {
            i = 3; /* UTF-8 byte order mark */
        }
        while (i < len && is_ws((char)buf[i])) {
            i++;
        }
        if (i == len) {
            p->stream_off += len;
            text_lines_chunk(&p->lines, buf, len);
            text_lines_chunk_done(&p->lines);
            return 0; /* only blanks so far */
        }
        p->started = true;
        if (p->mode == CHROME_MODE_AUTO) {
            p->mode = chrome_probe_lines(buf + i, len - i) > chrome_probe_json(buf + i, len - i)
                          ? CHROME_MODE_LINES
                          : CHROME_MODE_JSON;
        }
        if (p->mode == CHROME_MODE_LINES) {
            return lines_feed(p, buf, len);
        }
        return json_feed_chunk(p, buf, len, i);
    }
    if (p->mode == CHROME_MODE_LINES) {
        return lines_feed(p, buf, len);
    }
    return json_feed_chunk(p, buf, len, 0);
}

/* Every line was skipped: not a JSON-lines trace after all. */
static int lines_none(chrome_parser *p)
{
    p->failed = true;
    return import_fail(p->ctx, p->bad_line_no, p->bad_line_col, p->bad_off,
                       "expected one JSON object per line (an event): no line is one "
                       "(%llu skipped)",
                       (unsigned long long)p->n_bad_lines);
}

int chrome_parser_finish(chrome_parser *p)
{
    if (p->failed) {
        return 1;
    }
    if (p->mode == CHROME_MODE_LINES) {
        if (p->line_len > 0 || p->joins > 0) {
            const int rc = lines_complete(p, true);
            if (rc != 0) {
                return 1;
            }
        }
        if (p->n_events + p->n_samples == 0 && !p->started) {
            return pfail_at(p, p->stream_off, "expected a trace: the input is empty");
        }
        return p->n_events + p->n_samples == 0 && p->n_bad_lines > 0 ? lines_none(p) : 0;
    }
    if (!p->started) {
        return pfail_at(p, p->lines.base + p->lines.len,
                        "expected '[' or '{': the input is empty");
    }
    return json_finish(p);
}

void chrome_parser_report(chrome_parser *p)
{
    import_ctx *ctx = p->ctx;
    import_count(ctx, "event records read", IMPORT_IMPORTED, p->n_events);
    import_count(ctx, "samples[] entries read", IMPORT_IMPORTED, p->n_samples);
    import_count(ctx, "stackFrames entries", IMPORT_IMPORTED, p->n_frames);
    import_count(ctx, "systemTraceEvents records", IMPORT_SKIPPED, p->n_system);
    import_count(ctx, "non-object array element", IMPORT_SKIPPED, p->n_nonobj);
    import_count(ctx, "missing ',' between events", IMPORT_REPAIRED, p->n_missing_comma);
    import_count(ctx, "trailing ',' before ']'", IMPORT_REPAIRED, p->n_trailing_comma);
    import_count(ctx, "missing closing bracket", IMPORT_REPAIRED, p->n_missing_close);
    import_count(ctx, "event cut by end of input", IMPORT_SKIPPED, p->n_truncated);
    import_count(ctx, "invalid UTF-8 string", IMPORT_REPAIRED, p->n_utf8);
    import_count(ctx, "\\u0000 in a string", IMPORT_REPAIRED, p->n_nul);
    import_count(ctx, "raw newline in string", IMPORT_REPAIRED, p->n_newline_joins);
    import_count(ctx, "trailing ',' inside an event", IMPORT_REPAIRED, p->n_inner_comma);
    import_count(ctx, "line not an event (skipped)", IMPORT_SKIPPED, p->n_bad_lines);
    import_count(ctx, "time sub-ns digits rounded", IMPORT_REPAIRED, p->n_rounded);
    import_count(ctx, "string over 1 MiB cut", IMPORT_REPAIRED, p->n_long_string);
    for (size_t i = 0; i < 8; i++) {
        import_count(ctx, topkey_names[i], IMPORT_SKIPPED, p->n_topkey[i]);
    }
}

void chrome_parser_destroy(chrome_parser *p)
{
    if (p == NULL) {
        return;
    }
    if (p->h != NULL) {
        yajl_free(p->h);
    }
    chrome_builder_free(&p->b);
    free(p->cap_comma);
    chrome_scan_free(&p->scan);
    free(p->tmp);
    free(p->line);
    free(p->fix);
    free(p);
}

/* --------------------------------------------------------------- probes */

/* End of a balanced JSON object starting at s[0] == '{', or 0. */
static size_t object_end(const unsigned char *s, size_t n)
{
    int depth = 0;
    bool in = false;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = s[i];
        if (in) {
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                in = false;
            }
            continue; /* a raw newline in a string: a .pfw quirk, read on */
        }
        if (c == '"') {
            in = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                return i + 1;
            }
        } else if (c == '\n' && depth > 0) {
            return 0; /* pretty-printed: not one event per line */
        }
    }
    return 0;
}

static size_t skip_ws(const unsigned char *s, size_t n, size_t i)
{
    while (i < n && is_ws((char)s[i])) {
        i++;
    }
    return i;
}

/* Blanks of a line (not its newline). */
static size_t skip_blanks(const unsigned char *s, size_t n, size_t j)
{
    while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) {
        j++;
    }
    return j;
}

/* Past a BOM, whitespace and a "[" alone on its line; n (no reading) when
 * the "[" is followed by more on its line: "[{...}, {...}]" is a document. */
static size_t lines_start(const unsigned char *head, size_t n)
{
    size_t i = n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf ? 3 : 0;
    i = skip_ws(head, n, i);
    if (i < n && head[i] == '[') {
        const size_t j = skip_blanks(head, n, i + 1);
        if (j < n && head[j] != '\n') {
            return n;
        }
        i = skip_ws(head, n, j);
    }
    return i;
}

int chrome_probe_lines(const unsigned char *head, size_t n)
{
    const size_t i = lines_start(head, n);
    if (i >= n || head[i] != '{') {
        return 0;
    }
    const size_t e = object_end(head + i, n - i);
    if (e == 0) {
        return 0;
    }
    size_t j = skip_blanks(head, n, i + e);
    if (j < n && head[j] != '\n') {
        return 0; /* "{...}," (one event per line with commas: a document parses faster) */
    }
    j = skip_ws(head, n, j);
    return j < n && head[j] == '{' ? 90 : 0;
}

int chrome_probe_json(const unsigned char *head, size_t n)
{
    size_t i = 0;
    if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf) {
        i = 3;
    }
    i = skip_ws(head, n, i);
    if (i >= n) {
        return 0;
    }
    if (head[i] == '[') {
        const size_t j = skip_ws(head, n, i + 1);
        return j >= n || head[j] == '{' || head[j] == ']' ? 70 : 20;
    }
    if (head[i] == '{') {
        const size_t j = skip_ws(head, n, i + 1);
        return j < n && head[j] == '"' ? 60 : 10;
    }
    return 0;
}
