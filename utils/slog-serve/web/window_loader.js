// SPDX-License-Identifier: MIT
//
// window_loader.js - asks for exactly what is drawn: one /api/window request
// per distinct (window, pixels, rows, categories) key, the previous one
// aborted when the key changes (zooming issues many keys; only the last
// matters), and the answer kept with the key it answers so the viewer knows
// when a frame is fully drawn.  Also counts bytes and items per request.

import {ColumnPool, getWindow} from './api.js';

export class WindowLoader {
    /** @param onData  called with (decoded window) when an answer for the latest key arrives */
    constructor(onData, onError)
    {
        this.onData = onData;
        this.onError = onError;
        this.inflight = null;
        this.pool = new ColumnPool(); // the viewer holds one answer at a time (api.js)
        this.totals = {requests: 0, aborted: 0, bytes: 0, items: 0};
    }

    /** The key of a request: equal keys ask for the same answer (epoch: the file grew). */
    static key(f, req)
    {
        return `${f}|${req.t0}|${req.t1}|${req.px}|${req.rows}|${req.cats}|${req.epoch || 0}`;
    }

    /** Make sure @p req is being fetched (or was), cancelling anything else. */
    want(f, req)
    {
        const key = WindowLoader.key(f, req);
        if (this.inflight && this.inflight.key === key) {
            return;
        }
        if (this.inflight) {
            this.inflight.controller.abort();
            this.totals.aborted++;
        }
        const controller = new AbortController();
        const started = performance.now();
        this.inflight = {key, controller};
        this.totals.requests++;
        getWindow(f, req, controller.signal, this.pool).then((w) => {
            if (this.inflight && this.inflight.key === key) {
                this.inflight = null;
            }
            w.key = key;
            w.f = f;
            w.req = req;
            w.fetchMs = performance.now() - started;
            this.totals.bytes += w.bytes;
            this.totals.items += w.n;
            this.onData(w);
        }, (e) => {
            if (this.inflight && this.inflight.key === key) {
                this.inflight = null;
            }
            if (e.name !== 'AbortError') {
                this.onError(e);
            }
        });
    }

    /**
     * Does answer @p w draw request @p req exactly?  The same window, pixels,
     * categories and epoch, and every row asked for now was asked for then
     * (rows that grew taller push others off screen: no new request).
     */
    static covers(w, f, req)
    {
        if (!w || !w.req || w.f !== f) {
            return false;
        }
        const a = w.req;
        if (a.t0 !== req.t0 || a.t1 !== req.t1 || a.px !== req.px || a.cats !== req.cats ||
            (a.epoch || 0) !== (req.epoch || 0)) {
            return false;
        }
        if (a.rows === '' || a.rows === req.rows) {
            return true;
        }
        w.rowSet = w.rowSet || new Set(a.ids);
        return req.ids.every((id) => w.rowSet.has(id));
    }

    cancel()
    {
        if (this.inflight) {
            this.inflight.controller.abort();
            this.inflight = null;
        }
    }
}
