// SPDX-License-Identifier: MIT
//
// palette.js - category colours and visibility: the /api/categories list
// turned into fill styles the renderer uses as they are (one string and
// one packed RGBA number per category, built once), plus the set of hidden categories that the legend
// edits and the window query sends as its `cats` filter.

import {CATEGORY_OTHER} from './api.js';
import {formatIdList, parseRgba} from './format.js';

const OTHER_STYLE = 'rgba(150,150,150,0.8)';
const OTHER_RGBA32 = packRgba32(150, 150, 150, 204);

/** RGBA bytes as one number, in the byte order of ImageData on a little-endian machine. */
function packRgba32(r, g, b, a)
{
    return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

export class Palette {
    /** @param categories  the /api/categories array */
    constructor(categories)
    {
        this.categories = categories;
        this.byId = new Map(categories.map((c) => [c.id, c]));
        this.fill = new Map();
        this.fill32 = new Map();
        for (const c of categories) {
            const [r, g, b, a] = parseRgba(c.rgba);
            c.rgbaBytes = [r, g, b, Math.round(a * 255)];
            this.fill.set(c.id, `rgba(${r},${g},${b},${a})`);
            this.fill32.set(c.id, packRgba32(...c.rgbaBytes));
        }
        this.hidden = new Set();
        this.listeners = [];
    }

    style(id)
    {
        return id === CATEGORY_OTHER ? OTHER_STYLE : (this.fill.get(id) || OTHER_STYLE);
    }

    /** The same colour as style(), as ImageData's RGBA bytes in one number (rect_batch.js). */
    rgba32(id)
    {
        return this.fill32.get(id) ?? OTHER_RGBA32;
    }

    /** Label colour that reads on category @p id's fill: white on dark, near-black on light. */
    textStyle(id)
    {
        const c = this.byId.get(id);
        if (!c) {
            return '#111';
        }
        const [r, g, b] = c.rgbaBytes;
        return 0.299 * r + 0.587 * g + 0.114 * b < 140 ? '#fff' : '#111';
    }

    name(id)
    {
        return id === CATEGORY_OTHER ? '(other)' : (this.byId.get(id)?.name ?? `#${id}`);
    }

    visible(id)
    {
        return !this.hidden.has(id);
    }

    setHidden(ids)
    {
        this.hidden = new Set(ids);
        this.listeners.forEach((f) => f());
    }

    toggle(id)
    {
        if (this.hidden.has(id)) {
            this.hidden.delete(id);
        } else {
            this.hidden.add(id);
        }
        this.listeners.forEach((f) => f());
    }

    onChange(f)
    {
        this.listeners.push(f);
    }

    /** The window query's `cats`: '' when all are shown, null when none is. */
    queryFilter()
    {
        if (this.hidden.size === 0) {
            return '';
        }
        const shown = this.categories.filter((c) => !this.hidden.has(c.id)).map((c) => c.id);
        return shown.length ? formatIdList(shown) : null; // null: nothing to ask for
    }
}
