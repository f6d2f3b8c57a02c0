// SPDX-License-Identifier: MIT
//
// palette.js - category colours and visibility: the /api/categories list
// turned into fill styles the renderer uses as they are (one string and
// one packed RGBA number per category, built once), plus the set of hidden categories that the legend
// edits and the window query sends as its `cats` filter.  A colour too light
// to see on the white rows (MPE's #ffffff, made for Jumpshot's black
// background) is drawn darker, keeping its hue, until its luminance is at
// most DRAWN_MAX_LUMINANCE; every other colour is drawn as the file says.

import {CATEGORY_OTHER} from './api.js';
import {formatIdList, parseRgba} from './format.js';

const OTHER_STYLE = 'rgba(150,150,150,0.8)';
const OTHER_RGBA32 = packRgba32(150, 150, 150, 204);
/** Relative luminance above which a colour is too light for the rows (#ffffff and #f7f8fa: 1.0 and 0.94). */
export const DRAWN_MAX_LUMINANCE = 0.7;
/** Where a too light colour is darkened to: about #939393 for white. */
const DARKENED_LUMINANCE = 0.3;

/** WCAG relative luminance of sRGB bytes, 0 (black) to 1 (white). */
export function luminance(r, g, b)
{
    const linear = (c) => {
        const x = c / 255;
        return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** @p rgb as drawn on the light rows: unchanged unless too light, then scaled darker (same hue). */
export function drawnRgb(rgb)
{
    const l = luminance(...rgb);
    if (l <= DRAWN_MAX_LUMINANCE) {
        return rgb;
    }
    const k = (DARKENED_LUMINANCE / l) ** (1 / 2.2); // sRGB bytes scale about as luminance^(1/2.2)
    return rgb.map((c) => Math.round(c * k));
}

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
            const [r0, g0, b0, a] = parseRgba(c.rgba);
            const [r, g, b] = drawnRgb([r0, g0, b0]);
            c.darkened = r !== r0 || g !== g0 || b !== b0;
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
