// SPDX-License-Identifier: MIT
//
// live_follow.js - a file still being written (info.complete false): its
// info is read again every 2 s; when it grew, the viewer's epoch changes (so
// the same window is asked again) and, with "follow end" ticked and the view
// at the old end, the view slides to the new end keeping its width.  Stops
// once the file says it is complete.

import {getJson} from './api.js';

const POLL_MS = 2000;

export class LiveFollow {
    constructor(viewer)
    {
        this.viewer = viewer;
        this.timer = null;
    }

    /** Start (or stop) watching the viewer's current file. */
    watch()
    {
        const v = this.viewer;
        clearInterval(this.timer);
        v.epoch = 0;
        document.getElementById('follow-label').hidden = v.info.complete;
        if (!v.info.complete) {
            const f = v.f;
            this.timer = setInterval(() => this.poll(f), POLL_MS);
        }
    }

    async poll(f)
    {
        const v = this.viewer;
        const info = await getJson('info', {f}).catch(() => null);
        if (!info || v.f !== f ||
            (Number(info.duration) === v.duration && info.complete === v.info.complete)) {
            return;
        }
        const atEnd = v.view.t1 >= v.duration - 1;
        const span = v.view.t1 - v.view.t0;
        v.info = info;
        v.duration = v.rows.duration = Math.max(1, Number(info.duration));
        v.epoch++;
        if (document.getElementById('follow').checked && atEnd) {
            v.view = v.clamp({t0: v.duration - span, t1: v.duration});
        }
        if (info.complete) {
            this.watch();
        }
        v.changed();
    }
}
