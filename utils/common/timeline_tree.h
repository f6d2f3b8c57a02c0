/* SPDX-License-Identifier: MIT
 *
 * timeline_tree.h - the timeline hierarchy of an open file as the tools
 * need it: children lists sorted for display (sort key, then id), a
 * pre-order walk with depths, and subtree marking ("--timeline NAME"
 * selects NAME and its descendants).  Parents that do not exist and
 * parent cycles (a damaged file) are tolerated: such timelines become
 * extra roots and every timeline is visited exactly once.  Iterative,
 * so a 10^5-deep chain cannot overflow the stack.
 * Tools layer: public libslog reader API and libc.
 */
#ifndef SLOG_UTILS_TIMELINE_TREE_H
#define SLOG_UTILS_TIMELINE_TREE_H

#include <stddef.h>
#include <stdint.h>

#include <slog/slog.h>

typedef struct timeline_tree {
    uint32_t n;
    slog_timeline_info *info; /* n entries; names borrowed from the reader */
    uint32_t *first_child;    /* n + 1 offsets into children */
    uint32_t *children;       /* sorted by (sort_key, id) within each parent */
    uint32_t *order;          /* pre-order, n entries */
    uint32_t *depth;          /* depth in the tree by id (0 = root) */
} timeline_tree;

/** Load from the reader.  @return 0, or -1 on out of memory or a bad table. */
int timeline_tree_load(timeline_tree *t, const slog_reader *r);

void timeline_tree_free(timeline_tree *t);

/** Number of children of @p id. */
uint32_t timeline_tree_nchildren(const timeline_tree *t, uint32_t id);

/**
 * Set mark[x] = 1 for @p id and each of its descendants.
 * @param stack scratch of t->n entries
 */
void timeline_tree_mark_subtree(const timeline_tree *t,
                                uint32_t id,
                                uint8_t *mark,
                                uint32_t *stack);

/** Lower-case name of a timeline kind ("process"). */
const char *timeline_kind_name(slog_timeline_kind kind);

/** Lower-case name of a drawable kind ("state"). */
const char *drawable_kind_name(slog_kind kind);

/**
 * A name made safe for one line of text output: control characters become
 * '?', and a name longer than @p len - 1 bytes is cut with "..." (text
 * output only; JSON output escapes instead).  @return @p buf
 */
const char *display_text(const char *s, char *buf, size_t len);

#endif /* SLOG_UTILS_TIMELINE_TREE_H */
