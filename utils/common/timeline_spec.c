/* SPDX-License-Identifier: MIT
 *
 * timeline_spec.c - matching "#id", paths and names against the timeline
 * tree (see timeline_spec.h).  A path is matched from its last element
 * upwards through the parents, one element per step, so a damaged file's
 * parent cycle cannot loop: the walk ends when the spec does.
 * Tools layer: public libslog reader API and libc.
 */
#include "timeline_spec.h"

#include <string.h>

#define PATH_MAX_DEPTH 64

bool timeline_spec_is_id(const char *spec, uint32_t *id)
{
    if (spec[0] != '#' || spec[1] == '\0') {
        return false;
    }
    uint64_t v = 0;
    for (const char *p = spec + 1; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            return false;
        }
        v = v > UINT32_MAX ? v : v * 10 + (uint64_t)(*p - '0');
    }
    *id = v >= UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    return true;
}

static bool is_top(const timeline_tree *t, uint32_t id)
{
    const uint32_t p = t->info[id].parent;
    return p == SLOG_NO_PARENT || p >= t->n || p == id;
}

static bool name_is(const char *name, const char *s, size_t len)
{
    return name != NULL && strlen(name) == len && memcmp(name, s, len) == 0;
}

/* Does the path of @p id end with the elements of [begin, end)? */
static bool path_matches(const timeline_tree *t, uint32_t id, const char *begin, const char *end,
                         bool anchored)
{
    uint32_t cur = id;
    for (;;) {
        const char *elem = end;
        while (elem > begin && elem[-1] != '/') {
            elem--;
        }
        if (!name_is(t->info[cur].name, elem, (size_t)(end - elem))) {
            return false;
        }
        if (elem == begin) {
            return !anchored || is_top(t, cur);
        }
        if (is_top(t, cur)) {
            return false;
        }
        cur = t->info[cur].parent;
        end = elem - 1;
    }
}

size_t timeline_spec_match(const timeline_tree *t, const char *spec, uint32_t *ids, size_t cap)
{
    size_t n = 0;
    uint32_t id;
    if (timeline_spec_is_id(spec, &id)) {
        if (id < t->n && cap > 0) {
            ids[0] = id;
        }
        return id < t->n ? 1 : 0;
    }
    const bool anchored = spec[0] == '/';
    const char *const begin = anchored ? spec + 1 : spec;
    const char *const end = begin + strlen(begin);
    for (uint32_t i = 0; i < t->n; i++) {
        const char *const name = t->info[i].name;
        if ((name != NULL && strcmp(name, spec) == 0) || path_matches(t, i, begin, end, anchored)) {
            if (n < cap) {
                ids[n] = i;
            }
            n++;
        }
    }
    return n;
}

static size_t append(char *buf, size_t len, size_t at, const char *s)
{
    for (; s != NULL && *s != '\0' && at + 1 < len; s++) {
        buf[at] = *s;
        if ((unsigned char)*s < 0x20) {
            buf[at] = '?';
        }
        at++;
    }
    buf[at] = '\0';
    return at;
}

const char *timeline_spec_path(const timeline_tree *t, uint32_t id, char *buf, size_t len)
{
    uint32_t chain[PATH_MAX_DEPTH];
    size_t depth = 0;
    bool cut = false;
    for (uint32_t cur = id;; cur = t->info[cur].parent) {
        if (depth == PATH_MAX_DEPTH) {
            cut = true;
            break;
        }
        chain[depth++] = cur;
        if (is_top(t, cur)) {
            break;
        }
    }
    size_t at = append(buf, len, 0, cut ? ".../" : "");
    while (depth > 0) {
        at = append(buf, len, at, t->info[chain[--depth]].name);
        if (depth > 0) {
            at = append(buf, len, at, "/");
        }
    }
    return buf;
}
