#!/usr/bin/env python3
"""odemocap validate --html, looked at the way a lab manager would: the page's structure read
with Python's HTML parser, then the page rendered by headless Chromium (Debian's) to a PNG whose
pixels are checked: not blank, the summary's warning colour and the timelines' marks present.

usage: report_in_browser.py ODEMOCAP WORK_DIR DATA_DIR... ; exit 77 (skipped) without Chromium.
"""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import zlib


class Page(html.parser.HTMLParser):
    """Counts what the page is made of, and notes anything that would be fetched."""

    def __init__(self):
        super().__init__()
        self.rows = 0
        self.sections = 0
        self.svgs = 0
        self.marks = 0
        self.fetches = []
        self.in_summary = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "summary":
            self.in_summary = True
        if tag == "tr" and a.get("class") == "file":
            self.rows += 1
        if tag == "section":
            self.sections += 1
        if tag == "svg":
            self.svgs += 1
        if tag == "rect" and a.get("class") == "finding":
            self.marks += 1
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.fetches.append(f"<{tag} {name}={value}>")
        if tag == "link":
            self.fetches.append("<link>")

    def handle_data(self, data):
        if "@import" in data or "url(" in data:
            self.fetches.append("css: " + data[:60])


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, decoded here."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"depth {depth} colour type {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def screenshot(chromium, url, png, width, height):
    """Renders `url` with headless Chromium into `png` at width x height pixels."""
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={png}", f"--window-size={width},{height}", url],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=True)


def main():
    odemocap, work, data = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    broken = os.path.join(work, "broken.bvh")
    with open(broken, "w") as f:
        f.write("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition")  # cut short
    report = os.path.join(work, "report.html")
    done = subprocess.run([odemocap, "validate", "--html", report, broken] + data,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1, f"exit {done.returncode} (the broken file must fail): {done.stderr}"
    files = done.stdout.count("\n") and int(done.stdout.strip().splitlines()[-1].split()[0])
    page = Page()
    page.feed(open(report, encoding="utf-8").read())
    assert page.rows == files, f"{page.rows} summary rows for {files} files"
    assert page.sections == files, f"{page.sections} sections for {files} files"
    assert page.svgs == files - 1, f"{page.svgs} timelines for {files - 1} readable files"
    assert page.marks > 0, "no finding marked on any timeline"
    assert not page.fetches, f"the page fetches: {page.fetches}"
    print(f"report: {files} files, {page.marks} findings marked, nothing fetched")

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("no chromium: the rendering is not checked")
        return 77
    png = os.path.join(work, "report.png")
    screenshot(chromium, "file://" + report, png, 1280, 1400)
    width, height, rows = png_pixels(png)
    pixels = [p for row in rows for p in row]
    ink = sum(1 for p in pixels if min(p) < 200) / len(pixels)
    colours = len(set(pixels))
    orange = sum(1 for (r, g, b) in pixels if r > 220 and 90 < g < 160 and b < 60)
    print(f"rendered {width}x{height}: {100 * ink:.1f}% ink, {colours} colours, "
          f"{orange} warning-orange pixels")
    assert ink > 0.02, "the page rendered (nearly) blank"
    assert colours > 20, "the page rendered in too few colours to hold a table and timelines"
    assert orange > 50, "no warning counts or marks visible"
    return 0


if __name__ == "__main__":
    sys.exit(main())
