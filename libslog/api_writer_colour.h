/* SPDX-License-Identifier: MIT
 *
 * api_writer_colour.h - the colour a writer gives a category added without
 * one (slog_writer_add_category with rgba 0), and the per-writer record of
 * which palette colours its categories already use (api_writer_colour.c;
 * not installed).  Only the writer's caller side touches it.
 * Layer 5: api.
 */
#ifndef API_WRITER_COLOUR_H
#define API_WRITER_COLOUR_H

#include <stdint.h>

#define WCOLOUR_SLOTS 32u /* palette colours */
#define WCOLOUR_KINDS 4u  /* slog_kind STATE .. COUNTER */

/* How many of a writer's categories have (or look like) each palette
 * colour: per kind, and over all kinds.  All zero: no categories yet. */
typedef struct writer_colours {
    uint32_t kind[WCOLOUR_KINDS][WCOLOUR_SLOTS];
    uint32_t all[WCOLOUR_SLOTS];
} writer_colours;

/* The colour of a new category of @p kind (below WCOLOUR_KINDS) named
 * @p name: @p rgba itself unless it is 0, else a palette colour chosen from
 * the name and @p u.  Either way the colour is counted in @p u, so call it
 * once per category that is added, in order: the same calls give the same
 * colours. */
uint32_t api_writer_colour_pick(writer_colours *u, uint32_t kind, const char *name, uint32_t rgba);

#endif /* API_WRITER_COLOUR_H */
