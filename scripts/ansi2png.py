#!/usr/bin/env python3
"""Renders a terminal screen captured with `tmux capture-pane -e -p` (text
with SGR colour escapes) to a PNG, one monospace cell per character."""

import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
BG = (24, 24, 28)
FG = (208, 208, 208)

# The 16 basic colours (xterm's defaults, slightly softened).
BASIC = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]


def xterm256(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def parse(text):
    """Yields rows of (char, fg, bg, bold, reverse, underline)."""
    rows = []
    for line in text.split("\n"):
        row = []
        fg, bg, bold, rev, ul = None, None, False, False, False
        pos = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b])", line):
            if m.group(2) is not None:
                row.append((m.group(2), fg, bg, bold, rev, ul))
                continue
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold, rev, ul = None, None, False, False, False
                elif c == 1:
                    bold = True
                elif c == 22:
                    bold = False
                elif c == 4:
                    ul = True
                elif c == 24:
                    ul = False
                elif c == 7:
                    rev = True
                elif c == 27:
                    rev = False
                elif 30 <= c <= 37:
                    fg = BASIC[c - 30]
                elif 90 <= c <= 97:
                    fg = BASIC[c - 90 + 8]
                elif 40 <= c <= 47:
                    bg = BASIC[c - 40]
                elif 100 <= c <= 107:
                    bg = BASIC[c - 100 + 8]
                elif c == 39:
                    fg = None
                elif c == 49:
                    bg = None
                elif c in (38, 48) and i + 1 < len(codes):
                    if codes[i + 1] == 5 and i + 2 < len(codes):
                        col = xterm256(codes[i + 2])
                        i += 2
                    elif codes[i + 1] == 2 and i + 4 < len(codes):
                        col = tuple(codes[i + 2:i + 5])
                        i += 4
                    else:
                        col = None
                    if c == 38:
                        fg = col
                    else:
                        bg = col
                i += 1
            pos = m.end()
        rows.append(row)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def render(rows, cols, out):
    regular = ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE)
    bold = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE)
    cw = round(regular.getlength("M"))
    ch = SIZE + 5
    pad = 8
    img = Image.new("RGB", (cols * cw + 2 * pad, len(rows) * ch + 2 * pad), BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(rows):
        for x, (c, fg, bg, b, rev, ul) in enumerate(row):
            f, k = fg or FG, bg or BG
            if rev:
                f, k = k, f
            px, py = pad + x * cw, pad + y * ch
            if k != BG:
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=k)
            if c != " ":
                d.text((px, py + 1), c, font=bold if b else regular, fill=f)
            if ul:
                d.line([px, py + ch - 2, px + cw - 1, py + ch - 2], fill=f)
    img.save(out)


def main():
    src, out, cols = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src, encoding="utf-8") as fh:
        rows = parse(fh.read())
    render(rows, cols, out)


if __name__ == "__main__":
    main()
