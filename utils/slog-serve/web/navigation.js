// SPDX-License-Identifier: MIT
//
// navigation.js - how a person moves around, as a Perfetto user expects:
// mouse wheel or trackpad pinch zooms at the cursor (horizontal wheel pans;
// the wheel over the row labels, or with Shift, scrolls rows), drag pans,
// Shift+drag or a drag on the ruler selects a range, click picks a drawable
// or toggles a row, W/S zoom at the cursor, A/D pan, F or Z zooms to the
// selection, Escape clears it.  It only turns input into calls on the
// viewer (setView, setSelection, pickAt, toggleRow, zoomToSelection).

const ZOOM_STEP = 0.8;      // W/S: window width factor per key press
const PAN_STEP = 0.15;      // A/D: fraction of the window per key press
const WHEEL_ZOOM = 0.0015;  // per wheel pixel
const CLICK_SLOP = 3;       // pixels a click may move and stay a click

/** Zoom [t0, t1] by @p factor (<1 zooms in) keeping @p anchor where it is. */
export function zoomAt(view, factor, anchor)
{
    return {t0: anchor - (anchor - view.t0) * factor, t1: anchor + (view.t1 - anchor) * factor};
}

export function panBy(view, dt)
{
    return {t0: view.t0 + dt, t1: view.t1 + dt};
}

function wheelPixels(e)
{
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    return [e.deltaX * unit, e.deltaY * unit];
}

export class Navigation {
    /**
     * @param viewer  the viewer (main.js)
     * @param canvas  the timeline canvas; @param ruler the ruler canvas
     */
    constructor(viewer, canvas, ruler)
    {
        this.viewer = viewer;
        this.mouseX = null;
        this.drag = null;
        canvas.addEventListener('wheel', (e) => this.onWheel(e, canvas), {passive: false});
        ruler.addEventListener('wheel', (e) => this.onWheel(e, ruler), {passive: false});
        for (const el of [canvas, ruler]) {
            el.addEventListener('mousedown', (e) => this.onDown(e, el, el === ruler));
            el.addEventListener('mousemove', (e) => {
                this.mouseX = this.localX(e, el);
            });
        }
        canvas.addEventListener('dblclick', (e) => viewer.zoomToItemAt(this.localX(e, canvas),
                                                                       this.localY(e, canvas)));
        window.addEventListener('mousemove', (e) => this.onMove(e));
        window.addEventListener('mouseup', (e) => this.onUp(e));
        window.addEventListener('keydown', (e) => this.onKey(e));
    }

    localX(e, el)
    {
        return e.clientX - el.getBoundingClientRect().left;
    }

    localY(e, el)
    {
        return e.clientY - el.getBoundingClientRect().top;
    }

    onWheel(e, canvas)
    {
        const g = this.viewer.geometry();
        const x = this.localX(e, canvas);
        if (x < g.plotX || (e.shiftKey && !e.ctrlKey)) {
            return; // the rows scroll natively
        }
        e.preventDefault();
        const [dx, dy] = wheelPixels(e);
        if (Math.abs(dx) > Math.abs(dy)) {
            this.viewer.setView(panBy(this.viewer.view, dx / g.scale));
        } else {
            const factor = Math.exp(dy * WHEEL_ZOOM * (e.ctrlKey ? 4 : 1));
            this.viewer.setView(zoomAt(this.viewer.view, factor, g.time(x)));
        }
    }

    onDown(e, el, onRuler)
    {
        if (e.button !== 0) {
            return;
        }
        const g = this.viewer.geometry();
        const x = this.localX(e, el);
        this.drag = {el, x0: x, y0: this.localY(e, el), clientX0: e.clientX,
                     select: onRuler || e.shiftKey, view0: this.viewer.view, moved: false,
                     inLabels: x < g.plotX};
        e.preventDefault();
    }

    onMove(e)
    {
        const d = this.drag;
        if (!d) {
            return;
        }
        const dx = e.clientX - d.clientX0;
        d.moved = d.moved || Math.abs(dx) > CLICK_SLOP;
        if (!d.moved || d.inLabels) {
            return;
        }
        const g = this.viewer.geometry();
        if (d.select) {
            const a = g.time(Math.max(g.plotX, d.x0));
            const b = g.time(Math.max(g.plotX, d.x0 + dx));
            this.viewer.setSelection({t0: Math.round(Math.min(a, b)), t1: Math.round(Math.max(a, b))},
                                     false);
        } else {
            this.viewer.setView(panBy(d.view0, -dx / g.scale));
        }
    }

    onUp(e)
    {
        const d = this.drag;
        this.drag = null;
        if (!d) {
            return;
        }
        if (d.moved && d.select) {
            this.viewer.setSelection(this.viewer.selection, true);
        } else if (!d.moved && d.el === this.viewer.canvas) {
            if (d.inLabels) {
                this.viewer.toggleRowAt(d.x0, d.y0);
            } else {
                this.viewer.pickAt(d.x0, d.y0);
            }
        } else if (!d.moved) {
            this.viewer.setSelection(null, true);
        }
    }

    onKey(e)
    {
        if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement ||
            e.ctrlKey || e.metaKey || e.altKey) {
            return;
        }
        const v = this.viewer.view;
        const g = this.viewer.geometry();
        const anchor = this.mouseX !== null && this.mouseX >= g.plotX ? g.time(this.mouseX)
                                                                      : (v.t0 + v.t1) / 2;
        const actions = {
            w: () => this.viewer.setView(zoomAt(v, ZOOM_STEP, anchor)),
            s: () => this.viewer.setView(zoomAt(v, 1 / ZOOM_STEP, anchor)),
            a: () => this.viewer.setView(panBy(v, -(v.t1 - v.t0) * PAN_STEP)),
            d: () => this.viewer.setView(panBy(v, (v.t1 - v.t0) * PAN_STEP)),
            f: () => this.viewer.zoomToSelection(),
            z: () => this.viewer.zoomToSelection(),
            escape: () => this.viewer.setSelection(null, true),
        };
        const action = actions[e.key.toLowerCase()];
        if (action) {
            e.preventDefault();
            action();
        }
    }
}
