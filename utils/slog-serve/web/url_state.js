// SPDX-License-Identifier: MIT
//
// url_state.js - the view as a URL fragment, so that a link reopens the same
// view: file, window, expanded rows, hidden categories, vertical scroll,
// selected range and picked drawable.  Times are integer ticks relative to
// the file's start, as in the API.  Parsing never throws: a damaged or
// foreign fragment yields only the fields it spells correctly.
//
//   #f=0&t=T0,T1&x=3,7-9&hide=2,5&y=120&sel=S0,S1&pick=KIND,TL,CAT,START,END,DEPTH[,TO]
//
// TO, an arrow's destination timeline, is written for arrows only; a pick
// without it (older links) has its destination unknown (timelineTo absent).

import {formatIdList, parseIdList} from './format.js';

function ints(text, n)
{
    const parts = (text || '').split(',');
    if (parts.length !== n || !parts.every((p) => /^-?\d+$/.test(p))) {
        return null;
    }
    return parts.map(Number);
}

/** Fragment text (with or without '#') to a partial state object. */
export function decodeUrlState(hash)
{
    const params = new URLSearchParams((hash || '').replace(/^#/, ''));
    const state = {};
    const f = ints(params.get('f'), 1);
    if (f && f[0] >= 0) {
        state.f = f[0];
    }
    const t = ints(params.get('t'), 2);
    if (t && t[1] > t[0]) {
        state.view = {t0: t[0], t1: t[1]};
    }
    if (params.has('x')) {
        state.expanded = parseIdList(params.get('x'));
    }
    if (params.has('hide')) {
        state.hidden = parseIdList(params.get('hide'));
    }
    const y = ints(params.get('y'), 1);
    if (y && y[0] >= 0) {
        state.scrollTop = y[0];
    }
    const sel = ints(params.get('sel'), 2);
    if (sel && sel[1] > sel[0]) {
        state.selection = {t0: sel[0], t1: sel[1]};
    }
    const pick = ints(params.get('pick'), 7) || ints(params.get('pick'), 6);
    if (pick) {
        const [kind, timeline, category, start, end, depth, timelineTo] = pick;
        state.pick = {kind, timeline, category, start, end, depth};
        if (timelineTo !== undefined && timelineTo >= 0) {
            state.pick.timelineTo = timelineTo;
        }
    }
    return state;
}

/** State to fragment text (with '#'); integer times only. */
export function encodeUrlState(s)
{
    const parts = [`f=${s.f}`, `t=${Math.floor(s.view.t0)},${Math.ceil(s.view.t1)}`];
    if (s.expanded) {
        parts.push(`x=${formatIdList(s.expanded)}`);
    }
    if (s.hidden && s.hidden.length) {
        parts.push(`hide=${formatIdList(s.hidden)}`);
    }
    if (s.scrollTop > 0) {
        parts.push(`y=${Math.round(s.scrollTop)}`);
    }
    if (s.selection) {
        parts.push(`sel=${Math.round(s.selection.t0)},${Math.round(s.selection.t1)}`);
    }
    if (s.pick) {
        const p = s.pick;
        const fields = [p.kind, p.timeline, p.category, p.start, p.end, p.depth];
        if (p.timelineTo !== undefined) {
            fields.push(p.timelineTo);
        }
        parts.push(`pick=${fields.join(',')}`);
    }
    return '#' + parts.join('&');
}
