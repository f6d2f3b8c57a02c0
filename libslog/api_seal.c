/* SPDX-License-Identifier: MIT
 *
 * api_seal.c - slog_file_seal: make a file that a killed writer left
 * marked open for writing openable without SWMR (store_seal, the
 * equivalent of `h5clear -s --increment=0`), checked before and after by
 * opening it as a libslog file.  What the file holds does not change.
 * Layer 5: api.
 */
#include "store.h"
#include "util_error.h"

#include <slog/slog_writer.h>

/* Open the store: is it a libslog file, and does it need SWMR to open? */
static int needs_swmr(const char *path, bool *swmr, slog_error *err)
{
    store *st = NULL;
    store_header hdr;
    const int rc = store_open(&st, path, &hdr, err);
    if (rc != SLOG_OK) {
        return rc;
    }
    *swmr = store_is_swmr(st);
    return store_close(st, err);
}

int slog_file_seal(const char *path, bool *sealed, slog_error *err)
{
    bool swmr = false;
    if (sealed != NULL) {
        *sealed = false;
    }
    int rc = needs_swmr(path, &swmr, err);
    if (rc != SLOG_OK || !swmr) {
        return rc;
    }
    rc = store_seal(path, err);
    if (rc == SLOG_OK) {
        rc = needs_swmr(path, &swmr, err);
    }
    if (rc == SLOG_OK && swmr) {
        return util_err(err, SLOG_ECORRUPT, UINT64_MAX, path,
                        "Still marked open for writing after sealing");
    }
    if (rc == SLOG_OK && sealed != NULL) {
        *sealed = true;
    }
    return rc;
}
