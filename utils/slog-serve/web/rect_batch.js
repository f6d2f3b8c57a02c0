// SPDX-License-Identifier: MIT
//
// rect_batch.js - the rectangles of one frame, gathered per colour and
// filled with their edges on whole device pixels.  A few thousand go to the
// canvas as one path per colour.  More are written straight into a pixel
// layer that is composited once: a zoomed-out view of a large trace draws
// ~3*10^4 preview stripes, which cost the software rasteriser ~8 ms as
// paths plus ~8 ms of script, against ~2 ms in all as pixels
// (doc/PERFORMANCE.md, "Viewer frame cost"); a row drawn exactly like
// another is copied from it.  Every rectangle keeps at least
// one device pixel each way, so nothing drawn disappears; where two overlap,
// the later one wins (colours are blended with what is under the layer, not
// with each other).

export const PIXEL_LAYER_MIN_RECTS = 4096;

let layer = null; // {canvas, ctx, image, px}: reused while the canvas keeps its size

function pixelLayer(width, height)
{
    if (!layer || layer.image.width !== width || layer.image.height !== height) {
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = height;
        const image = new ImageData(width, height);
        layer = {canvas, ctx: canvas.getContext('2d'), image, px: new Uint32Array(image.data.buffer),
                 written: {x0: width, y0: height, x1: 0, y1: 0}};
    }
    return layer;
}

/** Clear what the layer's last frame wrote (rows y0..y1, whole width): the rest is still clear. */
function clearWritten(l, width)
{
    const w = l.written;
    if (w.y1 > w.y0) {
        l.px.fill(0, w.y0 * width, w.y1 * width);
    }
}

export class RectBatch {
    constructor()
    {
        this.lists = new Map(); // key -> {xy: Float64Array of x0, y0, x1, y1, ..., n: numbers used}
        this.spare = [];        // lists of earlier frames, emptied, for reuse
        this.copies = [];       // [from, to, height] in CSS pixels: bands copied after drawing
    }

    /**
     * Empty every list, keeping their memory for the next frame (no garbage
     * per frame).  The keys go: lists are filled in the order this frame
     * first uses them, so where rectangles overlap, the same frame comes
     * out the same whatever was drawn before it.
     */
    reset()
    {
        for (const list of this.lists.values()) {
            list.n = 0;
            this.spare.push(list);
        }
        this.lists.clear();
        this.copies.length = 0;
    }

    /**
     * After the rectangles are drawn, copy the full-width band [from, from +
     * height) to [to, to + height) (CSS pixels): a row drawn like another
     * costs a copy, not its rectangles.  Copies need the pixel layer, so a
     * batch with copies is always filled through it.
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
            list = this.spare.pop() || {xy: new Float64Array(64), n: 0};
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
     * RGBA bytes in one number).
     */
    fill(ctx, palette)
    {
        if (this.copies.length > 0 || this.count() >= PIXEL_LAYER_MIN_RECTS) {
            this.fillPixels(ctx, palette);
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

    fillPixels(ctx, palette)
    {
        const {width, height} = ctx.canvas;
        const k = ctx.getTransform().a || 1;
        const l = pixelLayer(width, height);
        clearWritten(l, width);
        const box = {x0: width, y0: height, x1: 0, y1: 0};
        l.written = box;
        for (const [key, list] of this.lists) {
            writeRects(l.px, width, height, k, list, palette.rgba32(key), box);
        }
        copyBands(l.px, width, height, k, this.copies, box); // copies hold what was written: same columns
        if (box.y1 <= box.y0 || box.x1 <= box.x0) {
            return;
        }
        const w = box.x1 - box.x0;
        const h = box.y1 - box.y0;
        l.ctx.putImageData(l.image, 0, 0, box.x0, box.y0, w, h);
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(l.canvas, box.x0, box.y0, w, h, box.x0, box.y0, w, h);
        ctx.restore();
    }
}

/**
 * Math.round(@p v) clamped to [0, @p limit], as one integer: halves round up
 * as Math.round's do, and a value outside the range never reaches the
 * 32-bit conversion.  A third cheaper than Math.round and Math.max/min
 * (a dense frame has ~2*10^4 rectangles: 60 -> 37 ns each in node).
 */
function devicePixel(v, limit)
{
    return v <= 0 ? 0 : v >= limit ? limit : (v + 0.5) | 0;
}

/**
 * Write @p list's rectangles (CSS pixels, scaled by @p k) into @p px in
 * colour @p c; grow @p box (device pixels) to hold what was written.  The
 * bounds stay in locals inside the loop: it runs ~10^4 times a dense frame.
 * Each rectangle keeps at least one pixel each way; one with a NaN side is
 * not drawn.
 */
function writeRects(px, width, height, k, list, c, box)
{
    const xy = list.xy;
    const n = list.n;
    let {x0: bx0, y0: by0, x1: bx1, y1: by1} = box;
    for (let i = 0; i < n; i += 4) {
        const fx0 = xy[i] * k, fy0 = xy[i + 1] * k, fx1 = xy[i + 2] * k, fy1 = xy[i + 3] * k;
        if (fx0 !== fx0 || fy0 !== fy0 || fx1 !== fx1 || fy1 !== fy1) {
            continue;
        }
        const x0 = devicePixel(fx0, width);
        const y0 = devicePixel(fy0, height);
        let x1 = devicePixel(fx1, width);
        let y1 = devicePixel(fy1, height);
        x1 = x1 > x0 ? x1 : x0 + 1 > width ? width : x0 + 1;
        y1 = y1 > y0 ? y1 : y0 + 1 > height ? height : y0 + 1;
        if (y0 >= y1 || x0 >= x1) {
            continue;
        }
        for (let row = y0 * width, last = y1 * width; row < last; row += width) {
            for (let x = row + x0, end = row + x1; x < end; x++) {
                px[x] = c;
            }
        }
        bx0 = x0 < bx0 ? x0 : bx0;
        bx1 = x1 > bx1 ? x1 : bx1;
        by0 = y0 < by0 ? y0 : by0;
        by1 = y1 > by1 ? y1 : by1;
    }
    box.x0 = bx0;
    box.y0 = by0;
    box.x1 = bx1;
    box.y1 = by1;
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
