/* SPDX-License-Identifier: MIT
 *
 * serve_static.h - the viewer's static files, embedded into slog-serve at
 * build time (web_embed.py generates the table serve_web_assets.c): a URL
 * path is looked up in that table, never on the file system.
 * Tools layer (slog-serve): libc only.
 */
#ifndef SLOG_SERVE_STATIC_H
#define SLOG_SERVE_STATIC_H

#include <stddef.h>

typedef struct serve_asset {
    const char *path; /* relative to web/, e.g. "index.html", "js/app.js" */
    const char *content_type;
    const unsigned char *data;
    size_t len;
} serve_asset;

/* Generated: sorted by path (strcmp order). */
extern const serve_asset serve_assets[];
extern const size_t serve_nassets;

/* The asset for a URL path ("/" is "/index.html"), or NULL.  The path is
 * compared as bytes: "..", "%2e" or a query string simply match nothing. */
const serve_asset *serve_static_find(const char *url);

#endif /* SLOG_SERVE_STATIC_H */
