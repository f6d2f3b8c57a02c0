/* SPDX-License-Identifier: MIT
 *
 * export_otf2.h - write a window of a libslog file as an OTF2 archive
 * (libotf2's writer).  Timelines become locations (in location groups and
 * system tree nodes), state categories regions with Enter/Leave nested per
 * location, arrows MPI send/receive pairs, counters metrics, events
 * zero-length regions marked as events.  doc/IMPORT-OTF2.md describes the
 * mapping both ways.  Only built with OTF2 (SLOG_HAVE_OTF2).
 * Tools layer: public libslog headers and libotf2.
 */
#ifndef SLOG_QUERY_EXPORT_OTF2_H
#define SLOG_QUERY_EXPORT_OTF2_H

#include <stddef.h>

#include <slog/slog.h>

/**
 * Write the drawables of @p r selected by @p q (window, kinds, timeline and
 * category filters; previews are never written: the export always reads
 * full detail) as the OTF2 archive @p dir/traces.otf2.
 * @param r      reader (its cache is used, hence not const)
 * @param q      query options; NULL exports the whole file
 * @param dir    archive directory; must not hold an archive already
 * @param errbuf receives one sentence when the export fails
 * @return 0 on success, -1 on failure (errbuf filled; the archive may be
 *         partly written)
 * Thread safety: one call per reader at a time.
 */
int export_otf2_write(
    slog_reader *r, const slog_query_options *q, const char *dir, char *errbuf, size_t errlen);

#endif /* SLOG_QUERY_EXPORT_OTF2_H */
