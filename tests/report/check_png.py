#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# check_png.py - pixel checks of a screenshot of a slog-report page: the
# PNG is decoded with zlib alone (8-bit RGB or RGBA, filters 0-4), then it
# must not be blank (many distinct colours) and must show the overview's
# most used category colour, fully shaded, on enough pixels to be a drawn
# row (the colour is read from the page's overview data).
# Usage: check_png.py SHOT.png REPORT.html
import json
import re
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
    if depth != 8 or ctype not in (2, 6):
        raise ValueError('unsupported PNG (depth %d, colour type %d)' % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(b''.join(idat)), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 0xff if f else line[i]
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    shot, page = sys.argv[1], sys.argv[2]
    w, h, bpp, rows = decode(shot)
    colours = {}
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = bytes(line[x:x + 3])
            colours[px] = colours.get(px, 0) + 1
    html = open(page, encoding='utf-8').read()
    m = re.search(r'<script type="application/json" id="overview-data">(.*?)</script>', html, re.S)
    want = bytes.fromhex(json.loads(m.group(1))['slots'][0]['c'][1:])
    near = sum(n for px, n in colours.items() if max(abs(px[i] - want[i]) for i in range(3)) <= 3)
    fails = []
    if len(colours) < 20:
        fails.append('blank screenshot: %d colours' % len(colours))
    if near < 200:
        fails.append('the top category colour #%s covers %d pixels' % (want.hex(), near))
    for f in fails:
        print('FAIL %s: %s' % (shot, f))
    print('%s: %dx%d, %d colours, #%s on %d pixels' % (shot, w, h, len(colours), want.hex(), near))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
