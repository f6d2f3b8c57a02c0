/* SPDX-License-Identifier: MIT
 *
 * api_writer_colour.c - owns the default colour of a category (one added
 * with rgba 0): a palette of 32 colours and the rule that spreads a file's
 * categories over it.  The name's FNV-1a hash picks a preferred slot, so a
 * name gets the same colour in every file where nothing earlier took it
 * (ranks of one job that define the same categories in the same order
 * agree exactly).  Within one writer a category takes, of all slots, the
 * one fewest categories of its own kind have, then the one fewest
 * categories of any kind have, then the first in probe order (the
 * preferred slot, then steps of PROBE_STRIDE): one kind's categories stay
 * distinct while the palette lasts and share it evenly after, and other
 * kinds are avoided while that costs no collision within the kind.  A
 * colour the caller gives is never changed; it counts against every slot
 * that looks like it, so defaults avoid it too.
 * Layer 5: api.
 */
#include "api_writer_colour.h"

#include <assert.h>

/* Coprime with WCOLOUR_SLOTS, so the probe visits every slot; the slots
 * are in hue order, and 13 of 32 puts a collision's second choice far
 * round the hue circle from the first. */
#define PROBE_STRIDE 13u
/* Squared redmean distance under which two colours are taken for the same
 * (the palette's closest pair is at about 90: 8100). */
#define ALIKE_REDMEAN2 4096

/* A farthest-point pick in OKLab among sRGB colours of OKLab lightness
 * 0.45-0.80 and chroma 0.09-0.22 with WCAG luminance at most 0.5: no
 * greys, nothing near white (the viewer darkens above 0.7), none too dark
 * to tell apart; every pair is at least 0.11 apart in OKLab, about the
 * closest pair of Tableau 10.  In hue order, 0xRRGGBBAA. */
static const uint32_t palette[WCOLOUR_SLOTS] = {
    0x11aaaaff, 0x22cceeff, 0x006699ff, 0x2299eeff, /* cyan, blue */
    0x0044ccff, 0x5566eeff, 0xaaaaffff, 0x6633ccff, /* blue, violet */
    0x8877bbff, 0xaa66ffff, 0x664488ff, 0x9933aaff, /* violet, purple */
    0xff88ffff, 0xdd55ccff, 0x990066ff, 0x995577ff, /* magenta */
    0xcc2288ff, 0xff5588ff, 0xee99aaff, 0xdd2233ff, /* pink, red */
    0xaa0000ff, 0xdd7744ff, 0xaa5500ff, 0xeeaa00ff, /* red, orange */
    0x665500ff, 0x778800ff, 0x99aa55ff, 0x77cc00ff, /* olive, lime */
    0x007700ff, 0x00aa00ff, 0x44cc99ff, 0x008877ff, /* green, teal */
};

static uint32_t name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p != '\0'; p++) {
        h = (h ^ (uint8_t)*p) * 16777619u;
    }
    return h;
}

/* The "redmean" colour difference, squared: close enough to perceived
 * difference for "looks alike", and integer, so exactly reproducible. */
static uint32_t redmean2(uint32_t a, uint32_t b)
{
    const int ra = (int)(a >> 24);
    const int rb = (int)(b >> 24);
    const int dr = ra - rb;
    const int dg = (int)((a >> 16) & 0xffu) - (int)((b >> 16) & 0xffu);
    const int db = (int)((a >> 8) & 0xffu) - (int)((b >> 8) & 0xffu);
    const int rmean = (ra + rb) / 2;
    return (uint32_t)((((512 + rmean) * dr * dr) >> 8) + 4 * dg * dg +
                      (((767 - rmean) * db * db) >> 8));
}

static void count_slot(writer_colours *u, uint32_t kind, uint32_t slot)
{
    u->kind[kind][slot]++;
    u->all[slot]++;
}

static uint32_t pick_slot(const writer_colours *u, uint32_t kind, uint32_t preferred)
{
    const uint32_t *const mine = u->kind[kind];
    uint32_t best = preferred;
    for (uint32_t i = 1; i < WCOLOUR_SLOTS; i++) {
        const uint32_t s = (preferred + i * PROBE_STRIDE) % WCOLOUR_SLOTS;
        if (mine[s] < mine[best] || (mine[s] == mine[best] && u->all[s] < u->all[best])) {
            best = s;
        }
    }
    return best;
}

uint32_t api_writer_colour_pick(writer_colours *u, uint32_t kind, const char *name, uint32_t rgba)
{
    assert(kind < WCOLOUR_KINDS);
    if (rgba != 0) {
        for (uint32_t s = 0; s < WCOLOUR_SLOTS; s++) {
            if (redmean2(rgba, palette[s]) < ALIKE_REDMEAN2) {
                count_slot(u, kind, s);
            }
        }
        return rgba;
    }
    const uint32_t slot = pick_slot(u, kind, name_hash(name) % WCOLOUR_SLOTS);
    count_slot(u, kind, slot);
    return palette[slot];
}
