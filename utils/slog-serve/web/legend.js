// SPDX-License-Identifier: MIT
//
// legend.js - the category legend beside the timeline: every category with
// its colour swatch as drawn (outlined, so a light one shows; the title
// says when a too light colour is drawn darker), kind and a show/hide checkbox, a search box that
// filters the list by name or group, and buttons to show or hide all the
// listed ones at once.  It edits the palette's hidden set; the viewer
// redraws and re-queries when the palette says it changed.

import {element} from './dom.js';

export class Legend {
    /** @param root  the legend's container; @param palette  the Palette */
    constructor(root, palette)
    {
        this.palette = palette;
        this.search = element('input', {type: 'search', placeholder: 'search categories',
                                        id: 'legend-search'});
        this.list = element('ul', {id: 'legend-list'});
        const showAll = element('button', {textContent: 'show all', id: 'legend-show-all'});
        const hideAll = element('button', {textContent: 'hide all', id: 'legend-hide-all'});
        showAll.onclick = () => this.setListed(false);
        hideAll.onclick = () => this.setListed(true);
        root.replaceChildren(element('h3', {textContent: 'Categories'}), this.search,
                             element('div', {className: 'legend-buttons'}, [showAll, hideAll]),
                             this.list);
        this.search.addEventListener('input', () => this.fill());
        palette.onChange(() => this.sync());
        this.fill();
    }

    /** Hide (or show) every category the search currently lists. */
    setListed(hide)
    {
        const listed = new Set(this.listed().map((c) => c.id));
        const hidden = new Set(this.palette.hidden);
        for (const id of listed) {
            if (hide) {
                hidden.add(id);
            } else {
                hidden.delete(id);
            }
        }
        this.palette.setHidden(hidden);
    }

    listed()
    {
        const q = this.search.value.trim().toLowerCase();
        return this.palette.categories.filter(
            (c) => !q || c.name.toLowerCase().includes(q) || (c.group || '').toLowerCase().includes(q));
    }

    fill()
    {
        const items = this.listed().map((c) => {
            const box = element('input', {type: 'checkbox', checked: this.palette.visible(c.id)});
            box.dataset.category = c.id;
            box.onchange = () => {
                this.palette.toggle(c.id);
                box.blur(); // W/A/S/D go back to the timeline
            };
            const swatch = element('span', {className: 'swatch'});
            swatch.style.background = this.palette.style(c.id);
            const drawn = c.darkened ? `; drawn darker than the file's ${c.rgba}, too light for the rows` : '';
            const label = element('label', {title: `${c.name} (${c.kind}${c.group ? ', ' + c.group : ''}${drawn})`},
                                  [box, swatch, element('span', {textContent: c.name, className: 'name'}),
                                   element('span', {textContent: c.kind, className: 'kind'})]);
            return element('li', {}, [label]);
        });
        this.list.replaceChildren(...items);
    }

    sync()
    {
        for (const box of this.list.querySelectorAll('input[type=checkbox]')) {
            box.checked = this.palette.visible(Number(box.dataset.category));
        }
    }
}
