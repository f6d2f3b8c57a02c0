// SPDX-License-Identifier: MIT
//
// ruler.js - the time ruler above the rows: tick marks at 1-2-5 steps of the
// clock chosen so labels stay about 100 pixels apart, labelled from the
// trace's start in the unit that reads best, grid lines for the timeline
// canvas, and the selected range with its exact duration.

import {formatTicks} from './format.js';

export const RULER_HEIGHT = 30;
const LABEL_SPACING = 100;

/** Tick step (ticks) for a scale of @p ticksPerPixel. */
export function tickStep(ticksPerPixel)
{
    const raw = Math.max(1, ticksPerPixel * LABEL_SPACING);
    const p = 10 ** Math.floor(Math.log10(raw));
    for (const m of [1, 2, 5, 10]) {
        if (m * p >= raw) {
            return m * p;
        }
    }
    return 10 * p;
}

/** Times (ticks) of the grid lines within the geometry's window. */
export function gridTimes(g)
{
    const step = tickStep(1 / g.scale);
    const out = [];
    for (let t = Math.ceil(g.t0 / step) * step; t <= g.t1 && out.length < 1000; t += step) {
        out.push(t);
    }
    return out;
}

/** Faint vertical grid lines on the timeline canvas. */
export function drawGrid(ctx, g)
{
    ctx.fillStyle = 'rgba(0,0,0,0.06)';
    for (const t of gridTimes(g)) {
        ctx.fillRect(Math.round(g.x(t)), 0, 1, g.height);
    }
}

/**
 * Draw the ruler for geometry @p g on @p ctx (a canvas RULER_HEIGHT tall),
 * with @p selection ({t0, t1} or null).
 */
export function drawRuler(ctx, g, ticksPerSecond, selection)
{
    ctx.clearRect(0, 0, g.width, RULER_HEIGHT);
    ctx.fillStyle = '#eef0f4';
    ctx.fillRect(0, 0, g.width, RULER_HEIGHT);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.fillStyle = '#333';
    ctx.fillText(`${formatTicks(g.t1 - g.t0, ticksPerSecond)} shown`, 6, 4);
    const step = tickStep(1 / g.scale);
    for (const t of gridTimes(g)) {
        const x = Math.round(g.x(t));
        ctx.fillRect(x, RULER_HEIGHT - 8, 1, 8);
        const digits = Math.max(3, Math.ceil(Math.log10(Math.max(1, Math.abs(t)) / step)) + 2);
        ctx.fillText(formatTicks(t, ticksPerSecond, digits), x + 3, 4);
    }
    if (selection) {
        const x0 = g.x(selection.t0);
        const x1 = g.x(selection.t1);
        ctx.fillStyle = 'rgba(60,110,220,0.25)';
        ctx.fillRect(x0, 0, x1 - x0, RULER_HEIGHT);
        ctx.fillStyle = '#1d3f8f';
        ctx.fillText(formatTicks(selection.t1 - selection.t0, ticksPerSecond),
                     Math.max(x0, g.plotX) + 3, 16);
    }
    ctx.fillStyle = '#c8ccd4';
    ctx.fillRect(0, RULER_HEIGHT - 1, g.width, 1);
}
