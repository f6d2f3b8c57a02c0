// SPDX-License-Identifier: MIT
//
// geometry.js - where things are on the timeline canvas: time <-> x over the
// plot area (right of the row labels), a displayed row's band and a state
// lane's y, shared by the renderer and the hit test so that what is clicked
// is exactly what was drawn.

import {LANE_HEIGHT, ROW_PAD} from './timeline_rows.js';

export const LABEL_WIDTH = 220;

export class Geometry {
    /**
     * @param width, height  canvas size in CSS pixels
     * @param view           {t0, t1} in ticks relative to the file start
     * @param rows           TimelineRows
     * @param scrollTop      vertical scroll of the rows, CSS pixels
     */
    constructor(width, height, view, rows, scrollTop)
    {
        this.width = width;
        this.height = height;
        this.plotX = LABEL_WIDTH;
        this.plotW = Math.max(1, width - LABEL_WIDTH);
        this.t0 = view.t0;
        this.t1 = view.t1;
        this.scale = this.plotW / Math.max(1e-9, view.t1 - view.t0);
        this.rows = rows;
        this.scrollTop = scrollTop;
        [this.first, this.last] = rows.visibleRange(scrollTop, scrollTop + height);
    }

    x(t)
    {
        return this.plotX + (t - this.t0) * this.scale;
    }

    time(x)
    {
        return this.t0 + (x - this.plotX) / this.scale;
    }

    rowTop(r)
    {
        return this.rows.top[r] - this.scrollTop;
    }

    rowHeight(r)
    {
        return this.rows.top[r + 1] - this.rows.top[r];
    }

    visible(r)
    {
        return r >= this.first && r < this.last;
    }

    /** Lanes a displayed row has room for. */
    lanes(r)
    {
        return Math.max(1, Math.floor((this.rowHeight(r) - 2 * ROW_PAD) / LANE_HEIGHT));
    }

    laneY(r, depth)
    {
        return this.rowTop(r) + ROW_PAD + Math.min(depth, this.lanes(r) - 1) * LANE_HEIGHT;
    }

    /** Middle of a row, also for rows off screen (arrows leave the screen). */
    rowMid(r)
    {
        return this.rowTop(r) + this.rowHeight(r) / 2;
    }
}
