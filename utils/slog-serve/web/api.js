// SPDX-License-Identifier: MIT
//
// api.js - the viewer's only door to slog-serve (doc/VIEWER.md, "HTTP API").
// JSON endpoints come back as objects; the window query comes back in the
// packed encoding (SLW2: a quarter of the column encoding's bytes, since the
// browser's fetch costs by the byte) and is decoded in one pass into typed
// columns; the column encoding (SLW1) is wrapped without parsing.  Every
// request can be cancelled with an AbortSignal.

export const KIND = Object.freeze({STATE: 0, EVENT: 1, ARROW: 2, COUNTER: 3, PREVIEW: 4, RUN: 5});
export const KIND_NAMES = ['state', 'event', 'arrow', 'counter', 'preview', 'run'];
export const CATEGORY_OTHER = 0xffffffff;

const HEADER_BYTES = 32;
const MAGIC = 0x31574c53; // "SLW1" read as a little-endian u32
const MAGIC_PACKED = 0x32574c53; // "SLW2"
const PACKED_MIN_RECORD = 3; // kind and flags bytes and a category: an item in the box before it

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

/** The columns of an SLW2 answer of @p n items (filled by decodePacked). */
function packedColumns(n)
{
    return {start: new Float64Array(n), end: new Float64Array(n), count: new Float64Array(n),
            inclusive: new Float64Array(n), value: new Float64Array(n), timeline: new Uint32Array(n),
            timelineTo: new Uint32Array(n), category: new Uint32Array(n), depth: new Uint32Array(n),
            kind: new Uint8Array(n), of: new Uint8Array(n)};
}

/**
 * Column storage for decodePacked, reused answer after answer: fresh memory
 * costs more than the decoding on some hosts (doc/PERFORMANCE.md).  Sets are
 * used in turn, three of them: the answer on screen keeps its arrays while
 * the next is decoded, and so does an answer decoded but not yet shown when
 * a request aborted after its body had come.  A pool serves one viewer,
 * which shows one answer at a time.  Sets grow by half when an answer needs
 * more.
 */
export class ColumnPool {
    constructor()
    {
        this.sets = [null, null, null];
        this.turn = 0;
    }

    /** Columns of exactly @p n entries (views over the next set). */
    take(n)
    {
        this.turn = (this.turn + 1) % this.sets.length;
        let set = this.sets[this.turn];
        if (set === null || set.start.length < n) {
            set = packedColumns(Math.max(n, 1024, Math.ceil((set ? set.start.length : 0) * 1.5)));
            this.sets[this.turn] = set;
        }
        const view = {};
        for (const k of Object.keys(set)) {
            view[k] = set[k].subarray(0, n);
        }
        return view;
    }
}

/** Zigzag-decode @p z (exact up to 2^53; values below 2^31 with integer operations). */
function unzigzag(z)
{
    if (z < 0x80000000) {
        return (z >>> 1) ^ -(z & 1);
    }
    const half = Math.floor(z / 2);
    return z === 2 * half ? half : -half - 1;
}

/** A category as SLW2 codes it: 0 for "other", else the id + 1. */
function decodeCategory(c)
{
    return c === 0 ? CATEGORY_OTHER : c - 1;
}

/*
 * The varint at byte p of u8 whose first byte is known to be >= 0x80, exact
 * up to 2^53 (LEB128); the byte after it goes to varintEnd.  One-byte
 * values, most of them, are read inline by decodeItems.
 */
let varintEnd = 0;
function longVarint(u8, p)
{
    let b = u8[p++];
    let v = b & 0x7f;
    for (let m = 0x80; b >= 0x80; m *= 0x80) {
        if (m > 2 ** 63 || p >= u8.length) {
            throw new Error(`window answer: varint runs past byte ${p}`);
        }
        b = u8[p++];
        v += (b & 0x7f) * m;
    }
    varintEnd = p;
    return v;
}

/**
 * The @p n records of an SLW2 body into the columns of @p w, in one pass
 * with the columns and the read position in locals.  Each record: kind and
 * flags bytes, then varints (timeline and start as differences from the
 * record before).  Returns the byte after the last record: a record cut
 * short reads past the end, which the caller rejects.
 */
function decodeItems(buffer, w, n)
{
    const u8 = new Uint8Array(buffer);
    const view = new DataView(buffer);
    const end = u8.length;
    const {kind, of, timeline, category, start, depth, count, inclusive, timelineTo, value} = w;
    const stop = w.end;
    let p = HEADER_BYTES;
    let tl = 0;
    let t = 0;
    let len = 0;
    const next = () => {
        const b = u8[p];
        if (b < 0x80) {
            p++;
            return b;
        }
        const v = longVarint(u8, p);
        p = varintEnd;
        return v;
    };
    for (let i = 0; i < n; i++) {
        if (p >= end) {
            throw new Error(`window answer: ${n} items announced, the body ends after ${i}`);
        }
        const k = u8[p];
        const f = u8[p + 1];
        p += 2;
        const kd = k & 7;
        kind[i] = kd;
        of[i] = (k >> 3) & 7;
        if (f & 4) { // the box of the item before
            if (i === 0) {
                throw new Error('window answer: the first item repeats a box');
            }
            category[i] = decodeCategory(next());
            timeline[i] = tl;
            start[i] = t;
            stop[i] = t + len;
            depth[i] = depth[i - 1];
        } else {
            tl += unzigzag(next());
            category[i] = decodeCategory(next());
            t += unzigzag(next());
            len = unzigzag(next());
            timeline[i] = tl;
            start[i] = t;
            stop[i] = t + len;
            depth[i] = next();
        }
        count[i] = k & 0x40 ? next() : 1;
        inclusive[i] = k & 0x80 ? unzigzag(next()) : kd === KIND.STATE || kd === KIND.ARROW ? len : 0;
        timelineTo[i] = f & 2 ? tl + unzigzag(next()) : tl;
        value[i] = 0;
        if (f & 1) {
            value[i] = p + 8 <= end ? view.getFloat64(p, true) : NaN;
            p += 8;
        }
    }
    return p;
}

/**
 * Decode a packed window answer (SLW2, doc/VIEWER.md) into the same columns
 * as decodeWindow (new arrays, or @p pool's next set): one varint record per
 * item, deltas against the item before.  Throws on a short, truncated,
 * overlong or foreign buffer.
 */
export function decodePacked(buffer, pool = null)
{
    if (buffer.byteLength < HEADER_BYTES) {
        throw new Error(`window answer: ${buffer.byteLength} bytes, shorter than its header`);
    }
    const dv = new DataView(buffer);
    if (dv.getUint32(0, true) !== MAGIC_PACKED) {
        throw new Error('window answer: no SLW2 magic');
    }
    const n = dv.getUint32(4, true);
    const flags = dv.getUint32(8, true);
    const body = dv.getUint32(12, true);
    if (HEADER_BYTES + body !== buffer.byteLength || n * PACKED_MIN_RECORD > body) {
        throw new Error(`window answer: ${n} items in ${body} bytes, ${buffer.byteLength} received`);
    }
    const w = Object.assign(pool ? pool.take(n) : packedColumns(n), {n, cut: (flags & 1) !== 0, incomplete: (flags & 2) !== 0,
                                              t0: dv.getFloat64(16, true), t1: dv.getFloat64(24, true),
                                              bytes: buffer.byteLength});
    const end = decodeItems(buffer, w, n);
    if (end !== buffer.byteLength) {
        throw new Error(`window answer: items end at byte ${end} of ${buffer.byteLength}`);
    }
    return w;
}

/**
 * One window query: {t0, t1, px, rows, cats} (rows/cats as id-list text,
 * empty = all), asked in the packed encoding, with the counter values in
 * force at t0 (held=1: a counter track's last sample before the window, so
 * its chart starts at the left edge).  Resolves to the decoded window plus
 * decodeMs.
 */
export async function getWindow(f, req, signal, pool = null)
{
    const response = await get('window', {f, t0: req.t0, t1: req.t1, px: req.px, rows: req.rows,
                                          cats: req.cats, held: 1, enc: 'packed'}, signal);
    const buffer = await response.arrayBuffer();
    const started = performance.now();
    const w = decodePacked(buffer, pool);
    w.decodeMs = performance.now() - started;
    w.serverMs = serverMs(response.headers.get('Server-Timing'));
    return w;
}

/**
 * The server's own time for an answer: the sum of the durations in its
 * Server-Timing header ("query;dur=1.2, encode;dur=0.3"), or NaN without one.
 */
export function serverMs(header)
{
    let sum = NaN;
    for (const m of (header || '').matchAll(/dur=([0-9.]+)/g)) {
        sum = (Number.isNaN(sum) ? 0 : sum) + Number(m[1]);
    }
    return sum;
}
