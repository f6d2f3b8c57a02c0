// SPDX-License-Identifier: MIT
//
// api.js - the viewer's only door to slog-serve (doc/VIEWER.md, "HTTP API").
// JSON endpoints come back as objects; the window query comes back in the
// binary column encoding and is wrapped, not parsed: each column is a typed
// array over the response buffer, so 10^5 items decode in well under a
// millisecond.  Every request can be cancelled with an AbortSignal.

export const KIND = Object.freeze({STATE: 0, EVENT: 1, ARROW: 2, COUNTER: 3, PREVIEW: 4, RUN: 5});
export const KIND_NAMES = ['state', 'event', 'arrow', 'counter', 'preview', 'run'];
export const CATEGORY_OTHER = 0xffffffff;

const HEADER_BYTES = 32;
const MAGIC = 0x31574c53; // "SLW1" read as a little-endian u32

/** An answer the server refused: HTTP status plus its {"error": ...} text. */
export class ApiError extends Error {
    constructor(status, message)
    {
        super(message);
        this.status = status;
    }
}

function query(params)
{
    const parts = [];
    for (const [k, v] of Object.entries(params)) {
        if (v !== undefined && v !== null && v !== '') {
            parts.push(`${k}=${encodeURIComponent(v)}`);
        }
    }
    return parts.join('&');
}

async function get(endpoint, params, signal)
{
    const response = await fetch(`/api/${endpoint}?${query(params)}`, {signal});
    if (!response.ok) {
        let message = `${response.status} ${response.statusText}`;
        try {
            message = (await response.json()).error || message;
        } catch (e) {
            // the body was not JSON: keep the status line
        }
        throw new ApiError(response.status, `/api/${endpoint}: ${message}`);
    }
    return response;
}

/** GET a JSON endpoint: getJson('info', {f: 0}). */
export async function getJson(endpoint, params = {}, signal = undefined)
{
    return (await get(endpoint, params, signal)).json();
}

function align8(n)
{
    return (n + 7) & ~7;
}

/**
 * Wrap a binary window answer (SLW1) in typed arrays.  Throws on a short or
 * foreign buffer instead of reading past its end.
 */
export function decodeWindow(buffer)
{
    if (buffer.byteLength < HEADER_BYTES) {
        throw new Error(`window answer: ${buffer.byteLength} bytes, shorter than its header`);
    }
    const head = new DataView(buffer, 0, HEADER_BYTES);
    if (head.getUint32(0, true) !== MAGIC) {
        throw new Error('window answer: no SLW1 magic');
    }
    const n = head.getUint32(4, true);
    const flags = head.getUint32(8, true);
    let off = HEADER_BYTES;
    const column = (Type) => {
        off = align8(off);
        const bytes = n * Type.BYTES_PER_ELEMENT;
        if (off + bytes > buffer.byteLength) {
            throw new Error(`window answer: ${n} items need more than ${buffer.byteLength} bytes`);
        }
        const a = new Type(buffer, off, n);
        off += bytes;
        return a;
    };
    const w = {n, cut: (flags & 1) !== 0, incomplete: (flags & 2) !== 0,
               t0: head.getFloat64(16, true), t1: head.getFloat64(24, true)};
    w.start = column(Float64Array);
    w.end = column(Float64Array);
    w.count = column(Float64Array);
    w.inclusive = column(Float64Array);
    w.value = column(Float64Array);
    w.timeline = column(Uint32Array);
    w.timelineTo = column(Uint32Array);
    w.category = column(Uint32Array);
    w.depth = column(Uint32Array);
    w.kind = column(Uint8Array);
    w.of = column(Uint8Array);
    w.bytes = buffer.byteLength;
    return w;
}

/**
 * One window query: {t0, t1, px, rows, cats} (rows/cats as id-list text,
 * empty = all).  Resolves to the decoded window plus decodeMs.
 */
export async function getWindow(f, req, signal)
{
    const response = await get('window', {f, t0: req.t0, t1: req.t1, px: req.px, rows: req.rows,
                                          cats: req.cats, enc: 'bin'}, signal);
    const buffer = await response.arrayBuffer();
    const started = performance.now();
    const w = decodeWindow(buffer);
    w.decodeMs = performance.now() - started;
    return w;
}
