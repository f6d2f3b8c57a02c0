// SPDX-License-Identifier: MIT
//
// tooltip.js - what is under the mouse, before any click: the drawable's
// category, duration and timeline (an arrow's both timelines, a counter
// sample's value, or a run's or preview's count) in a small
// box beside the cursor, found with the renderer's own hit test at most once
// per animation frame.

import {KIND, KIND_NAMES} from './api.js';
import {formatCount, formatTicks, formatValue} from './format.js';
import {pick} from './render.js';

export class Tooltip {
    constructor(viewer, canvas)
    {
        this.viewer = viewer;
        this.box = document.createElement('div');
        this.box.id = 'tooltip';
        this.box.hidden = true;
        document.body.append(this.box);
        this.pending = null;
        canvas.addEventListener('mousemove', (e) => this.schedule(e, canvas));
        canvas.addEventListener('mouseleave', () => {
            this.pending = null;
            this.box.hidden = true;
        });
    }

    schedule(e, canvas)
    {
        const first = this.pending === null;
        const r = canvas.getBoundingClientRect();
        this.pending = {x: e.clientX - r.left, y: e.clientY - r.top, cx: e.clientX, cy: e.clientY,
                        dragging: e.buttons !== 0};
        if (first) {
            requestAnimationFrame(() => this.update());
        }
    }

    text(i)
    {
        const v = this.viewer;
        const w = v.data;
        const tps = v.info.ticks_per_second;
        const kind = w.kind[i];
        const what = kind === KIND.RUN || kind === KIND.PREVIEW
            ? `${formatCount(w.count[i])} ${KIND_NAMES[w.of[i]]}s (${KIND_NAMES[kind]}), mostly ` : '';
        const span = w.end[i] > w.start[i] ? ` \u2022 ${formatTicks(w.end[i] - w.start[i], tps)}` : '';
        let row = kind === KIND.PREVIEW && w.depth[i] > 0 ? 'a group of timelines' : v.rows.path(w.timeline[i]);
        if (kind === KIND.ARROW) {
            row += ` \u2192 ${v.rows.path(w.timelineTo[i])}`;
        }
        const value = kind === KIND.COUNTER ? ` = ${formatValue(w.value[i])}` : '';
        return `${what}${v.palette.name(w.category[i])}${value}${span}\n${row}`;
    }

    update()
    {
        const p = this.pending;
        this.pending = null;
        const v = this.viewer;
        const i = p && !p.dragging && v.data ? pick(v.geometry(), v.data, v.palette, p.x, p.y) : -1;
        this.box.hidden = i < 0;
        if (i >= 0) {
            this.box.textContent = this.text(i);
            this.box.style.left = `${Math.min(p.cx + 14, window.innerWidth - 320)}px`;
            this.box.style.top = `${p.cy + 16}px`;
        }
    }
}
