// SPDX-License-Identifier: MIT
//
// pixels.mjs - simple pixel checks on real screenshots: the PNG that
// page.screenshot() returns is decoded by the browser itself (an Image on a
// canvas: no PNG decoder needed in node) and a rectangle of it summarised as
// the count of distinct colours and of pixels of a given colour.

/** Give the page window.pngPixels(base64 PNG, rect or null): its ImageData. */
async function ensureDecoder(page)
{
    await page.evaluate(() => {
        window.pngPixels ??= async (data, rect) => {
            const img = new Image();
            img.src = `data:image/png;base64,${data}`;
            await img.decode();
            const c = new OffscreenCanvas(img.width, img.height);
            const ctx = c.getContext('2d');
            ctx.drawImage(img, 0, 0);
            const r = rect || {x: 0, y: 0, w: img.width, h: img.height};
            return ctx.getImageData(Math.round(r.x), Math.round(r.y), Math.max(1, Math.round(r.w)),
                                    Math.max(1, Math.round(r.h))).data;
        };
    });
}

/**
 * Count pixels of @p png (a Buffer) inside @p rect {x, y, w, h} that are
 * exactly @p rgb ([r, g, b]), and how many colours the rectangle holds.
 */
export async function colourCounts(page, png, rect, rgb)
{
    await ensureDecoder(page);
    return page.evaluate(async ({data, rect, rgb}) => {
        const px = await window.pngPixels(data, rect);
        const colours = new Set();
        let match = 0;
        for (let i = 0; i < px.length; i += 4) {
            colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
            if (rgb && px[i] === rgb[0] && px[i + 1] === rgb[1] && px[i + 2] === rgb[2]) {
                match++;
            }
        }
        return {match, colours: colours.size, pixels: px.length / 4};
    }, {data: png.toString('base64'), rect, rgb});
}

/** The largest difference of one colour channel between two PNGs of one size. */
export async function maxDifference(page, a, b)
{
    await ensureDecoder(page);
    return page.evaluate(async ([da, db]) => {
        const [pa, pb] = [await window.pngPixels(da, null), await window.pngPixels(db, null)];
        let most = pa.length === pb.length ? 0 : 256;
        for (let i = 0; i < pa.length && most < 256; i++) {
            most = Math.max(most, Math.abs(pa[i] - pb[i]));
        }
        return most;
    }, [a.toString('base64'), b.toString('base64')]);
}

/** "#rrggbbaa" to [r, g, b]. */
export function rgbOf(hex)
{
    const v = parseInt(hex.slice(1, 7), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}
