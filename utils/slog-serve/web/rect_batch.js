// SPDX-License-Identifier: MIT
//
// rect_batch.js - the rectangles of one frame, gathered per colour and
// filled with their edges on whole device pixels.  A few thousand go to the
// canvas as one path per colour.  More are written into a pixel buffer over
// the backdrop the canvas shows under them (backdrop.js: row bands, grid),
// which is then put straight into the canvas: a zoomed-out view of a large
// trace draws ~3*10^4 preview stripes, which cost the software rasteriser
// ~8 ms as paths plus ~8 ms of script, against ~2 ms in all as pixels
// (doc/PERFORMANCE.md, "Viewer frame cost"), and a second canvas
// composited over the first cost another ~1 ms a frame ("Session 18").  A
// row drawn exactly like another (the same backdrop too) is copied from it.
// Every rectangle keeps at least one device pixel each way, so nothing drawn
// disappears; where two overlap, the later one wins (colours are blended
// with the backdrop, not with each other).

export const PIXELS_MIN_RECTS = 4096;

let buffer = null; // {image, px}: reused while the canvas keeps its size

function pixelBuffer(width, height)
{
    if (!buffer || buffer.image.width !== width || buffer.image.height !== height) {
        const image = new ImageData(width, height);
        buffer = {image, px: new Uint32Array(image.data.buffer)};
    }
    return buffer;
}

export class RectBatch {
    constructor()
    {
        this.lists = new Map(); // key -> {xy: Float64Array of x0, y0, x1, y1, ..., n: numbers used}
        this.copies = [];       // [from, to, height] in CSS pixels: bands copied after drawing
    }

    /** Empty every list, keeping their memory for the next frame (no garbage per frame). */
    reset()
    {
        for (const list of this.lists.values()) {
            list.n = 0;
        }
        this.copies.length = 0;
    }

    /**
     * After the rectangles are drawn, copy the full-width band [from, from +
     * height) to [to, to + height) (CSS pixels): a row drawn like another
     * costs a copy, not its rectangles.  Copies need the pixel buffer, so a
     * batch with copies is always filled through it; the two bands must
     * have the same backdrop.
     */
    copy(from, to, height)
    {
        this.copies.push(from, to, height);
    }

    /** The list of colour @p key, for push(). */
    list(key)
    {
        let list = this.lists.get(key);
        if (!list) {
            list = {xy: new Float64Array(64), n: 0};
            this.lists.set(key, list);
        }
        return list;
    }

    /** Add [x0, x1) x [y0, y1) (CSS pixels) to @p list. */
    static push(list, x0, y0, x1, y1)
    {
        if (list.n + 4 > list.xy.length) {
            const grown = new Float64Array(list.xy.length * 2);
            grown.set(list.xy);
            list.xy = grown;
        }
        const xy = list.xy;
        const n = list.n;
        xy[n] = x0;
        xy[n + 1] = y0;
        xy[n + 2] = x1;
        xy[n + 3] = y1;
        list.n = n + 4;
    }

    count()
    {
        let n = 0;
        for (const list of this.lists.values()) {
            n += list.n / 4;
        }
        return n;
    }

    /**
     * Fill every rectangle.  @p palette gives each key's style(key) (a
     * canvas fill style) and rgba32(key) (the same colour as little-endian
     * RGBA bytes in one number); @p backdrop (backdrop.js) is what the
     * canvas shows under them, which the pixel path writes them over.
     */
    fill(ctx, palette, backdrop)
    {
        if (this.copies.length > 0 || this.count() >= PIXELS_MIN_RECTS) {
            this.fillPixels(ctx, palette, backdrop);
        } else {
            this.fillPaths(ctx, palette);
        }
    }

    fillPaths(ctx, palette)
    {
        const k = ctx.getTransform().a || 1; // device pixels per CSS pixel
        const snap = (v) => Math.round(v * k) / k;
        const one = 1 / k;
        for (const [key, {xy, n}] of this.lists) {
            if (n === 0) {
                continue;
            }
            const path = new Path2D();
            for (let i = 0; i < n; i += 4) {
                const x = snap(xy[i]);
                const y = snap(xy[i + 1]);
                path.rect(x, y, Math.max(one, snap(xy[i + 2]) - x), Math.max(one, snap(xy[i + 3]) - y));
            }
            ctx.fillStyle = palette.style(key);
            ctx.fill(path);
        }
    }

    /** The rectangles over @p backdrop in the pixel buffer, put into the canvas right of the backdrop's left edge. */
    fillPixels(ctx, palette, backdrop)
    {
        const {width, height} = ctx.canvas;
        const k = ctx.getTransform().a || 1;
        const {px, image} = pixelBuffer(width, height);
        const left = Math.min(width, backdrop.left);
        const rows = backdrop.rowsOf(width);
        for (let y = 0; y < height; y++) {
            const band = y < backdrop.bandOf.length ? backdrop.bandOf[y] : -1;
            if (band >= 0) {
                px.set(rows[band].subarray(left), y * width + left);
            } else {
                px.fill(0, y * width + left, (y + 1) * width);
            }
        }
        const box = {y0: height, y1: 0};
        for (const [key, list] of this.lists) {
            writeRects(px, width, height, k, list, backdrop, backdrop.tints(palette.rgba32(key)), box);
        }
        copyBands(px, width, height, k, this.copies, box);
        if (box.y1 > box.y0 && left < width) {
            ctx.putImageData(image, 0, 0, left, box.y0, width - left, box.y1 - box.y0);
        }
    }
}

/**
 * Write @p list's rectangles (CSS pixels, scaled by @p k) into @p px right
 * of the backdrop's left edge, each row in its tint over that row's band
 * (@p tints: backdrop.tints); grow @p box's rows.
 */
function writeRects(px, width, height, k, list, backdrop, tints, box)
{
    const xy = list.xy;
    const {bandOf, left, grid} = backdrop;
    const {plain, lined, opaque} = tints;
    let top = box.y0;
    let bottom = box.y1;
    for (let i = 0; i < list.n; i += 4) {
        const x0 = Math.max(left, Math.round(xy[i] * k));
        const y0 = Math.max(0, Math.round(xy[i + 1] * k));
        const x1 = Math.min(width, Math.max(x0 + 1, Math.round(xy[i + 2] * k)));
        const y1 = Math.min(height, Math.max(y0 + 1, Math.round(xy[i + 3] * k)));
        if (x0 >= x1 || y0 >= y1) {
            continue;
        }
        for (let y = y0; y < y1; y++) {
            const c = plain[bandOf[y] + 1];
            const row = y * width;
            for (let x = row + x0, end = row + x1; x < end; x++) {
                px[x] = c;
            }
        }
        if (!opaque) { // a translucent colour shows the grid line under it
            for (const gx of grid) {
                for (let y = gx >= x0 && gx < x1 ? y0 : y1; y < y1; y++) {
                    px[y * width + gx] = lined[bandOf[y] + 1];
                }
            }
        }
        top = Math.min(top, y0);
        bottom = Math.max(bottom, y1);
    }
    box.y0 = top;
    box.y1 = bottom;
}

/** The batch's band copies (CSS pixels, scaled by @p k) within @p px; grow @p box's rows. */
function copyBands(px, width, height, k, copies, box)
{
    for (let i = 0; i < copies.length; i += 3) {
        const from = Math.round(copies[i] * k);
        const to = Math.round(copies[i + 1] * k);
        const rows = Math.min(Math.round(copies[i + 2] * k), height - Math.max(from, to));
        if (from < 0 || to < 0 || rows <= 0) {
            continue;
        }
        px.copyWithin(to * width, from * width, (from + rows) * width);
        box.y0 = Math.min(box.y0, to);
        box.y1 = Math.max(box.y1, to + rows);
    }
}
