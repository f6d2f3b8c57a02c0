/* SPDX-License-Identifier: MIT
 *
 * importers.c - the table of input formats, in probe order.  To add a
 * format: declare its entry below and put it in the table (one line each);
 * import_api.c picks, per input, the entry whose probe scores highest.
 * Import library, core.
 */
#include "importer.h"

extern const importer import_chrome; /* import_chrome.c: Chrome Trace Event JSON */
extern const importer import_pfw;    /* import_chrome.c: DFTracer .pfw JSON-lines */
extern const importer import_otf2;   /* import_otf2.c: OTF2 archives (libotf2) */
extern const importer import_clog2;  /* import_clog2.c: MPE CLOG2 logs */
extern const importer import_slog2;  /* import_slog2.c: SLOG-2 2.0.6 files */
extern const importer import_recorder; /* import_recorder.c: Recorder 2.4/2.5 folders */
extern const importer import_perfetto; /* perfetto/import_perfetto.c: Perfetto protobuf traces */
/* further importers: declare here */

const importer *const import_table[] = {
    &import_chrome,
    &import_pfw,
    &import_otf2,
    &import_clog2,
    &import_slog2,
    &import_recorder,
    &import_perfetto,
    /* further importers: add here */
    NULL,
};

/* The names of the entries above, in the same order (slog_import_formats;
 * tests/check_import_api.c checks that each one is accepted). */
const char *const import_table_names[] = {
    "chrome", "pfw", "otf2", "clog2", "slog2", "recorder", "perfetto",
    /* further importers: add here */
    NULL,
};
