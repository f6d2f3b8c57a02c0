// SPDX-License-Identifier: MIT
//
// render.js - draws one frame of the timeline canvas from the decoded window
// columns: row bands and labels, nested states as stacked rectangles (one
// Path2D per category, so 10^5 items cost one fill per colour), events as
// ticks, arrows as lines between rows, pixel runs as bars whose height is
// their exact occupancy; previews and counters are drawn by
// render_density.js.  The hit test (pick) uses the same geometry: states,
// events, arrows (near the line), counter samples (the one in force at the
// cursor) and state previews.

import {KIND} from './api.js';
import {LABEL_WIDTH} from './geometry.js';
import {drawCounters, drawPreviews, pathFor, previewAt} from './render_density.js';
import {drawGrid} from './ruler.js';
import {LANE_HEIGHT} from './timeline_rows.js';

const FONT = '11px system-ui, sans-serif';
const CHAR_WIDTH = 6.2;

function drawRowBands(ctx, g)
{
    for (let r = g.first; r < g.last; r++) {
        ctx.fillStyle = r % 2 ? '#f7f8fa' : '#ffffff';
        ctx.fillRect(0, g.rowTop(r), g.width, g.rowHeight(r));
    }
    ctx.fillStyle = '#eef0f4';
    ctx.fillRect(0, 0, LABEL_WIDTH, g.height);
}

function drawLabels(ctx, g)
{
    const rows = g.rows;
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    for (let r = g.first; r < g.last; r++) {
        const id = rows.shown[r];
        const x = 6 + rows.indent[r] * 12;
        const y = g.rowTop(r) + Math.min(g.rowHeight(r), 24) / 2;
        ctx.fillStyle = '#333';
        if (rows.hasChildren(id)) {
            ctx.fillText(rows.expanded[id] ? '\u25be' : '\u25b8', x, y);
        }
        const room = Math.max(0, (LABEL_WIDTH - x - 14) / CHAR_WIDTH);
        const name = rows.name[id];
        ctx.fillText(name.length > room ? name.slice(0, Math.max(0, room - 1)) + '\u2026' : name,
                     x + 12, y);
        ctx.fillStyle = '#dde0e6';
        ctx.fillRect(0, g.rowTop(r) + g.rowHeight(r) - 1, g.width, 1);
    }
    ctx.fillStyle = '#c8ccd4';
    ctx.fillRect(LABEL_WIDTH - 1, 0, 1, g.height);
}

/** Rectangle of item i (a state, or a run of states) on screen, or null. */
export function itemRect(g, w, i)
{
    const r = g.rows.rowOf[w.timeline[i]];
    if (r < 0 || !g.visible(r)) {
        return null;
    }
    const x0 = Math.max(g.plotX - 1, g.x(w.start[i]));
    const x1 = Math.min(g.width + 1, g.x(w.end[i]));
    const y = g.laneY(r, w.depth[i]);
    let h = LANE_HEIGHT - 1;
    if (w.kind[i] === KIND.RUN) {
        const span = Math.max(1, w.end[i] - w.start[i]);
        h = Math.max(3, Math.round(h * Math.min(1, w.inclusive[i] / span)));
    }
    return {x: x0, y: y + (LANE_HEIGHT - 1 - h), w: Math.max(1, x1 - x0), h};
}

function eventTick(g, w, i)
{
    const r = g.rows.rowOf[w.timeline[i]];
    if (r < 0 || !g.visible(r)) {
        return null;
    }
    const x = g.x(w.start[i]);
    const top = g.rowTop(r) + 2;
    const h = w.kind[i] === KIND.RUN ? Math.min(g.rowHeight(r) - 4, 6 + 3 * Math.log2(w.count[i]))
                                     : Math.min(g.rowHeight(r) - 4, 10);
    return {x: x - 1, y: top, w: 2, h};
}

function isStateLike(w, i)
{
    return w.kind[i] === KIND.STATE || (w.kind[i] === KIND.RUN && w.of[i] === KIND.STATE);
}

function isEventLike(w, i)
{
    return w.kind[i] === KIND.EVENT || (w.kind[i] === KIND.RUN && w.of[i] === KIND.EVENT);
}

function isArrowLike(w, i)
{
    return w.kind[i] === KIND.ARROW || (w.kind[i] === KIND.RUN && w.of[i] === KIND.ARROW);
}

/** Is timeline @p id drawn in a collapsed ancestor's row, merged with others? */
function mergedRow(g, id)
{
    return g.rows.shown[g.rows.rowOf[id]] !== id;
}

function drawStatesAndEvents(ctx, g, w, palette)
{
    const paths = new Map();
    const labels = [];
    for (let i = 0; i < w.n; i++) {
        if (!palette.visible(w.category[i])) {
            continue;
        }
        const box = isStateLike(w, i) ? itemRect(g, w, i) : isEventLike(w, i) ? eventTick(g, w, i) : null;
        if (!box || box.x > g.width || box.x + box.w < g.plotX) {
            continue;
        }
        pathFor(paths, w.category[i]).rect(box.x, box.y, box.w, box.h);
        if (w.kind[i] === KIND.STATE && box.w > 40 && !mergedRow(g, w.timeline[i])) {
            labels.push([i, box]);
        }
    }
    for (const [cat, p] of paths) {
        ctx.fillStyle = palette.style(cat);
        ctx.fill(p);
    }
    drawStateLabels(ctx, labels, w, palette);
}

function drawStateLabels(ctx, labels, w, palette)
{
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    for (const [i, box] of labels) {
        const room = Math.floor((box.w - 6) / CHAR_WIDTH);
        const name = palette.name(w.category[i]);
        if (room >= 3) {
            ctx.fillStyle = palette.textStyle(w.category[i]);
            ctx.fillText(name.length > room ? name.slice(0, room - 1) + '\u2026' : name,
                         Math.max(box.x, LABEL_WIDTH) + 3, box.y + box.h / 2);
        }
    }
}

/** Arrows sparser than one line per ARROW_SPARSE pixel columns are drawn at
 * ARROW_ALPHA; denser ones fade with the number of lines per column, down to
 * ARROW_ALPHA_MIN (one line per column and more): an 8-rank halo exchange
 * seen whole draws about 25 lines per column, the wrap-around pair across
 * every row, and at 0.6 they washed out every state under them. */
const ARROW_ALPHA = 0.6;
const ARROW_ALPHA_MIN = 0.15;
const ARROW_SPARSE = 4;

/** The opacity of @p lines arrow lines drawn over @p plotW pixel columns. */
export function arrowAlpha(lines, plotW)
{
    const perColumn = lines / Math.max(1, plotW);
    if (perColumn <= 1 / ARROW_SPARSE) {
        return ARROW_ALPHA;
    }
    return Math.max(ARROW_ALPHA_MIN, ARROW_ALPHA / (ARROW_SPARSE * perColumn));
}

function strokeArrows(ctx, paths, palette)
{
    for (const [cat, p] of paths) {
        ctx.strokeStyle = palette.style(cat);
        ctx.stroke(p);
    }
}

/* Chromium draws 1-pixel lines segment by segment, so lines that cross one
 * pixel stack their opacity: dense arrows are stroked opaque on a layer of
 * the canvas's size (kept between frames) and laid over the frame once at
 * their opacity.  null where OffscreenCanvas is missing. */
let arrowLayer = null;

function layerFor(ctx)
{
    const {width, height} = ctx.canvas;
    if (typeof OffscreenCanvas === 'undefined') {
        return null;
    }
    if (!arrowLayer || arrowLayer.width !== width || arrowLayer.height !== height) {
        arrowLayer = new OffscreenCanvas(width, height);
    }
    const l = arrowLayer.getContext('2d');
    l.setTransform(1, 0, 0, 1, 0, 0);
    l.clearRect(0, 0, width, height);
    l.setTransform(ctx.getTransform());
    l.lineWidth = 1;
    return l;
}

function drawArrows(ctx, g, w, palette)
{
    ctx.lineWidth = 1;
    const paths = new Map();
    let lines = 0;
    for (let i = 0; i < w.n; i++) {
        if (!isArrowLike(w, i) || !palette.visible(w.category[i])) {
            continue;
        }
        const l = arrowLine(g, w, i);
        if (l) {
            const p = pathFor(paths, w.category[i]);
            p.moveTo(l.x0, l.y0);
            p.lineTo(l.x1, l.y1);
            lines++;
        }
    }
    const alpha = arrowAlpha(lines, g.plotW); // arrows must not hide the states they cross
    const layer = alpha < ARROW_ALPHA ? layerFor(ctx) : null;
    if (layer === null) {
        ctx.globalAlpha = alpha;
        strokeArrows(ctx, paths, palette);
        ctx.globalAlpha = 1;
        return;
    }
    strokeArrows(layer, paths, palette);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha = alpha;
    ctx.drawImage(arrowLayer, 0, 0);
    ctx.restore();
}

function drawSelection(ctx, g, selection, picked)
{
    if (selection) {
        const x0 = g.x(selection.t0);
        const x1 = g.x(selection.t1);
        ctx.fillStyle = 'rgba(60,110,220,0.12)';
        ctx.fillRect(x0, 0, x1 - x0, g.height);
        ctx.fillStyle = 'rgba(60,110,220,0.8)';
        ctx.fillRect(x0, 0, 1, g.height);
        ctx.fillRect(x1 - 1, 0, 1, g.height);
    }
    if (picked && picked.box) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 2;
        const b = picked.box;
        if (b.line) {
            ctx.beginPath();
            ctx.moveTo(b.line.x0, b.line.y0);
            ctx.lineTo(b.line.x1, b.line.y1);
            ctx.stroke();
        } else {
            ctx.strokeRect(b.x - 1, b.y - 1, b.w + 2, b.h + 2);
        }
    }
}

/**
 * Draw one frame.  @p scene: {ctx, geometry, data (decoded window or null),
 * stretched (without data: a painter of the last frame stretched to this
 * one, frame_stretch.js), palette, selection, picked}.  Returns the number of items looked at.
 */
export function drawTimeline(scene)
{
    const {ctx, geometry: g, data: w, palette} = scene;
    ctx.clearRect(0, 0, g.width, g.height);
    drawRowBands(ctx, g);
    ctx.save();
    ctx.beginPath();
    ctx.rect(g.plotX, 0, g.plotW, g.height);
    ctx.clip();
    drawGrid(ctx, g);
    if (w) {
        drawPreviews(ctx, g, w, palette);
        drawCounters(ctx, g, w, palette);
        drawStatesAndEvents(ctx, g, w, palette);
        drawArrows(ctx, g, w, palette);
    } else if (scene.stretched) {
        scene.stretched(ctx);
    }
    if (scene.picked) {
        scene.picked.box = scene.picked.index >= 0 && w ? pickedBox(g, w, scene.picked) : null;
    }
    drawSelection(ctx, g, scene.selection, scene.picked);
    ctx.restore();
    drawLabels(ctx, g);
    return w ? w.n : 0;
}

function sameItem(w, i, p)
{
    return w.kind[i] === p.kindCode && w.timeline[i] === p.timeline && w.category[i] === p.category &&
           w.start[i] === p.start && w.end[i] === p.end && w.depth[i] === p.depth;
}

/** What outlines picked item i: its rectangle, an arrow's line, or a counter sample's step. */
function pickedShape(g, w, i)
{
    if (isStateLike(w, i)) {
        return itemRect(g, w, i);
    }
    if (isArrowLike(w, i)) {
        const line = arrowLine(g, w, i);
        return line && {line};
    }
    const r = g.rows.rowOf[w.timeline[i]];
    const at = counterTime(w, i);
    if (at !== null) {
        return r >= 0 && g.visible(r) ? {x: g.x(at) - 2, y: g.rowTop(r) + 2, w: 4, h: g.rowHeight(r) - 4} : null;
    }
    return eventTick(g, w, i);
}

function pickedBox(g, w, p)
{
    for (let i = 0; i < w.n; i++) {
        if (sameItem(w, i, p)) {
            return pickedShape(g, w, i);
        }
    }
    return null;
}

/**
 * The item under (x, y): a state or run rectangle containing the point,
 * else the nearest event tick within 3 pixels, else the nearest arrow line
 * within 3 pixels, else the counter sample in force there (in a row that
 * draws counters), else the state preview drawn there.  -1: none.
 */
export function pick(g, w, palette, x, y)
{
    if (!w || x < g.plotX) {
        return -1;
    }
    for (const hitTest of [pickDrawable, pickArrow, pickCounter, previewAt]) {
        const hit = hitTest(g, w, palette, x, y);
        if (hit >= 0) {
            return hit;
        }
    }
    return -1;
}

/** The line arrow item i is drawn as, or null when neither end's row is on screen. */
export function arrowLine(g, w, i)
{
    const r0 = g.rows.rowOf[w.timeline[i]];
    const r1 = g.rows.rowOf[w.timelineTo[i]];
    if (r0 < 0 || r1 < 0 || (!g.visible(r0) && !g.visible(r1))) {
        return null;
    }
    return {x0: g.x(w.start[i]), y0: g.rowMid(r0), x1: g.x(w.end[i]), y1: g.rowMid(r1)};
}

/** Distance in pixels from (x, y) to the segment @p l. */
export function distanceToLine(l, x, y)
{
    const dx = l.x1 - l.x0;
    const dy = l.y1 - l.y0;
    const len2 = dx * dx + dy * dy;
    const k = len2 > 0 ? Math.min(1, Math.max(0, ((x - l.x0) * dx + (y - l.y0) * dy) / len2)) : 0;
    return Math.hypot(x - (l.x0 + k * dx), y - (l.y0 + k * dy));
}

function pickArrow(g, w, palette, x, y)
{
    let best = -1;
    let bestDist = 4;
    for (let i = 0; i < w.n; i++) {
        if (!isArrowLike(w, i) || !palette.visible(w.category[i])) {
            continue;
        }
        const l = arrowLine(g, w, i);
        const d = l ? distanceToLine(l, x, y) : Infinity;
        if (d < bestDist) {
            best = i;
            bestDist = d;
        }
    }
    return best;
}

/** When a counter item's value starts to hold (a run's value is its last sample's). */
function counterTime(w, i)
{
    if (w.kind[i] === KIND.COUNTER) {
        return w.start[i];
    }
    return w.kind[i] === KIND.RUN && w.of[i] === KIND.COUNTER ? w.end[i] : null;
}

/** The counter sample (or run) of the row under (x, y) whose value holds at x: the last one at or before it. */
function pickCounter(g, w, palette, x, y)
{
    const r = g.rows.rowAt(y + g.scrollTop);
    const t = g.time(x);
    if (!g.visible(r) || t > (g.rows.duration ?? g.t1)) {
        return -1;
    }
    let best = -1;
    for (let i = 0; i < w.n; i++) {
        const at = counterTime(w, i);
        if (at !== null && at <= t && g.rows.rowOf[w.timeline[i]] === r && palette.visible(w.category[i]) &&
            (best < 0 || at > counterTime(w, best))) {
            best = i;
        }
    }
    return best;
}

function pickDrawable(g, w, palette, x, y)
{
    let best = -1;
    let bestDist = 4;
    for (let i = 0; i < w.n; i++) {
        if (!palette.visible(w.category[i])) {
            continue;
        }
        if (isStateLike(w, i)) {
            const b = itemRect(g, w, i);
            if (b && x >= b.x - 0.5 && x <= b.x + b.w + 0.5 && y >= b.y && y <= b.y + b.h) {
                return i;
            }
        } else if (isEventLike(w, i)) {
            const b = eventTick(g, w, i);
            const d = b ? Math.abs(x - b.x - 1) : Infinity;
            if (b && y >= b.y && y <= b.y + b.h && d < bestDist) {
                best = i;
                bestDist = d;
            }
        }
    }
    return best;
}

/** A label-gutter click: the timeline whose expander was hit, or -1. */
export function pickExpander(g, x, y)
{
    if (x >= LABEL_WIDTH) {
        return -1;
    }
    const r = g.rows.rowAt(y + g.scrollTop);
    if (r >= g.rows.shown.length) {
        return -1;
    }
    const id = g.rows.shown[r];
    return g.rows.hasChildren(id) ? id : -1;
}
