// SPDX-License-Identifier: MIT
//
// render_density.js - the zoomed-out parts of a frame, SLOG-2 style:
// previews (exact per-category totals of a subtree, possibly folded over a
// group of timelines) become stacked stripes whose heights are each
// category's share of the box's time, per timeline of the group; event
// previews become density marks; counter samples, runs and previews become
// step charts per (row, category), each scaled to its own largest value.

import {KIND} from './api.js';
import {formatValue} from './format.js';
import {PIXEL_LAYER_MIN_RECTS, RectBatch} from './rect_batch.js';
import {ROW_PAD, TIMELINE_KIND_COUNTER} from './timeline_rows.js';

const FOLD_KEY = 2 ** 32;

const previewRects = new RectBatch(); // reused frame after frame

/** For every fold present, (fold, group row) -> the visible displayed rows it covers. */
function groupRowsOf(g, w)
{
    const folds = new Set();
    for (let i = 0; i < w.n; i++) {
        if (w.kind[i] === KIND.PREVIEW && w.depth[i] > 0) {
            folds.add(w.depth[i]);
        }
    }
    const map = new Map();
    if (folds.size === 0) {
        return map;
    }
    for (let r = g.first; r < g.last; r++) {
        const id = g.rows.shown[r];
        const members = [id];
        if (!g.rows.expanded[id] && g.rows.hasChildren(id) && g.rows.subtreeSize[id] <= 512) {
            g.rows.collectDescendants(id, members);
        }
        for (const f of folds) {
            for (const t of members) {
                const key = f * FOLD_KEY + g.rows.foldRow(t, f);
                const list = map.get(key) || [];
                if (list[list.length - 1] !== r) {
                    list.push(r);
                }
                map.set(key, list);
            }
        }
    }
    return map;
}

function rowsOfPreview(g, w, i, groups)
{
    const fold = w.depth[i];
    if (fold === 0) {
        const r = g.rows.rowOf[w.timeline[i]];
        return r >= 0 && g.visible(r) ? [r] : [];
    }
    return groups.get(fold * FOLD_KEY + w.timeline[i]) || [];
}

/**
 * Number the state-preview boxes (fold, group, start, end) and sum each
 * box's inclusive time: box[i] is item i's box, total[box] its sum.  The
 * server answers a box's categories one after another, so a box is looked
 * up (by its start, then the rest) only where it changes.
 */
function previewBoxes(w)
{
    const byStart = new Map(); // start -> the first item of each box starting there
    const box = new Int32Array(w.n).fill(-1);
    const total = [];
    let last = -1;
    for (let i = 0; i < w.n; i++) {
        if (w.kind[i] !== KIND.PREVIEW || w.of[i] !== KIND.STATE) {
            continue;
        }
        let b = last >= 0 && sameBox(w, last, i) ? box[last] : -1;
        if (b < 0) {
            const firsts = byStart.get(w.start[i]) || [];
            const same = firsts.find((f) => sameBox(w, f, i));
            if (same === undefined) {
                b = total.length;
                firsts.push(i);
                byStart.set(w.start[i], firsts);
                total.push(0);
            } else {
                b = box[same];
            }
        }
        box[i] = b;
        total[b] += w.inclusive[i];
        last = i;
    }
    return {box, total};
}

function sameBox(w, i, j)
{
    return w.depth[i] === w.depth[j] && w.timeline[i] === w.timeline[j] && w.start[i] === w.start[j] &&
           w.end[i] === w.end[j];
}

/** The time a state preview's box can hold: its length times the timelines of its group. */
function boxCapacity(g, w, i)
{
    return Math.max(1, w.end[i] - w.start[i]) * (w.depth[i] === 0 ? 1 : g.rows.groupSize(w.depth[i], w.timeline[i]));
}

/** The Path2D of @p key in map @p paths (one fill per colour), made on first use. */
export function pathFor(paths, key)
{
    let p = paths.get(key);
    if (!p) {
        p = new Path2D();
        paths.set(key, p);
    }
    return p;
}

/**
 * Rows drawn alike by folded previews: wholly on screen, the same band
 * height, the same groups, no preview of their own.  Returns each visible
 * row's representative (indexed by row - g.first): the first row of its
 * kind, or the row itself.
 */
function rowClasses(g, w, groups)
{
    const own = new Set();
    for (let i = 0; i < w.n; i++) {
        if (w.kind[i] === KIND.PREVIEW && w.depth[i] === 0) {
            own.add(g.rows.rowOf[w.timeline[i]]);
        }
    }
    const keysOf = new Map();
    for (const [key, rows] of groups) {
        for (const r of rows) {
            const keys = keysOf.get(r) || [];
            keys.push(key);
            keysOf.set(r, keys);
        }
    }
    const rep = new Int32Array(Math.max(0, g.last - g.first));
    const firstOf = new Map();
    for (let r = g.first; r < g.last; r++) {
        const top = g.rowTop(r);
        const h = g.rowHeight(r);
        const keys = keysOf.get(r);
        rep[r - g.first] = r;
        if (keys && !own.has(r) && top >= 0 && top + h <= g.height) {
            const kind = `${h}|${keys.join(',')}`;
            const first = firstOf.get(kind);
            if (first === undefined) {
                firstOf.set(kind, r);
            } else {
                rep[r - g.first] = first;
            }
        }
    }
    return rep;
}

/** Rectangles the previews would take drawn row by row. */
function previewRectCount(g, w, groups)
{
    let n = 0;
    for (let i = 0; i < w.n; i++) {
        if (w.kind[i] === KIND.PREVIEW) {
            n += w.depth[i] === 0 ? 1 : (groups.get(w.depth[i] * FOLD_KEY + w.timeline[i]) || []).length;
        }
    }
    return n;
}

/**
 * State previews as stacked stripes (each category's share of the box's
 * time per timeline of its group, from the row's bottom up), event
 * previews as density marks along the row's top.  When there are many, a
 * folded preview is drawn only in the first of the rows drawn alike
 * (rowClasses), and the others are copies of it (@p copyRows false: drawn
 * row by row, for tests).  Returns the number of rows copied.
 */
export function drawPreviews(ctx, g, w, palette, copyRows = true)
{
    const groups = groupRowsOf(g, w);
    const boxes = previewBoxes(w);
    const many = previewRectCount(g, w, groups) >= PIXEL_LAYER_MIN_RECTS;
    const rep = many && copyRows ? rowClasses(g, w, groups) : null;
    const scene = {g, w, palette, groups, boxes, rep, rects: previewRects, bands: [], one: [0],
                   below: new Float64Array(boxes.total.length)}; // share of each box's band already stacked
    scene.rects.reset();
    for (let i = 0; i < w.n;) {
        i = w.kind[i] === KIND.PREVIEW ? drawBox(scene, i) : i + 1;
    }
    let copied = 0;
    for (let r = g.first; rep !== null && r < g.last; r++) {
        if (rep[r - g.first] !== r) {
            scene.rects.copy(g.rowTop(rep[r - g.first]), g.rowTop(r), g.rowHeight(r));
            copied++;
        }
    }
    scene.rects.fill(ctx, palette);
    return copied;
}

/** Do previews @p i and @p j share their box and rows? */
function sameStripe(w, i, j)
{
    return w.kind[j] === KIND.PREVIEW && w.of[j] === w.of[i] && sameBox(w, i, j);
}

/**
 * The previews from @p i on that share its box (one after another, as the
 * server answers them): x, rows and capacity once, then each visible
 * category's rectangle in every row drawn.  Returns the item after them.
 */
function drawBox(scene, i)
{
    const {g, w, palette, rep, bands} = scene;
    let end = i + 1;
    while (end < w.n && sameStripe(w, i, end)) {
        end++;
    }
    const state = w.of[i] === KIND.STATE;
    if (!state && w.of[i] !== KIND.EVENT) {
        return end; // counter previews are drawn by drawCounters
    }
    const x0 = Math.max(g.plotX - 1, g.x(w.start[i]));
    const x1 = Math.max(x0 + 1, Math.min(g.width + 1, g.x(w.end[i])));
    bands.length = 0; // [top, band height] of each row drawn
    for (const r of w.depth[i] === 0 ? visibleRowOf(g, w.timeline[i], scene.one) : rowsOfPreview(g, w, i, scene.groups)) {
        if (rep === null || rep[r - g.first] === r) { // else copied from its representative
            bands.push(g.rowTop(r), g.rowHeight(r) - 2 * ROW_PAD);
        }
    }
    const capacity = state ? boxCapacity(g, w, i) : 0;
    for (let k = i; k < end; k++) {
        if (!palette.visible(w.category[k])) {
            continue;
        }
        const list = scene.rects.list(w.category[k]);
        if (!state) { // events: density marks along the row's top
            for (let b = 0; b < bands.length; b += 2) {
                RectBatch.push(list, x0, bands[b] + 1, x1, bands[b] + 4);
            }
            continue;
        }
        const box = scene.boxes.box[k]; // a box's items share its rows: one stack per box
        const under = scene.below[box];
        const share = w.inclusive[k] / Math.max(capacity, scene.boxes.total[box]);
        scene.below[box] += share;
        for (let b = 0; b < bands.length; b += 2) {
            const bandH = bands[b + 1];
            const bottom = bands[b] + ROW_PAD + bandH * (1 - under);
            RectBatch.push(list, x0, bottom - bandH * share, x1, bottom);
        }
    }
    return end;
}

/** The visible row of timeline @p id in @p out (reused), or no row. */
function visibleRowOf(g, id, out)
{
    const r = g.rows.rowOf[id];
    out[0] = r;
    return r >= 0 && g.visible(r) ? out : [];
}

function counterPoint(w, i)
{
    if (w.kind[i] === KIND.COUNTER) {
        return w.start[i];
    }
    if ((w.kind[i] === KIND.RUN || w.kind[i] === KIND.PREVIEW) && w.of[i] === KIND.COUNTER) {
        return w.end[i]; // value is the last sample's (vlast)
    }
    return null;
}

function collectSeries(g, w, palette)
{
    const series = new Map();
    for (let i = 0; i < w.n; i++) {
        const t = counterPoint(w, i);
        if (t === null || !palette.visible(w.category[i]) || w.kind[i] === KIND.PREVIEW &&
            w.depth[i] !== 0) {
            continue;
        }
        const r = g.rows.rowOf[w.timeline[i]];
        if (r < 0 || !g.visible(r)) {
            continue;
        }
        const key = `${r}:${w.category[i]}`;
        let s = series.get(key);
        if (!s) {
            s = {row: r, category: w.category[i], points: []};
            series.set(key, s);
        }
        s.points.push([t, w.value[i]]);
    }
    return series;
}

/**
 * Counters as step charts, each series (row, category) scaled to its own
 * largest value in view, so that a small series sharing a row with a large
 * one stays visible.  A counter track's series is an area chart, elsewhere
 * only the line; a row with several series labels each with its name and
 * largest value (the top of its scale).
 */
export function drawCounters(ctx, g, w, palette)
{
    const seriesOfRow = new Map();
    for (const s of collectSeries(g, w, palette).values()) {
        s.points.sort((a, b) => a[0] - b[0]);
        s.max = s.points.reduce((acc, p) => Math.max(acc, Math.abs(p[1])), 0);
        const list = seriesOfRow.get(s.row) || [];
        list.push(s);
        seriesOfRow.set(s.row, list);
    }
    for (const list of seriesOfRow.values()) {
        for (const s of list) {
            drawSeries(ctx, g, palette, s);
        }
        if (list.length > 1) {
            labelSeries(ctx, g, palette, list);
        }
    }
}

/** One series as a step chart from its row's bottom, its largest value at the band's top. */
function drawSeries(ctx, g, palette, s)
{
    const bandH = g.rowHeight(s.row) - 2 * ROW_PAD;
    const base = g.rowTop(s.row) + ROW_PAD + bandH;
    const k = bandH / (s.max || 1);
    const p = new Path2D();
    p.moveTo(g.x(s.points[0][0]), base);
    let y = base;
    for (const [t, v] of s.points) {
        const x = g.x(t);
        p.lineTo(x, y);
        y = base - Math.abs(v) * k;
        p.lineTo(x, y);
    }
    const end = Math.min(g.width, g.x(g.rows.duration ?? g.t1));
    p.lineTo(end, y);
    p.lineTo(end, base);
    if (g.rows.kind[g.rows.shown[s.row]] === TIMELINE_KIND_COUNTER) {
        ctx.globalAlpha = 0.45; // a counter track: area chart; elsewhere only the line
        ctx.fillStyle = palette.style(s.category);
        ctx.fill(p);
        ctx.globalAlpha = 1;
    }
    ctx.strokeStyle = palette.style(s.category);
    ctx.stroke(p);
}

const SERIES_LABEL_HEIGHT = 10; // px per label line

/** "name ≤ max" per series of a shared row, top down at the plot's left, as many as fit. */
function labelSeries(ctx, g, palette, list)
{
    const top = g.rowTop(list[0].row) + ROW_PAD;
    const fits = Math.max(1, Math.floor((g.rowHeight(list[0].row) - 2 * ROW_PAD) / SERIES_LABEL_HEIGHT));
    ctx.font = '9px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    list.slice(0, fits).forEach((s, j) => {
        const y = top + j * SERIES_LABEL_HEIGHT;
        ctx.fillStyle = palette.style(s.category);
        ctx.fillRect(g.plotX + 2, y + 1, 7, 7);
        ctx.fillStyle = '#333';
        ctx.fillText(`${palette.name(s.category)} \u2264 ${formatValue(s.max)}`, g.plotX + 11, y);
    });
}

/** The state preview drawn under (x, y), or -1: the first whose box and row contain it. */
export function previewAt(g, w, palette, x, y)
{
    const r = g.rows.rowAt(y + g.scrollTop);
    if (!g.visible(r)) {
        return -1;
    }
    const groups = groupRowsOf(g, w);
    const t = g.time(x);
    for (let i = 0; i < w.n; i++) {
        if (w.kind[i] === KIND.PREVIEW && w.of[i] === KIND.STATE && palette.visible(w.category[i]) &&
            w.start[i] <= t && t < w.end[i] && rowsOfPreview(g, w, i, groups).includes(r)) {
            return i;
        }
    }
    return -1;
}
