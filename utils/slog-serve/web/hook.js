// SPDX-License-Identifier: MIT
//
// hook.js - the documented test hook `window.slogViewer` (doc/VIEWER.md,
// "Test hook"): view() gives the current window in integer nanoseconds from
// the trace's start (as slog-query) and the rows on screen; goto(t0, t1)
// moves there (clamped to the trace, and at least 20 ticks wide, the
// deepest zoom: a narrower window is widened around its middle) and
// resolves with the window drawn once it is fully drawn; frames
// counts frames drawn; ready resolves when the first exact frame is drawn,
// or rejects with the error the status line shows when one comes first (a
// link to a file the server lacks): nobody waits on it for ever;
// idle() resolves when whatever the view is now is fully drawn; where()
// says where a drawable's lane is on the page, for clicks.

function toNs(viewer, ticks)
{
    return Math.round(ticks * 1e9 / viewer.info.ticks_per_second);
}

function toTicks(viewer, ns)
{
    return ns * viewer.info.ticks_per_second / 1e9;
}

export function installHook(viewer)
{
    let readyResolve;
    let readyReject;
    const ready = new Promise((resolve, reject) => {
        readyResolve = resolve;
        readyReject = reject;
    });
    ready.catch(() => {}); // handled: a page that never awaits it logs no unhandled rejection
    const showError = viewer.showError.bind(viewer);
    viewer.showError = (e) => {
        showError(e);
        readyReject(e); // no effect once the first frame resolved it
    };
    const settle = viewer.settle.bind(viewer);
    viewer.settle = (key) => {
        settle(key);
        readyResolve();
    };
    window.slogViewer = {
        ready,
        view()
        {
            const g = viewer.geometry();
            const sel = viewer.selection;
            return {file: viewer.f, t0: toNs(viewer, viewer.view.t0), t1: toNs(viewer, viewer.view.t1),
                    rows: Array.from(viewer.rows.shown.slice(g.first, g.last)),
                    selection: sel && {t0: toNs(viewer, sel.t0), t1: toNs(viewer, sel.t1)}};
        },
        goto(t0, t1)
        {
            viewer.setView({t0: toTicks(viewer, t0), t1: toTicks(viewer, t1)});
            const drawn = viewer.whenDrawn(viewer.view).then(() => this.view());
            viewer.frame(); // ask at once: a script's input needs no animation frame
            return drawn;
        },
        idle()
        {
            return viewer.whenDrawn(viewer.view).then(() => this.view());
        },
        /** Page coordinates of time @p t (ns) in lane @p depth of timeline @p timeline's row, or null. */
        where(timeline, depth, t)
        {
            const g = viewer.geometry();
            const r = viewer.rows.rowOf[timeline];
            if (r < 0 || !g.visible(r)) {
                return null;
            }
            const box = viewer.canvas.getBoundingClientRect();
            return {x: box.left + g.x(toTicks(viewer, t)), y: box.top + g.laneY(r, depth) + 7,
                    rowTop: box.top + g.rowTop(r), rowHeight: g.rowHeight(r), plotLeft: box.left + g.plotX,
                    plotRight: box.left + g.width};
        },
        get frames()
        {
            return viewer.frames;
        },
        /** Last window answer: items, bytes, fetch/server/decode ms, and the loader's totals. */
        lastWindow()
        {
            const w = viewer.data;
            return w && {n: w.n, bytes: w.bytes, fetchMs: w.fetchMs, serverMs: w.serverMs,
                         decodeMs: w.decodeMs,
                         drawMs: viewer.lastDrawMs, cut: w.cut, totals: {...viewer.loader.totals}};
        },
        viewer,
    };
}
