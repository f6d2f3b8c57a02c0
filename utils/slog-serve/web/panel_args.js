// SPDX-License-Identifier: MIT
//
// panel_args.js - the "Selected" panel: what was clicked.  A drawable shows
// its category, timeline path, exact start, end and duration and its args,
// fetched on demand from /api/args (drawing never carries args); a preview
// or pixel run shows its exact summary (count, time, span) instead.

import {getJson, KIND, KIND_NAMES} from './api.js';
import {element, table} from './dom.js';
import {formatCount, formatExact} from './format.js';

function argValue(v)
{
    return typeof v === 'string' ? v : JSON.stringify(v);
}

export class ArgsPanel {
    /** @param root  container; @param viewer  for names, clock and file id */
    constructor(root, viewer)
    {
        this.root = root;
        this.viewer = viewer;
        this.request = null;
        this.clear();
    }

    clear()
    {
        this.root.replaceChildren(element('p', {className: 'hint',
            textContent: 'Click a drawable to see its args; Shift+drag or drag on the ruler to select a range.'}));
    }

    fields(p)
    {
        const v = this.viewer;
        const tps = v.info.ticks_per_second;
        const rows = [['kind', p.kindCode === KIND.RUN || p.kindCode === KIND.PREVIEW
                                   ? `${KIND_NAMES[p.kindCode]} of ${KIND_NAMES[p.of]}` : KIND_NAMES[p.kindCode]],
                      ['category', v.palette.name(p.category)],
                      ['timeline', v.rows.path(p.timeline)]];
        if (p.kindCode === KIND.ARROW) {
            rows.push(['to timeline', p.timelineTo === undefined ? '(not known yet: shown when the arrow is in view)'
                                                               : v.rows.path(p.timelineTo)]);
        }
        rows.push(['start', formatExact(p.start, tps)]);
        if (p.end !== p.start) {
            rows.push(['end', formatExact(p.end, tps)], ['duration', formatExact(p.end - p.start, tps)]);
        }
        if (p.kindCode === KIND.STATE) {
            rows.push(['depth', String(p.depth)]);
        }
        if (p.kindCode === KIND.RUN || p.kindCode === KIND.PREVIEW) {
            rows.push(['count', formatCount(p.count)], ['time inside', formatExact(p.inclusive, tps)]);
        }
        if (p.kindCode === KIND.COUNTER) {
            rows.push(['value', String(p.value)]);
        }
        return rows;
    }

    render(p, args, note)
    {
        const rows = this.fields(p).map(([k, v]) => [k, v]);
        const parts = [table(['field', 'value'], rows, {id: 'pick-fields'})];
        if (args) {
            const entries = Object.entries(args);
            const t = table(['arg', 'value'], entries.map(([k, v]) => [k, argValue(v)]), {id: 'pick-args'});
            t.querySelectorAll('tbody tr').forEach((tr, i) => {
                tr.dataset.key = entries[i][0];
            });
            parts.push(entries.length ? t : element('p', {textContent: 'no args', id: 'pick-args-none'}));
        }
        if (note) {
            parts.push(element('p', {className: 'hint', textContent: note}));
        }
        this.root.replaceChildren(...parts);
    }

    /** Show picked item @p p ({kindCode, of, timeline, category, start, end, depth, ...}). */
    async show(p)
    {
        if (this.request) {
            this.request.abort();
        }
        delete this.root.dataset.loaded;
        const real = p.kindCode <= KIND.COUNTER;
        this.render(p, null, real ? 'loading args\u2026' : 'a summary of several drawables: zoom in to see them');
        if (!real) {
            return;
        }
        this.request = new AbortController();
        try {
            const answer = await getJson('args', {f: this.viewer.f, kind: KIND_NAMES[p.kindCode],
                                                  timeline: p.timeline, category: p.category,
                                                  start: p.start, end: p.end, depth: p.depth},
                                         this.request.signal);
            this.render(p, answer.args || {}, null);
            this.root.dataset.loaded = 'true';
        } catch (e) {
            if (e.name !== 'AbortError') {
                this.render(p, null, String(e.message));
            }
        }
    }
}
