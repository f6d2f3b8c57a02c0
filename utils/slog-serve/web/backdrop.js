// SPDX-License-Identifier: MIT
//
// backdrop.js - what the timeline canvas shows under the preview stripes,
// in device pixels: each row's band colour and the grid lines over them.
// The pixel path of rect_batch.js writes its rectangles over this backdrop
// in a buffer and puts the result straight into the canvas, so no second
// canvas has to be composited (doc/PERFORMANCE.md, "Session 18").  The
// canvas draws the same bands and grid from the same colours and columns;
// both agree to the pixel at whole device pixel ratios, and within a few
// levels of one channel at fractional ones (where the canvas smooths edges).

import {parseRgba} from './format.js';

/** The row bands' colours, by rowBand(). */
export const BAND_COLOURS = ['#ffffff', '#f7f8fa'];

/** The band colour (an index into BAND_COLOURS) of displayed row @p r: rows alternate. */
export function rowBand(r)
{
    return r % 2;
}

/** A colour of '#rrggbb[aa]' text as ImageData's RGBA bytes in one number (little-endian). */
export function rgba32Of(text)
{
    const [r, g, b, a] = parseRgba(text);
    return packRgba32(r, g, b, Math.round(a * 255));
}

/** RGBA bytes as one number, in the byte order of ImageData on a little-endian machine. */
export function packRgba32(r, g, b, a)
{
    return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** Colour @p c over the opaque colour @p under, as the canvas blends it (@p under 0: nothing under). */
export function blendOver(c, under)
{
    const a = c >>> 24;
    if (a === 255 || under === 0) {
        return c;
    }
    const mix = (shift) => Math.round((((c >>> shift) & 255) * a + ((under >>> shift) & 255) * (255 - a)) / 255);
    return packRgba32(mix(0), mix(8), mix(16), 255);
}

export class Backdrop {
    /**
     * @param left     first device column the batch may cover (the plot's left edge)
     * @param bandOf   Int8Array, per device row, an index into @p colours (-1: nothing)
     * @param colours  opaque band colours (RGBA numbers)
     * @param grid     device columns of the grid lines (ascending)
     * @param gridRgba the grid lines' (translucent) colour over the bands
     */
    constructor(left, bandOf, colours, grid, gridRgba)
    {
        this.left = left;
        this.bandOf = bandOf;
        this.colours = colours;
        this.grid = grid;
        this.gridRgba = gridRgba;
        this.rows = null;
    }

    /** Per band colour, one device row of the backdrop @p width wide: the colour with the grid over it. */
    rowsOf(width)
    {
        if (this.rows === null || this.rows[0].length !== width) {
            this.rows = this.colours.map((c) => {
                const row = new Uint32Array(width).fill(c);
                const lined = blendOver(this.gridRgba, c);
                for (const x of this.grid) {
                    if (x >= 0 && x < width) {
                        row[x] = lined;
                    }
                }
                return row;
            });
        }
        return this.rows;
    }

    /**
     * The colours a rectangle of colour @p c takes over each band: [over
     * nothing, over band 0, over band 1, ...], and the same over the grid.
     */
    tints(c)
    {
        const plain = [c, ...this.colours.map((u) => blendOver(c, u))];
        const lined = [c, ...this.colours.map((u) => blendOver(c, blendOver(this.gridRgba, u)))];
        return {plain, lined, opaque: c >>> 24 === 255};
    }
}
