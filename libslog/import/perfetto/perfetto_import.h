/* SPDX-License-Identifier: MIT
 *
 * perfetto_import.h - the Perfetto importer as a function: bytes of a Trace
 * (already gunzipped) in through a read callback, drawables out through a
 * libslog writer, the summary out through count/warn hooks.  No global
 * state: imports in parallel threads are independent.  The importer table
 * entry (import_perfetto.c) and the tests call it; doc/IMPORT-PERFETTO.md
 * is the mapping.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#ifndef PERFETTO_IMPORT_H
#define PERFETTO_IMPORT_H

#include <slog/slog.h>
#include <stddef.h>
#include <stdint.h>

/* Read up to n bytes: bytes read, 0 at the end, < 0 on a read error. */
typedef long (*pf_read_fn)(void *user, void *buf, size_t n);

/* Outcomes of summary rows (the values of import_outcome in importer.h). */
#define PF_IMPORTED 0
#define PF_SKIPPED 1
#define PF_REPAIRED 2

typedef struct pf_hooks {
    void *user;
    /* a summary row: n records of kind `what` ended as `outcome` */
    void (*count)(void *user, const char *what, int outcome, uint64_t n);
    /* a warning about the input at byte `offset` (UINT64_MAX: none) */
    void (*warn)(void *user, uint64_t offset, const char *message);
    /* bytes of the input consumed so far; may be NULL */
    void (*progress)(void *user, uint64_t done);
    /* text of the last read error; may be NULL */
    const char *(*read_error)(void *user);
} pf_hooks;

/* Import one Trace into w.  Returns SLOG_OK, or an error with err filled
 * (offset = input byte offset where known): SLOG_EPARSE (no packet could be
 * read at all, or the framing broke beyond resynchronisation), SLOG_EIO (a
 * read failed), SLOG_ENOMEM, or the writer's error.  Damaged packets are
 * skipped, counted and warned about, and never end the import. */
int perfetto_import(slog_writer *w, pf_read_fn read, void *read_user, const pf_hooks *hooks,
                    slog_error *err);

/* How sure we are that head (the first n bytes, decompressed) starts a
 * Perfetto Trace: 0 (no) .. 100. */
int perfetto_probe(const unsigned char *head, size_t n);

#endif /* PERFETTO_IMPORT_H */
