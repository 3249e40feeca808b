#!/usr/bin/env python3
"""Generates Soom's built-in card background pictures.

Writes the twelve portrait backgrounds (720x1280, 8-bit RGB PNG, colour type 2)
into ../backgrounds/ relative to this file:

    sky-dawn, sky-noon, sky-night      soft sky gradients (night has a few stars)
    sea-calm, sea-wave, sea-deep       turquoise calm, gentle sine wave bands, deep blue
    forest-moss, forest-pine, forest-mist
                                       moss green, pine with vertical stripes, misty hills
    paper-cream, paper-grid, paper-dots
                                       laid cream paper, light grid, dot pattern

Re-run from anywhere with:

    python3 Sources/SoomHTTP/Resources/backgrounds-src/generate.py

Pure Python 3 standard library (zlib + struct write the PNG). The output is
deterministic: no randomness other than a fixed-seed LCG, no timestamps, so
every run writes the same bytes (given the same zlib build; a different zlib
version may pack the same pixels slightly differently). The pictures are compiled into the server
binary, so they are built to compress well: colours are whole integers, rows
repeat in bands, patterns are periodic, each row gets the PNG filter that
suits it best, and the stream is deflated at zlib level 9. There is no
dithering noise on purpose. Each file stays below 16 KiB.
"""

import math
import os
import struct
import zlib

WIDTH = 720
HEIGHT = 1280
ROW_BYTES = WIDTH * 3


# --------------------------------------------------------------------------
# PNG writing
# --------------------------------------------------------------------------

def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def _paeth(a, b, c):
    p = a + b - c
    pa = abs(p - a)
    pb = abs(p - b)
    pc = abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    if pb <= pc:
        return b
    return c


def _filter_candidates(row, prev):
    """All five filtered versions of one scanline (without the type byte)."""
    n = len(row)
    none = bytes(row)
    sub = bytes([row[i] if i < 3 else (row[i] - row[i - 3]) & 0xFF for i in range(n)])
    up = bytes([(row[i] - prev[i]) & 0xFF for i in range(n)])
    avg = bytes([(row[i] - (((row[i - 3] if i >= 3 else 0) + prev[i]) >> 1)) & 0xFF for i in range(n)])
    paeth = bytes([
        (row[i] - (_paeth(row[i - 3], prev[i], prev[i - 3]) if i >= 3 else prev[i])) & 0xFF
        for i in range(n)
    ])
    return [none, sub, up, avg, paeth]


def _cost(data):
    # The usual "minimum sum of absolute differences" heuristic, with a small
    # bonus for runs of repeated bytes, which deflate turns into cheap matches.
    total = 0
    last = -1
    for b in data:
        if b != last:
            total += b if b < 128 else 256 - b
            total += 1
        last = b
    return total


def encode_png(rows):
    """rows: list of HEIGHT byte strings, each WIDTH*3 bytes of RGB."""
    raw = bytearray()
    prev = bytes(ROW_BYTES)
    cache = {}
    for row in rows:
        if row == prev:
            raw.append(2)  # Up: an identical row filters to all zeros.
            raw += bytes(ROW_BYTES)
        else:
            key = (row, prev)
            if key not in cache:
                candidates = _filter_candidates(row, prev)
                best = min(range(5), key=lambda k: (_cost(candidates[k]), k))
                cache[key] = (best, candidates[best])
            best, data = cache[key]
            raw.append(best)
            raw += data
        prev = row
    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(raw), 9))
        + _chunk(b"IEND", b"")
    )


# --------------------------------------------------------------------------
# Colour helpers
# --------------------------------------------------------------------------

def clamp(v):
    return 0 if v < 0 else 255 if v > 255 else int(v)


def smooth(t):
    t = 0.0 if t < 0 else 1.0 if t > 1 else t
    return t * t * (3 - 2 * t)


def gradient(stops, t, ease=True):
    """Colour at t in [0, 1] along stops [(t, (r, g, b)), ...], eased between stops."""
    if t <= stops[0][0]:
        return stops[0][1]
    for (t0, c0), (t1, c1) in zip(stops, stops[1:]):
        if t <= t1:
            u = (t - t0) / (t1 - t0)
            if ease:
                u = smooth(u)
            return tuple(c0[i] + (c1[i] - c0[i]) * u for i in range(3))
    return stops[-1][1]


def rgb(c):
    return tuple(clamp(round(v)) for v in c)


def mix(a, b, u):
    return tuple(a[i] + (b[i] - a[i]) * u for i in range(3))


def solid_row(c):
    return bytes(rgb(c)) * WIDTH


def banded(y, band):
    """Centre of the band of `band` rows that y falls in, so rows repeat in bands."""
    return (y // band) * band + band // 2


def vertical(stops, band=4):
    """A plain vertical gradient, constant across each band of rows."""
    rows = []
    for y in range(HEIGHT):
        rows.append(solid_row(gradient(stops, banded(y, band) / (HEIGHT - 1))))
    return rows


def offset_rows(stops, offsets_for_row, band=4):
    """Vertical gradient plus small integer per-pixel offsets.

    offsets_for_row(y) returns a list of WIDTH integers (added to all channels)
    or a list of WIDTH (dr, dg, db) tuples. Keeping both integral means the
    "Up" filter turns a gradient step into a constant row, which costs almost
    nothing after deflate.
    """
    rows = []
    cache = {}
    for y in range(HEIGHT):
        base = rgb(gradient(stops, banded(y, band) / (HEIGHT - 1)))
        offs = offsets_for_row(y)
        key = (base, id(offs))
        if key not in cache:
            out = bytearray(ROW_BYTES)
            for x in range(WIDTH):
                o = offs[x]
                if isinstance(o, tuple):
                    dr, dg, db = o
                else:
                    dr = dg = db = o
                out[3 * x] = clamp(base[0] + dr)
                out[3 * x + 1] = clamp(base[1] + dg)
                out[3 * x + 2] = clamp(base[2] + db)
            cache[key] = bytes(out)
        rows.append(cache[key])
    return rows


class LCG:
    """Tiny fixed-seed generator so the star field is the same on every run."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.state

    def uniform(self):
        return self.next() / 4294967296.0


# --------------------------------------------------------------------------
# Sky
# --------------------------------------------------------------------------

def sky_dawn():
    return vertical([
        (0.00, (126, 168, 214)),   # light blue high up
        (0.38, (178, 180, 216)),   # lavender
        (0.68, (232, 168, 176)),   # rose pink
        (0.90, (246, 182, 150)),   # peach
        (1.00, (250, 196, 140)),   # warm orange at the horizon
    ])


def sky_noon():
    return vertical([
        (0.00, (34, 112, 206)),
        (0.55, (72, 150, 228)),
        (1.00, (156, 206, 244)),
    ])


def sky_night():
    stops = [
        (0.00, (6, 10, 32)),
        (0.60, (14, 24, 58)),
        (1.00, (30, 44, 92)),
    ]
    rows = [bytearray(r) for r in vertical(stops)]
    rnd = LCG(20240607)
    star = (236, 240, 255)
    for i in range(90):
        x = 12 + int(rnd.uniform() * (WIDTH - 24))
        y = 12 + int(rnd.uniform() * (HEIGHT * 0.8))
        bright = 0.45 + 0.55 * rnd.uniform() ** 2
        kind = rnd.uniform()
        if kind < 0.10:
            # A brighter star with a soft cross.
            pixels = [(0, 0, 1.0), (-1, 0, 0.55), (1, 0, 0.55), (0, -1, 0.55), (0, 1, 0.55),
                      (-2, 0, 0.2), (2, 0, 0.2), (0, -2, 0.2), (0, 2, 0.2),
                      (-1, -1, 0.2), (1, -1, 0.2), (-1, 1, 0.2), (1, 1, 0.2)]
            bright = 1.0
        elif kind < 0.45:
            pixels = [(0, 0, 1.0), (1, 0, 0.6), (0, 1, 0.6), (1, 1, 0.45)]
        else:
            pixels = [(0, 0, 1.0)]
        for dx, dy, w in pixels:
            row = rows[y + dy]
            p = 3 * (x + dx)
            bg = (row[p], row[p + 1], row[p + 2])
            c = rgb(mix(bg, star, bright * w))
            row[p:p + 3] = bytes(c)
    return [bytes(r) for r in rows]


# --------------------------------------------------------------------------
# Sea
# --------------------------------------------------------------------------

def sea_calm():
    stops = [
        (0.00, (150, 226, 222)),
        (0.45, (72, 190, 196)),
        (1.00, (18, 128, 152)),
    ]
    # A calm surface: the gradient with a very slow, faint brightness swell.
    rows = []
    for y in range(HEIGHT):
        yy = banded(y, 4)
        c = gradient(stops, yy / (HEIGHT - 1))
        swell = round(1.6 * math.sin(2 * math.pi * yy / 112.0))
        rows.append(solid_row(tuple(v + swell for v in c)))
    return rows


def sea_wave():
    stops = [
        (0.00, (128, 212, 218)),
        (0.50, (46, 152, 188)),
        (1.00, (14, 80, 136)),
    ]
    band_h = 96
    amp = 13.0
    period = 360.0  # divides 720, so every row repeats itself halfway across
    nbands = HEIGHT // band_h + 3
    phases = [((k * 0.618034) % 1.0) * 2 * math.pi for k in range(nbands)]
    # Boundary k (between band k-1 above and band k below) waves around k * band_h - band_h / 2.
    edges = [[k * band_h - band_h / 2 + amp * math.sin(2 * math.pi * x / period + phases[k])
              for x in range(WIDTH)] for k in range(nbands)]
    colours = [gradient(stops, min(1.0, max(0.0, (k * band_h - band_h / 2) / HEIGHT)), ease=False)
               for k in range(nbands)]
    rows = []
    step = 2
    cache = {}
    for y in range(HEIGHT):
        yy = (y // step) * step + 0.5
        k = max(1, min(nbands - 1, int(yy // band_h + 1)))
        # Only boundaries k and k+1 (the ones within reach of this row) matter.
        ks = [j for j in (k - 1, k, k + 1) if 1 <= j < nbands]
        out = bytearray(ROW_BYTES)
        for x in range(WIDTH):
            # Band index with a fractional part across each 1px edge (anti-aliased).
            f = 0.0
            band = ks[0] - 1
            for j in ks:
                cover = yy - edges[j][x] + 0.5
                if cover >= 1:
                    band = j
                elif cover > 0:
                    f = cover
                    band = j - 1
                    break
            c = colours[max(0, band)]
            if f > 0:
                c = mix(c, colours[min(nbands - 1, band + 1)], f)
            out[3 * x:3 * x + 3] = bytes(rgb(c))
        row = bytes(out)
        rows.append(cache.setdefault(row, row))
    return rows


def sea_deep():
    stops = [
        (0.00, (24, 70, 120)),
        (0.40, (12, 44, 88)),
        (1.00, (3, 12, 34)),
    ]
    return vertical(stops)


# --------------------------------------------------------------------------
# Forest
# --------------------------------------------------------------------------

def forest_moss():
    stops = [
        (0.00, (118, 150, 84)),
        (0.55, (84, 122, 62)),
        (1.00, (50, 86, 46)),
    ]
    return vertical(stops)


def forest_pine():
    stops = [
        (0.00, (40, 84, 62)),
        (0.60, (26, 62, 46)),
        (1.00, (14, 38, 30)),
    ]
    # Soft vertical stripes: two periods (48 and 144 px, both dividing 720)
    # make an uneven, bark-like rhythm that still repeats exactly every 144 px.
    offs = []
    for x in range(WIDTH):
        a = math.sin(2 * math.pi * x / 48.0)
        b = math.sin(2 * math.pi * x / 144.0 + 1.0)
        offs.append(round(2.2 * a + 1.6 * b))
    return offset_rows(stops, lambda y: offs)


def forest_mist():
    # Pale mist at the top; three layers of soft wooded ridges lower down, the
    # farther ones fainter, each fading into mist towards its foot.
    sky = [
        (0.00, (190, 204, 194)),
        (1.00, (222, 229, 220)),
    ]
    mist = (226, 231, 224)
    layers = [
        # (ridge height, colour at the ridge, [(amplitude, period, phase), ...])
        (700, (172, 188, 176), [(26, 720, 0.3), (12, 240, 1.9), (3, 90, 0.7)]),
        (860, (140, 162, 148), [(30, 720, 2.4), (14, 360, 0.4), (3, 120, 2.2)]),
        (1030, (106, 132, 116), [(34, 720, 4.1), (16, 240, 3.0), (4, 80, 1.1)]),
    ]
    ridges = []
    for base, colour, waves in layers:
        ridges.append([base + sum(a * math.sin(2 * math.pi * x / p + ph) for a, p, ph in waves)
                       for x in range(WIDTH)])

    def layer_colour(i, y):
        base, colour, _ = layers[i]
        # Fades from the ridge colour into mist over 240 px below the ridge.
        return mix(colour, mist, 0.78 * smooth((y - base + 30) / 260.0))

    rows = []
    step = 2
    cache = {}
    for y in range(HEIGHT):
        yy = (y // step) * step + 0.5
        top = rgb(gradient(sky, yy / (HEIGHT - 1)))
        colours = [top] + [rgb(layer_colour(i, yy)) for i in range(len(layers))]
        out = bytearray(ROW_BYTES)
        for x in range(WIDTH):
            c = colours[0]
            for i, ridge in enumerate(ridges):
                cover = yy - ridge[x] + 0.5
                if cover >= 1:
                    c = colours[i + 1]
                elif cover > 0:
                    c = rgb(mix(c, colours[i + 1], cover))
            out[3 * x:3 * x + 3] = bytes(c)
        row = bytes(out)
        rows.append(cache.setdefault(row, row))
    return rows


# --------------------------------------------------------------------------
# Paper
# --------------------------------------------------------------------------

def paper_cream():
    stops = [
        (0.00, (248, 242, 226)),
        (1.00, (240, 231, 210)),
    ]
    # Laid paper: a faint darker line every 4 rows and a chain line every 90 px.
    chain = [-3 if x % 90 in (44, 45) else 0 for x in range(WIDTH)]
    laid = [c - 2 for c in chain]
    return offset_rows(stops, lambda y: laid if y % 4 == 0 else chain, band=8)


def paper_grid():
    stops = [
        (0.00, (250, 249, 244)),
        (1.00, (244, 242, 234)),
    ]
    line = (-34, -20, -6)
    cell = 40
    plain = [line if x % cell == 20 else (0, 0, 0) for x in range(WIDTH)]
    full = [line] * WIDTH
    return offset_rows(stops, lambda y: full if y % cell == 20 else plain, band=8)


def paper_dots():
    stops = [
        (0.00, (248, 245, 238)),
        (1.00, (242, 238, 229)),
    ]
    cell = 36
    radius = 2.4
    dot = (-52, -56, -58)
    rows_by_dy = {}
    for dy in range(cell):
        r = []
        for x in range(WIDTH):
            dx = (x % cell) - cell / 2 + 0.5
            d = math.hypot(dx, dy - cell / 2 + 0.5)
            cover = max(0.0, min(1.0, radius + 0.5 - d))
            r.append(tuple(round(v * cover) for v in dot))
        rows_by_dy[dy] = r
    return offset_rows(stops, lambda y: rows_by_dy[(y - 10) % cell], band=8)


# --------------------------------------------------------------------------

PICTURES = [
    ("sky-dawn", sky_dawn),
    ("sky-noon", sky_noon),
    ("sky-night", sky_night),
    ("sea-calm", sea_calm),
    ("sea-wave", sea_wave),
    ("sea-deep", sea_deep),
    ("forest-moss", forest_moss),
    ("forest-pine", forest_pine),
    ("forest-mist", forest_mist),
    ("paper-cream", paper_cream),
    ("paper-grid", paper_grid),
    ("paper-dots", paper_dots),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.normpath(os.path.join(here, "..", "backgrounds"))
    os.makedirs(out_dir, exist_ok=True)
    total = 0
    for name, make in PICTURES:
        rows = make()
        assert len(rows) == HEIGHT and all(len(r) == ROW_BYTES for r in rows), name
        data = encode_png(rows)
        with open(os.path.join(out_dir, name + ".png"), "wb") as f:
            f.write(data)
        total += len(data)
        print("%-12s %6d bytes" % (name, len(data)))
    print("%-12s %6d bytes" % ("total", total))


if __name__ == "__main__":
    main()
