// SPDX-License-Identifier: MIT
//
// panel_stats.js - statistics of the selected range from /api/stats (the
// numbers of `slog-query --stats`): count, inclusive and exclusive time,
// shortest, longest and mean, per category, per timeline or both; every
// column sorts on a click of its header (again: the other way).  A row's
// kind says what its columns hold: states times; counters their smallest,
// largest and mean value (vmin, vmax, mean); arrows "-" for every time, as
// slog-query prints, since the library does not time arrows; events the
// count alone.

import {getJson} from './api.js';
import {element} from './dom.js';
import {formatCount, formatTicks, formatValue} from './format.js';

const COLUMNS = [
    ['category', 'category', 'text'], ['timeline', 'timeline', 'text'], ['count', 'count', 'count'],
    ['inclusive', 'inclusive', 'time'], ['exclusive', 'exclusive', 'time'],
    ['min', 'min', 'time'], ['max', 'max', 'time'], ['mean', 'mean', 'time'],
];

/** Where a counter row keeps what a column shows (its values are not times). */
const COUNTER_FIELDS = new Map([['min', 'vmin'], ['max', 'vmax'], ['mean', 'mean']]);
const TIME_COLUMNS = new Set(COLUMNS.filter((c) => c[2] === 'time').map((c) => c[1]));

/** What row @p row holds for column @p key: a number, '-' (not measured) or undefined (not applicable). */
export function statValue(row, key)
{
    if (row.kind === 'counter' && TIME_COLUMNS.has(key)) {
        return COUNTER_FIELDS.has(key) ? row[COUNTER_FIELDS.get(key)] : undefined;
    }
    if (row.kind === 'arrow' && TIME_COLUMNS.has(key)) {
        return '-';
    }
    return row[key];
}

export class StatsPanel {
    constructor(root, viewer)
    {
        this.root = root;
        this.viewer = viewer;
        this.by = 'category';
        this.sort = {key: 'inclusive', descending: true};
        this.answer = null;
        this.request = null;
        this.root.replaceChildren(element('p', {className: 'hint',
            textContent: 'Select a range (Shift+drag, or drag on the ruler) to see its statistics.'}));
    }

    async show(selection)
    {
        if (this.request) {
            this.request.abort();
        }
        this.selection = selection;
        delete this.root.dataset.loaded;
        if (!selection) {
            return;
        }
        this.request = new AbortController();
        try {
            this.answer = await getJson('stats', {f: this.viewer.f, t0: selection.t0, t1: selection.t1,
                                                  by: this.by, cats: this.viewer.palette.queryFilter()},
                                        this.request.signal);
            this.render();
            this.root.dataset.loaded = 'true';
        } catch (e) {
            if (e.name !== 'AbortError') {
                this.root.replaceChildren(element('p', {className: 'error', textContent: e.message}));
            }
        }
    }

    cell(row, key, type)
    {
        const v = this.viewer;
        if (key === 'category') {
            return row.category === undefined || row.category === null ? '' : v.palette.name(row.category);
        }
        if (key === 'timeline') {
            return row.timeline === undefined || row.timeline === null ? '' : v.rows.path(row.timeline);
        }
        const x = statValue(row, key);
        if (x === undefined || x === null || x === '-') {
            return x ?? '';
        }
        if (row.kind === 'counter' && type === 'time') {
            return formatValue(x);
        }
        return type === 'time' ? formatTicks(x, v.info.ticks_per_second) : formatCount(x);
    }

    sortedRows(columns)
    {
        const {key, descending} = this.sort;
        const type = (columns.find((c) => c[1] === key) || [0, 0, 'count'])[2];
        const number = (r) => {
            const x = statValue(r, key);
            return typeof x === 'number' ? x : -Infinity;
        };
        const value = (r) => (type === 'text' ? this.cell(r, key, type) : number(r));
        const rows = this.answer.rows.slice();
        rows.sort((a, b) => {
            const x = value(a);
            const y = value(b);
            const c = x < y ? -1 : x > y ? 1 : 0;
            return descending ? -c : c;
        });
        return rows;
    }

    controls()
    {
        const by = element('select', {id: 'stats-by'}, ['category', 'timeline', 'both'].map(
            (b) => element('option', {value: b, textContent: `per ${b}`, selected: b === this.by})));
        by.onchange = () => {
            this.by = by.value;
            this.show(this.selection);
        };
        const tps = this.viewer.info.ticks_per_second;
        const s = this.selection;
        const span = `${formatTicks(s.t0, tps, 6)} \u2013 ${formatTicks(s.t1, tps, 6)} ` +
                     `(${formatTicks(s.t1 - s.t0, tps)})${this.answer.exact === false ? ', approximate' : ''}`;
        return element('div', {className: 'panel-controls'}, [by, element('span', {textContent: span})]);
    }

    render()
    {
        const columns = COLUMNS.filter(([, key]) => this.by === 'both' ||
                                       (key !== 'timeline' || this.by === 'timeline') &&
                                       (key !== 'category' || this.by === 'category'));
        const head = element('tr', {}, columns.map(([label, key]) => {
            const arrow = this.sort.key === key ? (this.sort.descending ? ' \u25be' : ' \u25b4') : '';
            const th = element('th', {textContent: label + arrow});
            th.dataset.key = key;
            th.onclick = () => {
                this.sort = {key, descending: this.sort.key === key ? !this.sort.descending : key !== 'category' && key !== 'timeline'};
                this.render();
            };
            return th;
        }));
        const body = this.sortedRows(columns).map((r) => {
            const tr = element('tr', {}, columns.map(([, key, type]) => element('td', {textContent: this.cell(r, key, type)})));
            tr.dataset.category = r.category ?? '';
            tr.dataset.timeline = r.timeline ?? '';
            tr.dataset.count = r.count;
            tr.dataset.kind = r.kind;
            tr.dataset.inclusive = r.inclusive ?? '';
            tr.dataset.exclusive = r.exclusive ?? '';
            return tr;
        });
        const t = element('table', {id: 'stats-table', className: 'sortable'},
                          [element('thead', {}, [head]), element('tbody', {}, body)]);
        this.root.replaceChildren(this.controls(), t);
    }
}
