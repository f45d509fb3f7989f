#!/usr/bin/env python3
"""odemocap-replay --plot, read as XML and rendered by headless Chromium: three panels (hand
lock gap, chain joint gap, track error), a line per drive with --compare, and a picture that is
not blank and shows each drive's colour.

usage: plot_in_browser.py ODEMOCAP_REPLAY WORK_DIR ; exit 77 (skipped) without Chromium.
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_in_browser import png_pixels, screenshot  # noqa: E402  (written there)

SVG = "{http://www.w3.org/2000/svg}"
DRIVE_COLOURS = [(0x1e, 0x88, 0xe5), (0xd8, 0x1b, 0x60), (0x43, 0xa0, 0x47), (0xf4, 0x51, 0x1e)]


def main():
    replay, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    plot = os.path.join(work, "replay.svg")
    subprocess.run([replay, "--headless", "--compare", "--seconds", "2", "--plot", plot],
                   stdout=subprocess.DEVNULL, check=True, timeout=300)
    root = ElementTree.parse(plot).getroot()  # well-formed XML, or this raises
    lines = root.findall(f".//{SVG}polyline")
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    for title in ("hand lock gap", "chain joint gap", "track error"):
        assert title in texts, f"no panel '{title}'"
    assert len(lines) == 3 * 4, f"{len(lines)} lines for 3 panels of 4 drives"
    width, height = float(root.get("width")), float(root.get("height"))
    for line in lines:
        points = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        assert len(points) > 100, "a line of too few points"
        assert all(0 <= x <= width and 0 <= y <= height for x, y in points), "a point off the page"
    print(f"plot: {len(lines)} lines, {sum(1 for _ in root.iter())} elements")

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("no chromium: the rendering is not checked")
        return 77
    png = os.path.join(work, "replay.png")
    screenshot(chromium, "file://" + plot, png, int(width), int(height))
    _, _, rows = png_pixels(png)
    pixels = [p for row in rows for p in row]
    ink = sum(1 for p in pixels if min(p) < 200) / len(pixels)
    seen = [sum(1 for p in pixels if max(abs(a - b) for a, b in zip(p, c)) < 40)
            for c in DRIVE_COLOURS]
    print(f"rendered: {100 * ink:.1f}% ink, pixels per drive colour {seen}")
    assert ink > 0.01, "the plot rendered (nearly) blank"
    assert all(n > 20 for n in seen), "a drive's line is not visible"
    return 0


if __name__ == "__main__":
    sys.exit(main())
