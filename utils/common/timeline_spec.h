/* SPDX-License-Identifier: MIT
 *
 * timeline_spec.h - picking timelines by what a user can type, for the
 * tools' --timeline options: "#12" (an id), a path "pid 5/CrRendererMain"
 * (the names of a timeline's ancestors and its own, joined by '/'; it may
 * start at any ancestor, or with a leading '/' at a top-level timeline), or a
 * plain name (a path of one element).  Real traces have many threads of the
 * same name, so a spec can match several timelines; the caller decides
 * what an ambiguous one means, and timeline_spec_path prints the path
 * that tells candidates apart.
 * Tools layer: public libslog reader API and libc.
 */
#ifndef SLOG_UTILS_TIMELINE_SPEC_H
#define SLOG_UTILS_TIMELINE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline_tree.h"

/**
 * Does @p spec name a timeline by id ('#' then decimal digits)?  A timeline
 * literally named like that is reached through its path ("/#12" when it is
 * top-level, "parent/#12" otherwise).
 * @param id receives the id (UINT32_MAX when it does not fit 32 bits)
 */
bool timeline_spec_is_id(const char *spec, uint32_t *id);

/**
 * Timelines that @p spec names, in id order: the id of "#N" (none when the
 * file has no such id); otherwise every timeline whose path ends with the
 * spec's elements (anchored at a top-level timeline with a leading '/'),
 * and every timeline whose whole name is the spec (names may hold '/').
 * @param ids  receives up to @p cap ids; may be NULL when cap is 0
 * @return the number of matches (may exceed cap)
 */
size_t timeline_spec_match(const timeline_tree *t, const char *spec, uint32_t *ids, size_t cap);

/**
 * The path of @p id, "pid 5/CrRendererMain", made safe for one line of
 * text (control characters become '?').  A path of more than 64 levels
 * shows its last 64 behind ".../"; one longer than @p len - 1 bytes is cut.
 * @param len  at least 1
 * @return @p buf
 */
const char *timeline_spec_path(const timeline_tree *t, uint32_t id, char *buf, size_t len);

#endif /* SLOG_UTILS_TIMELINE_SPEC_H */
