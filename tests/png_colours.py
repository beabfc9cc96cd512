#!/usr/bin/env python3
"""png_colours.py: the number of distinct colours of each PNG given, up to
CAP (decoding stops there), one line each ("<count> <file>"), from the
decoded pixels: 8-bit greyscale,
RGB, palette, grey-alpha or RGBA, not interlaced (what gnuplot's pngcairo
and fluidlab's own writer make). Exit 1 when a file is not such a PNG.
For tests/cli_pictures.sh: a picture that is not blank has more than two."""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
CAP = 64


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def colours(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, palette = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in CHANNELS or interlace:
        raise ValueError("depth %d, colour type %d, interlace %d: not read here" % (depth, ctype, interlace))
    bpp = CHANNELS[ctype]
    stride = width * bpp
    raw = zlib.decompress(idat)
    prev = bytearray(stride)
    seen = set()
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 255
        for x in range(0, stride, bpp):
            px = bytes(line[x:x + bpp])
            seen.add(palette[3 * px[0]:3 * px[0] + 3] if ctype == 3 else px)
        prev = line
        if len(seen) >= CAP:
            break
    return min(len(seen), CAP)


status = 0
for path in sys.argv[1:]:
    try:
        print(colours(path), path)
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print("0 %s (%s)" % (path, e))
        status = 1
sys.exit(status)
