/* SPDX-License-Identifier: MIT
 *
 * chrome.h - internal interfaces of the Chrome Trace Event / DFTracer
 * importer, which runs as a pipeline:
 *
 *   import_stream -> chrome_parse (yajl SAX + the chrome_scan fast path,
 *                    repairs, one record per event)
 *     -> chrome_window stage 1 (bounded window, key ts)
 *     -> chrome_map (phases -> drawables, nesting depth, async/flow matching)
 *     -> chrome_window stage 2 (bounded window, key end time)
 *     -> chrome_out (the writer, or a recorder in the unit tests)
 *
 * Times are integer nanoseconds parsed from the decimal text (chrome_time).
 * Import library, chrome: public libslog headers only.
 */
#ifndef SLOG_IMPORT_CHROME_H
#define SLOG_IMPORT_CHROME_H

#include <slog/slog.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importer.h"

/* ------------------------------------------------------------------ time */

/* Parse a decimal number of microseconds (JSON number text, or the content
 * of a JSON string: optional sign, digits, fraction, exponent, surrounding
 * blanks allowed) into integer nanoseconds, exactly.  Digits finer than 1 ns
 * are rounded half away from zero and *rounded is set.
 * Returns 0 ok, -1 not a number, -2 out of int64 range. */
int chrome_time_parse(const char *text, size_t len, int64_t *ns, bool *rounded);

/* Canonical text of an integer given as a JSON number or string ("007" and
 * 7 both give "7"); returns false when @p text is not an integer. */
bool chrome_int_canon(const char *text, size_t len, char *out, size_t outlen);

#include "chrome_pool.h"
#include "chrome_record.h"
#include "chrome_window.h"

/* ------------------------------------------------------------------ keys */

/* Dense ids of the keys the mapper finds threads and categories by
 * (chrome_keys.c); one thread uses a chrome_keys at a time. */
typedef struct chrome_keys chrome_keys;

chrome_keys *chrome_keys_create(void); /* NULL on no memory */
/* Set ev->thread_key and ev->name_key.  0 ok, -1 no memory. */
int chrome_keys_assign(chrome_keys *k, chrome_event *ev);
void chrome_keys_destroy(chrome_keys *k); /* NULL-safe */

/* A fast hash of @p n bytes (word at a time), continuing from @p seed;
 * for in-memory tables only (it depends on the byte order). */
uint64_t chrome_hash(uint64_t seed, const char *s, size_t n);

/* ---------------------------------------------------------------- output */

/* Where drawables go.  The import uses the writer; tests record. */
typedef struct chrome_out {
    void *user;
    int (*add_timeline)(void *user, uint32_t parent, slog_timeline_kind kind, const char *name,
                        int64_t sort_key, uint32_t *id);
    int (*set_timeline)(void *user, uint32_t id, const char *name, int64_t sort_key);
    int (*add_category)(void *user, slog_kind kind, const char *name, const char *group,
                        uint32_t *id);
    int (*state)(void *user, const slog_state *s);
    int (*event)(void *user, const slog_event *e);
    int (*arrow)(void *user, const slog_arrow *a);
    int (*counter)(void *user, const slog_counter *c);
    /* message of the last failure, or NULL (may be NULL itself) */
    const char *(*last_error)(void *user);
} chrome_out;

/* ------------------------------------------------------------------- map */

typedef struct chrome_map chrome_map;

/* What the mapper counts; reported through import_count at the end. */
typedef struct chrome_map_config {
    uint64_t window;        /* stage-2 window (drawables held back), 0 = none */
    uint64_t window_bytes;  /* and the memory they may hold */
    const char *const *input_names; /* chrome_event.input -> name (diagnostics) */
    uint32_t ninputs;
} chrome_map_config;

int chrome_map_create(chrome_map **out, const chrome_out *o, import_ctx *ctx,
                      const chrome_map_config *cfg);
/* Metadata (ph M) and stack frames are applied at once, in file order. */
int chrome_map_metadata(chrome_map *m, const chrome_event *ev);
int chrome_map_frame(chrome_map *m, uint32_t input, const char *id, const char *name,
                     const char *parent);
/* Everything else arrives here in stage-1 order; the map takes ownership. */
int chrome_map_event(chrome_map *m, chrome_event *ev);
/* Note a time seen in the input (trace end for unclosed spans). */
void chrome_map_see_time(chrome_map *m, int64_t t);
/* End of all inputs: close what is open at the trace end, flush. */
int chrome_map_finish(chrome_map *m);
/* Did the map fail (the output refused a drawable)? */
bool chrome_map_failed(const chrome_map *m);
/* Report counts with import_count; name of the record kinds. */
void chrome_map_report(chrome_map *m);
void chrome_map_destroy(chrome_map *m);

/* ----------------------------------------------------------------- parse */

typedef struct chrome_parser chrome_parser;

typedef enum chrome_mode {
    CHROME_MODE_AUTO = 0, /* decide from the first byte */
    CHROME_MODE_JSON,     /* one JSON document: array or object form */
    CHROME_MODE_LINES     /* JSON-lines (.pfw): one event per line */
} chrome_mode;

/* Sink of the parser: events (owned by the sink) and stack frames. */
typedef struct chrome_sink {
    void *user;
    int (*event)(void *user, chrome_event *ev);
    int (*frame)(void *user, uint32_t input, const char *id, const char *name,
                 const char *parent);
} chrome_sink;

/* Where a parser's records come from. */
typedef struct chrome_parser_input {
    chrome_mode mode;
    uint32_t input;     /* index of the input among those of the run */
    uint64_t *seq;      /* order of appearance, shared by the run's inputs */
    chrome_pool *pool;  /* where records are allocated */
} chrome_parser_input;

int chrome_parser_create(chrome_parser **out, import_ctx *ctx, const chrome_parser_input *in,
                         const chrome_sink *sink);
/* Feed the next bytes of the input.  0 ok, 1 failed (reported). */
int chrome_parser_feed(chrome_parser *p, const unsigned char *buf, size_t len);
/* End of input: repairs a missing closing bracket.  0 ok, 1 failed. */
int chrome_parser_finish(chrome_parser *p);
/* Report the parser's counts (repairs, skipped top-level keys). */
void chrome_parser_report(chrome_parser *p);
void chrome_parser_destroy(chrome_parser *p);

/* ----------------------------------------------------------------- drive */

/* Import inputs [0, n) merged by time into @p out (chrome_drive.c); with
 * @p threaded, reading and parsing run on a second thread (the importer.h
 * hooks must then be thread-safe).  0 ok, 1 failed (reported). */
int chrome_import(import_ctx *ctx, const char *const *paths, size_t n, chrome_mode mode,
                  const chrome_out *out, bool threaded);

/* The same on bytes in memory, fed to the parser @p chunk bytes at a time
 * (0 = all at once): for fuzzing and tests. */
int chrome_import_buffer(import_ctx *ctx, const unsigned char *data, size_t len, size_t chunk,
                         chrome_mode mode, const chrome_out *out);

/* Probe helpers: 0..100 for the JSON document and JSON-lines readings. */
int chrome_probe_json(const unsigned char *head, size_t n);
int chrome_probe_lines(const unsigned char *head, size_t n);

#endif /* SLOG_IMPORT_CHROME_H */
