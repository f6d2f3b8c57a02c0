// SPDX-License-Identifier: MIT
//
// viewer_layout.mjs - browser checks of how the viewer shares space: two
// counter series on one row each get their own scale (a small one beside a
// large one is not flattened onto the row's bottom), and a small window
// (420x300) still leaves the timeline a usable height (the panels below
// shrink).  Called from viewer_kinds.mjs.

/**
 * drawCounters on a made-up row holding a large series (red, up to 100)
 * and a small one (blue, up to 0.48): how many blue pixels are drawn well
 * above the row's bottom, away from the labels at the plot's left.
 */
function smallSeriesPixelsAboveBottom(page)
{
    return page.evaluate(async () => {
        const {KIND} = await import('/api.js');
        const {drawCounters} = await import('/render_density.js');
        const rowTop = 0;
        const rowHeight = 24;
        const g = {rows: {rowOf: [0], kind: [0], shown: [0], duration: 1000}, plotX: 100, width: 400, t1: 1000,
                   visible: (r) => r === 0, rowTop: () => rowTop, rowHeight: () => rowHeight,
                   x: (t) => 100 + t * 0.3};
        const samples = [[0, 0, 100], [0, 600, 50], [1, 0, 0.48], [1, 600, 0.2]]; // [category, t, value]
        const w = {n: samples.length, kind: samples.map(() => KIND.COUNTER), of: samples.map(() => KIND.COUNTER),
                   timeline: samples.map(() => 0), depth: samples.map(() => 0), category: samples.map((s) => s[0]),
                   start: samples.map((s) => s[1]), end: samples.map((s) => s[1]), value: samples.map((s) => s[2])};
        const palette = {visible: () => true, name: (c) => `c${c}`,
                         style: (c) => (c === 0 ? 'rgb(255,0,0)' : 'rgb(0,0,255)')};
        const canvas = document.createElement('canvas');
        canvas.width = 400;
        canvas.height = rowHeight;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        drawCounters(ctx, g, w, palette);
        const bottom = rowTop + rowHeight - 4; // ROW_PAD
        const px = ctx.getImageData(200, 0, 60, bottom - 3).data; // t 333..533: both series at their first value
        let blue = 0;
        for (let i = 0; i < px.length; i += 4) {
            blue += px[i + 2] > 150 && px[i + 2] - px[i] > 40 ? 1 : 0; // blue, maybe half over red (anti-aliased)
        }
        return blue;
    });
}

export async function checkSharedCounterRow(page, t)
{
    const blue = await smallSeriesPixelsAboveBottom(page);
    t.ok(blue >= 20, `two counters on one row: the small one has its own scale (${blue} pixels above the bottom)`);
}

/** At 420x300 the panels shrink and the timeline canvas keeps a usable height. */
export async function checkSmallWindow(browser, url, t)
{
    const page = await browser.newPage({viewport: {width: 420, height: 300}});
    await page.goto(url);
    await page.waitForFunction(() => window.slogViewer !== undefined);
    await page.evaluate(() => window.slogViewer.ready);
    const h = await page.evaluate(() => document.getElementById('scroller').clientHeight);
    t.ok(h >= 100, `at 420x300 the timeline shows ${h} px (at least 100)`);
    await page.setViewportSize({width: 1400, height: 900});
    const footer = await page.evaluate(() => document.querySelector('footer').getBoundingClientRect().height);
    t.ok(Math.round(footer) === 240, `at 1400x900 the panels keep 240 px (${footer})`);
    await page.close();
}
