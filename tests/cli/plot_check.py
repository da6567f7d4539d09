#!/usr/bin/python3
"""Checks what `onescope plot` drew (stdlib only). One subcommand per check; prints one line
per failure and exits 1 when any check fails.

  svg FILE [NAME...]            parses; every NAME is a legend text
  png FILE                      decodes every pixel (zlib + filters)
  colours SVG PNG CSV [VIEW]    the PNG has entity i's palette colour where the poses of
                                `dump --poses --csv` (millimetres) fall in panel VIEW
  field SVG STATE.json FIELD STEP  cells hold the field computed here from the bodies of
                                `replay --json --state` at host STEP; the scale covers min..max
  flat SVG VALUE                every point of the drawn path sits at VALUE (axis units)
"""
import csv
import json
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
           (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207),
           (0, 63, 92), (184, 134, 11)]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def svg_root(path):
    return ET.parse(path).getroot()


def texts(root, cls):
    """Each text of the class, whole: a wrapped or shortened one's <title> holds all of it."""
    out = []
    for t in root.iter(NS + "text"):
        if t.get("class") != cls:
            continue
        full = t.find(NS + "title")
        text = full.text if full is not None else t.text
        if not out or full is None or out[-1] != text:
            out.append(text or "")
    return out


def panels(root):
    return {g.get("data-name"): {k: float(g.get("data-" + k)) for k in ("sx", "sy", "ox", "oy")}
            for g in root.iter(NS + "g") if g.get("class") == "panel"}


def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + ": not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError(path + ": bad CRC in " + kind.decode())
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = head[:4]
    if depth != 8 or ctype not in (2, 6):
        raise ValueError("%s: colour type %d depth %d not handled" % (path, ctype, depth))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def pixel(img, x, y):
    w, h, bpp, rows = img
    if not (0 <= x < w and 0 <= y < h):
        return None
    r = rows[y]
    return tuple(r[x * bpp:x * bpp + 3])


def unit_per_mm(root):
    labels = texts(root, "axis-label")
    return 0.001 if any("(m)" in t for t in labels) else 1.0


def cmd_svg(path, names):
    root = svg_root(path)
    legend = texts(root, "legend")
    for n in names:
        if n not in legend:
            fail("%s: legend %r does not name %s" % (path, legend, n))
    if not texts(root, "title"):
        fail(path + ": no title")


def cmd_png(path):
    w, h, _, rows = decode_png(path)
    if len(rows) != h or w == 0:
        fail(path + ": decoded %d rows of %d" % (len(rows), h))
    print("%s: %d x %d" % (path, w, h))


def cmd_colours(svg, png, posecsv, view):
    root = svg_root(svg)
    p = panels(root)[view]
    scale = unit_per_mm(root)
    img = decode_png(png)
    hits, total, per_entity = 0, 0, {}
    for row in csv.DictReader(open(posecsv)):
        if row["present"] != "1":
            continue
        e = int(row["entity"]) - 1
        x = p["ox"] + p["sx"] * float(row["x"]) * scale
        y = p["oy"] + p["sy"] * float(row["y"]) * scale
        want, found = PALETTE[e % len(PALETTE)], False
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                c = pixel(img, int(x) + dx, int(y) + dy)
                if c and all(abs(c[k] - want[k]) <= 40 for k in range(3)):
                    found = True
        total += 1
        hits += found
        per_entity.setdefault(e, []).append(found)
    for e, v in sorted(per_entity.items()):
        if not any(v):
            fail("%s: entity %d's colour %s is at none of its %d positions" % (png, e + 1, PALETTE[e % 12], len(v)))
    if total == 0 or hits < 0.7 * total:
        fail("%s: only %d of %d positions show their body's colour" % (png, hits, total))
    print("%s: %d of %d positions show their body's colour" % (png, hits, total))


def field_values(bodies, field, dims):
    vals = [0] * (81 if field == "density" else 128)
    for b in bodies:
        if b["alive"] != 1:
            continue
        u, w = b["position"][0], b["position"][2 if dims == 3 else 1]
        ci, cj = min(u // 1250, 7), min(w // 1250, 7)
        fu, fw = u - 1250 * ci, w - 1250 * cj
        if field == "density":
            for (i, j, wt) in ((ci, cj, (1250 - fu) * (1250 - fw)), (ci + 1, cj, fu * (1250 - fw)),
                               (ci, cj + 1, (1250 - fu) * fw), (ci + 1, cj + 1, fu * fw)):
                vals[9 * j + i] += wt
        else:
            c = 8 * cj + ci
            vals[2 * c + (0 if fu + fw < 1250 else 1)] += 1
    return vals


def cmd_field(svg, state, field, step):
    root = svg_root(svg)
    doc = json.load(open(state))
    rows = [r for r in doc["rows"] if r["step"] == step]
    if not rows:
        fail("%s: no row at step %d" % (state, step))
        return
    dims = 3 if any(b["position"][2] for r in doc["rows"] for b in r["bodies"]) else 2
    want = field_values(rows[0]["bodies"], field, dims)
    cells = [float(c.get("data-value")) for c in root.iter(NS + "polygon") if c.get("class") == "cell"]
    if cells != want:
        fail("%s: cells %s, computed here %s" % (svg, cells[:12], want[:12]))
    lo = [float(t.get("data-value")) for t in root.iter(NS + "text") if t.get("class") == "scale-min"]
    hi = [float(t.get("data-value")) for t in root.iter(NS + "text") if t.get("class") == "scale-max"]
    if not lo or not hi or lo[0] > min(want) or hi[0] < max(want):
        fail("%s: scale %s..%s does not cover %s..%s" % (svg, lo, hi, min(want), max(want)))
    if max(want) == min(want):
        fail("%s: a flat field proves little: pick another step" % svg)
    print("%s: %d cells as computed, scale %s..%s covers %s..%s" % (svg, len(cells), lo, hi, min(want), max(want)))


def cmd_flat(svg, value):
    root = svg_root(svg)
    p = panels(root)["diff"]
    y = p["oy"] + p["sy"] * value
    pts = []
    for pl in root.iter(NS + "polyline"):
        if pl.get("class") == "path":
            pts += [tuple(map(float, q.split(","))) for q in pl.get("points").split()]
    if len(pts) < 2:
        fail(svg + ": the diff line has %d points" % len(pts))
    bad = [q for q in pts if abs(q[1] - y) > 0.6]
    if bad:
        fail("%s: %d points off the expected level %g (pixel y %.1f): %s" % (svg, len(bad), value, y, bad[:3]))
    print("%s: %d points at %g" % (svg, len(pts), value))


def main(a):
    if a[0] == "svg":
        cmd_svg(a[1], a[2:])
    elif a[0] == "png":
        cmd_png(a[1])
    elif a[0] == "colours":
        cmd_colours(a[1], a[2], a[3], a[4] if len(a) > 4 else "x-y")
    elif a[0] == "field":
        cmd_field(a[1], a[2], a[3], int(a[4]))
    elif a[0] == "flat":
        cmd_flat(a[1], float(a[2]))
    else:
        raise SystemExit("unknown check " + a[0])
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (ET.ParseError, ValueError, OSError, KeyError) as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
