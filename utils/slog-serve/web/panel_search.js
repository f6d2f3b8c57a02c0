// SPDX-License-Identifier: MIT
//
// panel_search.js - search in place: find the next or previous state of a
// category from the picked drawable (or the window's edge) with /api/find,
// and list the N longest states of a category in the window or the whole
// trace with /api/top.  A hit is shown by the viewer (focusItem): the window
// moves to it, it is picked and its args appear.

import {getJson} from './api.js';
import {element, table} from './dom.js';
import {formatTicks} from './format.js';

export class SearchPanel {
    constructor(root, viewer)
    {
        this.root = root;
        this.viewer = viewer;
        const states = viewer.palette.categories.filter((c) => c.kind === 'state');
        this.category = element('select', {id: 'search-category'}, states.map(
            (c) => element('option', {value: c.id, textContent: c.name})));
        const prev = element('button', {textContent: '\u25c0 previous', id: 'find-prev'});
        const next = element('button', {textContent: 'next \u25b6', id: 'find-next'});
        prev.onclick = () => this.find('before');
        next.onclick = () => this.find('after');
        this.n = element('input', {type: 'number', value: 10, min: 1, max: 1000, id: 'top-n'});
        this.inView = element('input', {type: 'checkbox', checked: true, id: 'top-in-view'});
        const top = element('button', {textContent: 'longest', id: 'top-run'});
        top.onclick = () => this.top();
        this.status = element('span', {className: 'hint', id: 'search-status'});
        this.results = element('div', {id: 'top-results'});
        root.replaceChildren(
            element('div', {className: 'panel-controls'}, [element('span', {textContent: 'category '}),
                this.category, prev, next, element('span', {textContent: ' \u2022 '}), this.n, top,
                element('label', {}, [this.inView, document.createTextNode(' in view only')]), this.status]),
            this.results);
    }

    /** Preselect the category of a picked drawable. */
    setCategory(id)
    {
        if ([...this.category.options].some((o) => Number(o.value) === id)) {
            this.category.value = String(id);
        }
    }

    async find(direction)
    {
        const v = this.viewer;
        const cat = Number(this.category.value);
        const p = v.picked;
        const from = direction === 'after'
            ? (p && p.category === cat ? p.start : Math.floor(v.view.t0) - 1)
            : (p && p.category === cat ? p.start : Math.ceil(v.view.t1));
        this.status.textContent = 'searching\u2026';
        try {
            const answer = await getJson('find', {f: v.f, cat, [direction]: from});
            this.status.textContent = answer.found ? '' : `no ${v.palette.name(cat)} ${direction} this point`;
            if (answer.found) {
                v.focusItem(answer.item);
            }
        } catch (e) {
            this.status.textContent = e.message;
        }
    }

    async top()
    {
        const v = this.viewer;
        const cat = Number(this.category.value);
        const params = {f: v.f, cat, n: Math.min(1000, Math.max(1, Number(this.n.value) || 10))};
        if (this.inView.checked) {
            params.t0 = Math.max(0, Math.floor(v.view.t0));
            params.t1 = Math.ceil(v.view.t1);
        }
        this.status.textContent = 'searching\u2026';
        try {
            const answer = await getJson('top', params);
            this.status.textContent = '';
            this.showTop(answer.items || []);
        } catch (e) {
            this.status.textContent = e.message;
        }
    }

    showTop(items)
    {
        const tps = this.viewer.info.ticks_per_second;
        const t = table(['#', 'duration', 'start', 'timeline'], items.map((it, k) => [
            String(k + 1), formatTicks(it.end - it.start, tps), formatTicks(it.start, tps, 8),
            this.viewer.rows.path(it.timeline)]), {id: 'top-table', className: 'clickable'});
        t.querySelectorAll('tbody tr').forEach((tr, k) => {
            tr.onclick = () => this.viewer.focusItem(items[k]);
        });
        this.results.replaceChildren(items.length ? t : element('p', {textContent: 'none'}));
    }
}
