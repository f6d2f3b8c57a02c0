// SPDX-License-Identifier: MIT
//
// format.js - how the viewer writes times, numbers and ids for people and
// for URLs.  Times in the API are integer ticks relative to the file's start
// (doc/VIEWER.md); formatTicks turns them into the shortest readable unit,
// parseIdList/formatIdList read and write the API's "0,3,7-12" id lists.
// No DOM, no state: every other module may import it.

// One formatter for every count: toLocaleString() builds a new one per call
// (about 0.1 ms each in Chromium, twice per frame in the status line).
const COUNT = new Intl.NumberFormat('en-US', {maximumFractionDigits: 0});

const UNITS = [
    [1e-9, 'ns'], [1e-6, 'us'], [1e-3, 'ms'], [1, 's'],
];

/** Seconds to "12.5 ms" with @p digits significant digits. */
export function formatSeconds(sec, digits = 4)
{
    const abs = Math.abs(sec);
    let unit = UNITS[0];
    for (const u of UNITS) {
        if (abs >= u[0]) {
            unit = u;
        }
    }
    const v = sec / unit[0];
    return `${Number(v.toPrecision(digits))} ${unit[1]}`;
}

/** Ticks (relative) to a readable duration, given the file's clock. */
export function formatTicks(ticks, ticksPerSecond, digits = 4)
{
    return formatSeconds(ticks / ticksPerSecond, digits);
}

/** Exact form of an integer tick count: "1234567 ticks (1.235 ms)". */
export function formatExact(ticks, ticksPerSecond)
{
    const unit = ticksPerSecond === 1e9 ? 'ns' : 'ticks';
    return `${COUNT.format(Math.round(ticks))} ${unit} (${formatTicks(ticks, ticksPerSecond)})`;
}

const VALUE = new Intl.NumberFormat('en-US', {maximumSignificantDigits: 6});

/** A measured value (a counter's): six significant digits, thousands separators. */
export function formatValue(x)
{
    return Math.abs(x) >= 1e15 || (x !== 0 && Math.abs(x) < 1e-4) ? x.toPrecision(6) : VALUE.format(x);
}

/**
 * A window's two ends, with digits enough that they differ (at least
 * @p digits): "104.141 ms" twice says nothing at the deepest zoom.
 */
export function formatWindow(t0, t1, ticksPerSecond, digits = 6)
{
    let d = digits;
    while (d < 17 && formatTicks(t0, ticksPerSecond, d) === formatTicks(t1, ticksPerSecond, d)) {
        d++;
    }
    return [formatTicks(t0, ticksPerSecond, d), formatTicks(t1, ticksPerSecond, d)];
}

/** A count with thousands separators. */
export function formatCount(n)
{
    return COUNT.format(Math.round(n));
}

/** Sorted unique non-negative integers to "0,3,7-12" (the API's list syntax). */
export function formatIdList(ids)
{
    const sorted = Array.from(ids).sort((a, b) => a - b);
    const parts = [];
    let i = 0;
    while (i < sorted.length) {
        let j = i;
        while (j + 1 < sorted.length && sorted[j + 1] <= sorted[j] + 1) {
            j++;
        }
        parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
        i = j + 1;
    }
    return parts.join(',');
}

/** "0,3,7-12" to an array of ids; bad parts are skipped. */
export function parseIdList(text)
{
    const ids = [];
    for (const part of (text || '').split(',')) {
        const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
        if (!m) {
            continue;
        }
        const a = Number(m[1]);
        const b = m[2] === undefined ? a : Number(m[2]);
        for (let k = a; k <= b && k - a < 1e6; k++) {
            ids.push(k);
        }
    }
    return ids;
}

/** "#rrggbbaa" to [r, g, b, a] with a in 0..1 (grey for anything else). */
export function parseRgba(text)
{
    const m = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(text || '');
    if (!m) {
        return [128, 128, 128, 1];
    }
    const v = parseInt(m[1], 16);
    const a = m[2] === undefined ? 255 : parseInt(m[2], 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255, a / 255];
}
