// SPDX-License-Identifier: MIT
//
// frame_stretch.js - the cheap provisional frame: while the answer for a
// new window is on its way, the plot area drawn last is copied and
// stretched to the new window (time maps to x, rows stay put), instead of
// the old answer being drawn again item by item.  Used when the old answer
// is large (a dense frame costs ~5 ms to draw, the copy well under 1 ms,
// and both share the CPU with slog-serve) and only while nothing but the
// window changed: same canvas size, scroll, row layout, categories and
// file.  The exact frame replaces it as soon as the answer arrives.

export const STRETCH_MIN_ITEMS = 2000;

export class FrameStretch {
    constructor()
    {
        this.scratch = null;
        this.last = null; // {t0, t1, layout}: what the canvas shows now
    }

    /** The canvas now shows window [g.t0, g.t1) drawn with layout key @p layout. */
    drawn(g, layout)
    {
        this.last = {t0: g.t0, t1: g.t1, layout};
    }

    /** Forget what was drawn (the next provisional frame draws items). */
    reset()
    {
        this.last = null;
    }

    /**
     * Copy the plot area of @p canvas now, before the frame clears it.
     * Returns a painter that draws the copy stretched to geometry @p g, or
     * null when the canvas does not show the same layout and an overlapping
     * window.
     */
    take(canvas, g, layout)
    {
        const l = this.last;
        const t0 = Math.max(l ? l.t0 : 0, g.t0);
        const t1 = Math.min(l ? l.t1 : 0, g.t1);
        if (!l || l.layout !== layout || !(t1 > t0)) {
            return null;
        }
        const k = canvas.width / Math.max(1, g.width); // device pixels per CSS pixel
        const x0 = Math.round(g.plotX * k);
        const w = canvas.width - x0;
        const h = canvas.height;
        if (w <= 0 || h <= 0) {
            return null;
        }
        const s = this.scratchOf(w, h);
        s.ctx.clearRect(0, 0, w, h);
        s.ctx.drawImage(canvas, x0, 0, w, h, 0, 0, w, h);
        const from = (t) => (t - l.t0) / (l.t1 - l.t0) * w;
        const to = (t) => x0 + (t - g.t0) / (g.t1 - g.t0) * w;
        return (ctx) => {
            ctx.save();
            ctx.setTransform(1, 0, 0, 1, 0, 0);
            ctx.imageSmoothingEnabled = false;
            ctx.drawImage(s.canvas, from(t0), 0, Math.max(1e-3, from(t1) - from(t0)), h, to(t0), 0,
                          to(t1) - to(t0), h);
            ctx.restore();
        };
    }

    scratchOf(w, h)
    {
        if (!this.scratch || this.scratch.canvas.width !== w || this.scratch.canvas.height !== h) {
            const canvas = document.createElement('canvas');
            canvas.width = w;
            canvas.height = h;
            this.scratch = {canvas, ctx: canvas.getContext('2d')};
        }
        return this.scratch;
    }
}
