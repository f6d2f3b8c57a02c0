// SPDX-License-Identifier: MIT
//
// bench_viewer.mjs - the viewer's cost per zoom/pan step, end to end (issue
// 13 item 10; not in CI).  For each .slog file: start slog-serve over it,
// open the viewer in headless chromium, then make 50 steps from the URL
// (20 zoom-ins by 2 toward a point, 10 pans, 10 zoom-outs, 10 pans: the same
// fractions of every file's duration) through window.slogViewer.goto, each
// timed in the page from the call to the fully drawn frame; per step also
// the server's own time (its Server-Timing header: query + encode), and
// the bytes and items of the window answer.  Memory: slog-serve's RSS
// (/proc) and the page's JS heap (CDP) before and after; the CPU time of
// slog-serve and of every browser process over the steps (/proc, all
// threads) beside the wall times: on two cores they share the CPU.  Also decodes a
// synthetic answer of 10^5 items in the page (binary vs JSON.parse).
//
//   node bench/bench_viewer.mjs SLOG_SERVE FILE.slog... [--steps 50] [--settle 1000] [--pace 0] [--interleave]
//                               [--json OUT]
// --interleave: every file open at once (a server and a page each), the
// files taking step k in turn, so a slow phase of the machine falls on all
// of them alike and their ratio holds from run to run.
// --pace MS: wait MS before every step (as a person's inputs come apart;
// the browser then finishes compositing one frame before the next input).
// --settle MS: the pause between the first exact frame and the first step
// (default 1000, as a person's first input; 0 steps at once, while the page
// still compiles and collects after opening).
// (tests/viewer/node_modules must exist: npm ci in tests/viewer)

import {readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {cpus, loadavg} from 'node:os';

import {launchBrowser, startServer} from '../tests/viewer/harness.mjs';

function parseArgs(argv)
{
    const o = {files: [], steps: 50, json: null, settle: 1000, interleave: false, pace: 0};
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--steps') {
            o.steps = Number(argv[++i]);
        } else if (argv[i] === '--settle') {
            o.settle = Number(argv[++i]);
        } else if (argv[i] === '--pace') {
            o.pace = Number(argv[++i]);
        } else if (argv[i] === '--interleave') {
            o.interleave = true;
        } else if (argv[i] === '--json') {
            o.json = argv[++i];
        } else if (!o.serve) {
            o.serve = argv[i];
        } else {
            o.files.push(argv[i]);
        }
    }
    return o;
}

/** The step windows as fractions [a, b] of the duration. */
export function stepPlan(steps)
{
    const plan = [];
    let v = [0, 1];
    const focus = 0.4137;
    const push = (a, b) => {
        const w = b - a;
        a = Math.min(Math.max(0, a), 1 - w);
        v = [a, a + w];
        plan.push(v);
    };
    for (let k = 0; plan.length < steps; k++) {
        const phase = Math.floor(plan.length / 10);
        const w = v[1] - v[0];
        if (plan.length < 20) {
            push(focus - (focus - v[0]) / 2, focus + (v[1] - focus) / 2);
        } else if (phase === 2 || phase === 4) {
            push(v[0] + w * (k % 2 ? -0.3 : 0.45), v[1] + w * (k % 2 ? -0.3 : 0.45));
        } else {
            const c = (v[0] + v[1]) / 2;
            push(c - w, c + w);
        }
    }
    return plan;
}

function rssKiB(pid)
{
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k) => Number((new RegExp(`${k}:\\s+(\\d+)`).exec(status) || [0, 0])[1]);
    return {rss: get('VmRSS'), hwm: get('VmHWM')};
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid)
{
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100)
}

const browserCpuSeen = new Map(); // pid -> CPU seconds when last seen

/**
 * CPU seconds used so far by every process of the browser (all chromium
 * processes).  A process that has ended counts with its CPU time when last
 * seen, so a renderer closing between two samples never makes the
 * difference negative (its last part is then missed).
 */
function browserCpuSeconds()
{
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
            if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('chrom')) {
                browserCpuSeen.set(pid, cpuSeconds(pid));
            }
        } catch (e) {
            // the process ended while we looked
        }
    }
    let sum = 0;
    for (const s of browserCpuSeen.values()) {
        sum += s;
    }
    return sum;
}

/** The page's JS heap (CDP Performance metrics). */
async function heap(cdp)
{
    const {metrics} = await cdp.send('Performance.getMetrics');
    const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
    return {used: m.JSHeapUsedSize, total: m.JSHeapTotalSize};
}

function summary(values)
{
    const s = values.slice().sort((a, b) => a - b);
    const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
    return {median: at(0.5), p95: at(0.95), max: s[s.length - 1], sum: s.reduce((a, b) => a + b, 0)};
}

async function stepOnce(page, t0, t1)
{
    return page.evaluate(async ([a, b]) => {
        const started = performance.now();
        await window.slogViewer.goto(a, b);
        const ms = performance.now() - started;
        const w = window.slogViewer.lastWindow();
        return {ms, bytes: w.bytes, items: w.n, fetchMs: w.fetchMs, serverMs: w.serverMs,
                decodeMs: w.decodeMs, drawMs: w.drawMs, cut: w.cut};
    }, [t0, t1]);
}

/** Start slog-serve over @p file and open the viewer, ready for steps. */
async function openFile(browser, serveExe, file, settleMs)
{
    const server = await startServer(serveExe, [file]);
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const openStarted = Date.now();
    await page.goto(server.url);
    await page.waitForFunction(() => window.slogViewer !== undefined);
    await page.evaluate(() => window.slogViewer.ready);
    const openMs = Date.now() - openStarted;
    await page.waitForTimeout(settleMs); // a person's first input comes this long after the first frame
    const ns = await page.evaluate(() => {
        const v = window.slogViewer.viewer;
        return Number(v.info.duration) * 1e9 / v.info.ticks_per_second;
    });
    return {file, server, page, cdp, openMs, ns, results: []};
}

/** What the steps' processes have used so far: memory, CPU seconds. */
async function usage(f)
{
    return {serve: rssKiB(f.server.proc.pid), page: await heap(f.cdp), serveCpu: cpuSeconds(f.server.proc.pid),
            browserCpu: browserCpuSeconds()};
}

async function step(f, [a, b], paceMs)
{
    if (paceMs > 0) {
        await f.page.waitForTimeout(paceMs);
    }
    f.results.push(await stepOnce(f.page, Math.floor(a * f.ns), Math.ceil(b * f.ns)));
}

/**
 * Close @p f's page and server; its steps' figures.  The browser's CPU time
 * is shared by @p sharing files' pages stepping in turn: per step it is
 * divided by all their steps.
 */
async function closeFile(f, memStart, memEnd, sharing = 1)
{
    await f.page.close();
    await f.server.stop();
    const results = f.results;
    const phase = (a, b) => summary(results.slice(a, b).map((r) => r.ms)).median;
    const cpu = {serveMsPerStep: (memEnd.serveCpu - memStart.serveCpu) * 1000 / results.length,
                 browserMsPerStep: (memEnd.browserCpu - memStart.browserCpu) * 1000 / (results.length * sharing)};
    return {file: f.file, durationNs: f.ns, openMs: f.openMs, steps: results.length, perStep: results, cpu,
            phases: {zoomIn: phase(0, 20), pan1: phase(20, 30), zoomOut: phase(30, 40), pan2: phase(40, 50)},
            ms: summary(results.map((r) => r.ms)), bytes: summary(results.map((r) => r.bytes)),
            items: summary(results.map((r) => r.items)), fetchMs: summary(results.map((r) => r.fetchMs)),
            serverMs: summary(results.map((r) => r.serverMs)),
            drawMs: summary(results.map((r) => r.drawMs)), decodeMs: summary(results.map((r) => r.decodeMs)),
            cut: results.filter((r) => r.cut).length, memStart, memEnd};
}

/** Every file's steps, one file after the other. */
async function benchSequential(browser, o)
{
    const out = [];
    for (const file of o.files) {
        const f = await openFile(browser, o.serve, file, o.settle);
        const memStart = await usage(f);
        for (const w of stepPlan(o.steps)) {
            await step(f, w, o.pace);
        }
        out.push(await closeFile(f, memStart, await usage(f)));
    }
    return out;
}

/**
 * The files' steps taken in turn (step k of every file, the file that goes
 * first rotating), so every file meets the same phases of a noisy machine.
 * Each file has its own server and page; CPU times then cover all of them.
 */
async function benchInterleaved(browser, o)
{
    const fs = [];
    for (const file of o.files) {
        fs.push(await openFile(browser, o.serve, file, o.settle));
    }
    const memStart = [];
    for (const f of fs) {
        memStart.push(await usage(f));
    }
    const plan = stepPlan(o.steps);
    for (let k = 0; k < plan.length; k++) {
        for (let j = 0; j < fs.length; j++) {
            await step(fs[(k + j) % fs.length], plan[k], o.pace);
        }
    }
    const memEnd = [];
    for (const f of fs) {
        memEnd.push(await usage(f));
    }
    const out = [];
    for (let j = 0; j < fs.length; j++) {
        memStart[j].browserCpu = memStart[0].browserCpu; // the browser's CPU over the whole loop
        memEnd[j].browserCpu = memEnd[fs.length - 1].browserCpu;
        out.push(await closeFile(fs[j], memStart[j], memEnd[j], fs.length));
    }
    return out;
}

/**
 * Decode 10^5 items in the page: the binary encoding vs JSON.parse of the
 * same synthetic items, and the packed encoding of a real full-detail
 * answer of up to 10^5 items of @p file.
 */
async function decodeBench(browser, serveExe, file)
{
    const server = await startServer(serveExe, [file]);
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => window.slogViewer !== undefined);
    const r = await page.evaluate(async () => {
        const {decodeWindow, decodePacked, ColumnPool} = await import('./api.js');
        const n = 100000;
        const buf = new ArrayBuffer(32 + n * (5 * 8 + 4 * 4 + 2) + 8);
        const head = new DataView(buf);
        head.setUint32(0, 0x31574c53, true);
        head.setUint32(4, n, true);
        const items = [];
        for (let i = 0; i < n; i++) {
            items.push({kind: 'state', of: 'state', timeline: i % 64, timeline_to: i % 64, category: i % 40,
                        start: i * 1000, end: i * 1000 + 900, depth: i % 4, count: 1, inclusive: 900, value: 0});
        }
        const json = JSON.stringify({n, items});
        // performance.now() is coarsened to 0.1 ms here: time `reps` calls per sample
        const median = (f, reps) => {
            const t = [];
            for (let k = 0; k < 11; k++) {
                const s = performance.now();
                for (let r = 0; r < reps; r++) {
                    f();
                }
                t.push((performance.now() - s) / reps);
            }
            return t.sort((a, b) => a - b)[5];
        };
        const bin = median(() => {
            const w = decodeWindow(buf);
            let s = 0;
            for (let i = 0; i < w.n; i++) {
                s += w.start[i];
            }
            return s;
        }, 200);
        const js = median(() => JSON.parse(json).items.length, 1);
        const out = {binMs: bin, jsonMs: js, binBytes: buf.byteLength, jsonBytes: json.length};
        if (decodePacked) { // a viewer older than the packed encoding has none
            const info = await (await fetch('/api/info?f=0')).json();
            const packed = await (await fetch(`/api/window?f=0&t0=0&t1=${info.duration}&px=0&max=${n}` +
                                              '&enc=packed')).arrayBuffer();
            out.packedN = decodePacked(packed).n;
            out.packedMs = median(() => decodePacked(packed).start[out.packedN - 1], 5);
            const pool = new ColumnPool(); // as the viewer decodes
            out.packedPoolMs = median(() => decodePacked(packed, pool).start[out.packedN - 1], 5);
            out.packedBytes = packed.byteLength;
        }
        return out;
    });
    await page.close();
    await server.stop();
    return r;
}

/**
 * The guest's free page reporting: memory given back to the host costs a
 * host fault per page when touched again (doc/PERFORMANCE.md, "Fresh memory
 * on this guest"); the steps allocate in the browser and the server.
 */
function pageReporting()
{
    const dir = '/sys/module/page_reporting/parameters';
    try {
        return `free page reporting: min_free_ms ${readFileSync(`${dir}/min_free_ms`, 'utf8').trim()}`;
    } catch (e) {
        return 'no free page reporting';
    }
}

async function main()
{
    const o = parseArgs(process.argv.slice(2));
    const {browser, close} = await launchBrowser();
    const out = {date: new Date().toISOString(), cpus: cpus().length, loadBefore: loadavg(), settleMs: o.settle,
                 files: []};
    try {
        out.decode = await decodeBench(browser, o.serve, o.files[0]);
        console.log(`decode 10^5 items in the page: binary ${out.decode.binMs.toFixed(3)} ms ` +
                    `(${out.decode.binBytes} B), JSON.parse ${out.decode.jsonMs.toFixed(1)} ms (${out.decode.jsonBytes} B)` +
                    (out.decode.packedMs === undefined ? '' : `; packed ${out.decode.packedMs.toFixed(2)} ms for a ` +
                     `real answer of ${out.decode.packedN} items (${out.decode.packedBytes} B), ` +
                     `${out.decode.packedPoolMs.toFixed(2)} ms into pooled columns`));
        console.log(`steps start ${o.settle} ms after each file's first exact frame, ${o.pace} ms apart` +
                    (o.interleave ? '; the files take their steps in turn' : ''));
        out.interleaved = o.interleave;
        out.paceMs = o.pace;
        out.files = o.interleave ? await benchInterleaved(browser, o) : await benchSequential(browser, o);
        for (const r of out.files) {
            const mb = (k) => (k / 1024).toFixed(0);
            console.log(`${r.file}: open ${r.openMs} ms; ${r.steps} steps: median ${r.ms.median.toFixed(1)} ms, ` +
                        `p95 ${r.ms.p95.toFixed(1)} ms, max ${r.ms.max.toFixed(1)} ms; fetch median ` +
                        `${r.fetchMs.median.toFixed(1)} (server ${r.serverMs.median.toFixed(1)}, p95 ` +
                        `${r.serverMs.p95.toFixed(1)}), draw median ${r.drawMs.median.toFixed(1)} ms; bytes/step median ` +
                        `${r.bytes.median} max ${r.bytes.max} total ${r.bytes.sum}; items/step median ${r.items.median} ` +
                        `max ${r.items.max}; cut ${r.cut}; slog-serve RSS ${mb(r.memStart.serve.rss)} -> ` +
                        `${mb(r.memEnd.serve.rss)} MiB (peak ${mb(r.memEnd.serve.hwm)}); page JS heap ` +
                        `${(r.memStart.page.used / 1048576).toFixed(1)} -> ${(r.memEnd.page.used / 1048576).toFixed(1)} MiB; ` +
                        `slog-serve CPU per step ${r.cpu.serveMsPerStep.toFixed(1)} ms, browser ${r.cpu.browserMsPerStep.toFixed(1)} ms; ` +
                        `phase medians (ms): zoom-in ${r.phases.zoomIn.toFixed(1)}, pan ${r.phases.pan1.toFixed(1)}, ` +
                        `zoom-out ${r.phases.zoomOut.toFixed(1)}, pan ${r.phases.pan2.toFixed(1)}`);
        }
        for (const r of out.files.slice(1)) {
            console.log(`median step ${r.file} / ${out.files[0].file}: ` +
                        `${(r.ms.median / out.files[0].ms.median).toFixed(2)}`);
        }
    } finally {
        await close();
    }
    out.loadAfter = loadavg();
    console.log(`load average before ${out.loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ` +
                `${out.loadAfter.map((x) => x.toFixed(2)).join(' ')}`);
    out.pageReporting = pageReporting();
    console.log(`memory: ${out.pageReporting}`);
    if (o.json) {
        writeFileSync(o.json, JSON.stringify(out, null, 1));
    }
}

main().catch((e) => {
    console.error(e);
    process.exit(1);
});
