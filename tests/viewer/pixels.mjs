// SPDX-License-Identifier: MIT
//
// pixels.mjs - simple pixel checks on real screenshots: the PNG that
// page.screenshot() returns is decoded by the browser itself (an Image on a
// canvas: no PNG decoder needed in node) and a rectangle of it summarised as
// the count of distinct colours and of pixels of a given colour.

/**
 * Count pixels of @p png (a Buffer) inside @p rect {x, y, w, h} that are
 * exactly @p rgb ([r, g, b]), and how many colours the rectangle holds.
 */
export async function colourCounts(page, png, rect, rgb)
{
    return page.evaluate(async ({data, rect, rgb}) => {
        const img = new Image();
        img.src = `data:image/png;base64,${data}`;
        await img.decode();
        const c = new OffscreenCanvas(img.width, img.height);
        const ctx = c.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const px = ctx.getImageData(Math.round(rect.x), Math.round(rect.y), Math.max(1, Math.round(rect.w)),
                                    Math.max(1, Math.round(rect.h))).data;
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

/** "#rrggbbaa" to [r, g, b]. */
export function rgbOf(hex)
{
    const v = parseInt(hex.slice(1, 7), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}
