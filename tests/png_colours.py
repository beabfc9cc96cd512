#!/usr/bin/env python3
"""png_colours.py FILE...: prints, for each PNG, its size and the number of
distinct colours of its pixels (up to 1000), decoded here with zlib (8-bit
greyscale, RGB, palette, grey+alpha and RGBA, not interlaced: what
fluidlab's and gnuplot's PNGs are). Exits 1 when a file is not such a PNG
or has two colours or fewer (a blank picture)."""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif ftype != 0:
                raise ValueError("filter type %d" % ftype)
        rows.append(bytes(line))
        prev = line
    return rows


def colours(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = head
    if depth != 8 or interlace or ctype not in CHANNELS:
        raise ValueError("depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
    bpp = CHANNELS[ctype]
    seen = set()
    for row in unfilter(zlib.decompress(idat), width, height, bpp):
        for x in range(0, len(row), bpp * 7):  # every 7th pixel: enough to tell a picture from a blank
            seen.add(row[x:x + bpp])
            if len(seen) >= 1000:
                return width, height, len(seen)
    return width, height, len(seen)


status = 0
for path in sys.argv[1:]:
    try:
        w, h, n = colours(path)
    except (OSError, ValueError, zlib.error, struct.error, TypeError) as e:
        print("%s: not a readable PNG: %s" % (path, e))
        status = 1
        continue
    print("%s: %dx%d, %d colours" % (path, w, h, n))
    if n <= 2:
        status = 1
sys.exit(status)
