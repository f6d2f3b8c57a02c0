/* SPDX-License-Identifier: MIT
 *
 * serve_static.c - URL path -> embedded static file (serve_static.h).  A
 * binary search over the generated, sorted table; nothing here touches the
 * file system, so no request path can name a file outside the table.
 * Tools layer (slog-serve): libc only.
 */
#include "serve_static.h"

#include <stdlib.h>
#include <string.h>

static int compare_path(const void *key, const void *elem)
{
    const serve_asset *a = elem;
    return strcmp(key, a->path);
}

const serve_asset *serve_static_find(const char *url)
{
    if (url == NULL || url[0] != '/') {
        return NULL;
    }
    const char *const name = url[1] == '\0' ? "index.html" : url + 1;
    if (serve_nassets == 0) {
        return NULL;
    }
    return bsearch(name, serve_assets, serve_nassets, sizeof serve_assets[0], compare_path);
}
