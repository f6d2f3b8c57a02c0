/* SPDX-License-Identifier: MIT
 *
 * chrome_scan.h - the Chrome importer's fast path: a strict scanner of one
 * complete JSON object held in memory, reporting the same SAX events as
 * yajl (start/end of maps and arrays, keys, strings, number text, literals)
 * straight to the parser's handlers.  It declines - returns without a
 * result - on anything it does not take in stride: input ending inside the
 * object, a syntax error, a control character or invalid UTF-8 in a string,
 * a \u escape yajl would treat specially (surrogates, U+0000), whitespace
 * other than JSON's four, nesting deeper than CHROME_SCAN_DEPTH.  The caller
 * then undoes what the handlers built and lets yajl read the same bytes, so
 * every repair, warning and error message stays yajl's.
 * Import library, chrome: libc only.
 */
#ifndef SLOG_IMPORT_CHROME_SCAN_H
#define SLOG_IMPORT_CHROME_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#define CHROME_SCAN_DEPTH 32

/* Handlers: 0 to go on, anything else stops the scan (returned as is).
 * Strings and keys are valid UTF-8 with escapes decoded; @p s of a string is
 * only valid during the call. */
typedef struct chrome_scan_sink {
    int (*key)(void *user, const char *s, size_t n);
    int (*string)(void *user, const char *s, size_t n);
    int (*number)(void *user, const char *s, size_t n);
    int (*boolean)(void *user, bool v);
    int (*null)(void *user);
    int (*open)(void *user, bool is_map);
    int (*close)(void *user, bool is_map);
} chrome_scan_sink;

typedef struct chrome_scan {
    char *buf; /* decoded strings with escapes */
    size_t cap;
    int stop;  /* the handler's code when the scan was stopped */
} chrome_scan;

enum { CHROME_SCAN_DECLINED = 0, CHROME_SCAN_STOPPED = -1 };

/* Scan the object at s[0] == '{'.  Returns its length in bytes (> 0), or
 * CHROME_SCAN_DECLINED, or CHROME_SCAN_STOPPED (a handler returned
 * sc->stop != 0; -1 in sc->stop also means out of memory). */
long chrome_scan_object(chrome_scan *sc, const unsigned char *s, size_t n,
                        const chrome_scan_sink *sink, void *user);

void chrome_scan_free(chrome_scan *sc);

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF included). */
size_t chrome_utf8_seq(const unsigned char *s, size_t n);

#endif /* SLOG_IMPORT_CHROME_SCAN_H */
