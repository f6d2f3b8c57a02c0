// SPDX-License-Identifier: MIT
//
// screenshot.mjs - makes doc/viewer.png: the demo trace of tests/data/demo
// imported, served and opened in headless chromium, zoomed to the
// renderer's main thread work, one state clicked (its args in the panel)
// and a range selected (its statistics).  Run by hand after a visible
// change to the viewer; not a test.
//
//   node tests/viewer/screenshot.mjs SLOG_SERVE SLOG_IMPORT OUT.png

import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

import {launchBrowser, run, startServer} from './harness.mjs';

const [serveExe, importExe, out] = process.argv.slice(2);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(join(tmpdir(), 'slog-shot-'));
const slog = join(work, 'chrome-69_simple.slog');
run(importExe, [join(root, 'tests/data/demo/chrome-69_simple.json'), '-o', slog, '--quiet']);
const server = await startServer(serveExe, [slog]);
const {browser, close} = await launchBrowser();
try {
    const page = await browser.newPage({viewport: {width: 1400, height: 860}});
    await page.goto(`${server.url}#f=0&t=10000000,72000000&x=0`); // Browser collapsed, Renderer open
    await page.waitForFunction(() => window.slogViewer !== undefined);
    await page.evaluate(() => window.slogViewer.ready);
    // CrRendererMain (timeline 1): EvaluateScript at depth 2, 29.579-65.415 ms
    const p = await page.evaluate(() => window.slogViewer.where(1, 2, 40000000));
    await page.mouse.click(p.x, p.y);
    await page.waitForSelector('#panel-selected[data-loaded="true"]');
    await page.keyboard.down('Shift');
    await page.mouse.move(p.plotLeft + 120, p.y + 60);
    await page.mouse.down();
    await page.mouse.move(p.plotLeft + 420, p.y + 60, {steps: 4});
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.waitForSelector('#panel-stats[data-loaded="true"]');
    await page.click('#tabs button[data-tab="selected"]');
    await page.mouse.move(p.x, p.y);
    await page.evaluate(() => window.slogViewer.idle());
    await page.screenshot({path: out});
} finally {
    await close();
    await server.stop();
    rmSync(work, {recursive: true, force: true});
}
