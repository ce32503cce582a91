"""SVG figures in the document's style: the matrix as a grid, each cell labelled with the lane
and element that hold it (`T5` over `a2`), coloured by lane; and the coverage heat map, how many
(lane, element) pairs land on each cell, with a counterexample marked.

Plain strings, no plotting stack: the output must be byte-for-byte the same on every machine,
because `checker report --check` compares it with the committed files.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

BAND = 32  # columns per band: m16n8k256 A (16 x 256) becomes 8 bands of 16 x 32 legible cells
CELL_W, CELL_H = 30, 26
HEAT = 16
MARGIN_L, MARGIN_T = 34, 30
PANEL_GAP = 28
FONT = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"
COMPUTATION_STROKE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def lane_fill(lane: int) -> str:
    """Light, distinct colours; neighbouring lanes far apart on the wheel, so the four lanes of a
    thread group (one row of an m16n8 fragment) never look alike."""
    hue = (lane * 7 % 32) * 360 // 32
    light = 84 if lane % 2 == 0 else 76
    return f"hsl({hue},70%,{light}%)"


@dataclass
class Panel:
    """One matrix: `cells` maps (row, col) to the (lane, element name) pairs that land there."""
    caption: str
    rows: int
    cols: int
    cells: dict
    marks: dict = field(default_factory=dict)  # (row, col) -> label: counterexample cells
    stroke: str | None = None  # an outline that tells the MMA computations of m8n8k4 apart


def _bands(cols: int) -> list:
    return [(c, min(cols, c + BAND)) for c in range(0, cols, BAND)]


def _panel_size(p: Panel, cw: int, ch: int) -> tuple:
    bands = _bands(p.cols)
    width = max(MARGIN_L + min(p.cols, BAND) * cw + 8, 12 + 15 * len(p.caption) // 2)
    height = 22 + len(bands) * (MARGIN_T - 12 + p.rows * ch + 10)
    return width, height


COLUMN = 1100  # the report's column: panels (m8n8k4's four computations) go side by side in as few
# rows as fit in it, each row holding as many as the others (2 x 2 rather than 3 + 1)


def _svg(width: int, height: int, title: str, body: list, lanes: bool = False) -> str:
    # Classes, not attributes, on the thousands of cells: m16n8k256 A is 4096 of them.
    style = [f"svg{{{FONT}}}", "text{font-size:9px;text-anchor:middle}", ".ax{fill:#555}",
             ".e{text-anchor:end}", ".s{text-anchor:start;font-size:10px}", ".bad{fill:#c00}",
             ".k{fill:none;stroke:#000;stroke-width:2.5}", ".w{fill:#fff}"]
    if lanes:
        style += [f".l{lane}{{fill:{lane_fill(lane)}}}" for lane in range(32)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">\n'
            f"<title>{escape(title)}</title>\n<style>{''.join(style)}</style>\n"
            '<rect width="100%" height="100%" fill="#ffffff"/>\n' + "".join(body) + "</svg>\n")


def _axes(out: list, x0: int, y0: int, c0: int, c1: int, rows: int, cw: int, ch: int) -> None:
    step = 1 if cw >= 20 else 4
    for c in range(c0, c1):
        if (c - c0) % step == 0 or c == c1 - 1:
            out.append(f'<text class="ax" x="{x0 + (c - c0) * cw + cw // 2}" y="{y0 - 4}">{c}</text>\n')
    for r in range(rows):
        out.append(f'<text class="ax e" x="{x0 - 4}" y="{y0 + r * ch + ch // 2 + 3}">{r}</text>\n')


def _panels(panels: list, cw: int, ch: int, draw) -> tuple:
    sizes = [_panel_size(p, cw, ch) for p in panels]
    per_row = _per_row([w for w, _ in sizes])
    out, x, y, width, height, row_h = [], 0, 0, 0, 0, 0
    for k, (p, (w, h)) in enumerate(zip(panels, sizes)):
        if k and k % per_row == 0:  # the next row of panels
            x, y, row_h = 0, y + row_h + PANEL_GAP, 0
        out.append(f'<text class="s" x="{x + 4}" y="{y + 15}" style="font-size:12px;font-weight:bold" '
                   f'fill="{p.stroke or "#222"}">{escape(p.caption)}</text>\n')
        yb = y + 22
        for c0, c1 in _bands(p.cols):
            x0, y0 = x + MARGIN_L, yb + MARGIN_T - 12
            _axes(out, x0, y0, c0, c1, p.rows, cw, ch)
            for r in range(p.rows):
                for c in range(c0, c1):
                    draw(out, p, r, c, x0 + (c - c0) * cw, y0 + r * ch)
            if p.stroke:
                out.append(f'<rect x="{x0 - 1}" y="{y0 - 1}" width="{(c1 - c0) * cw + 2}" '
                           f'height="{p.rows * ch + 2}" fill="none" stroke="{p.stroke}" stroke-width="3"/>\n')
            yb = y0 + p.rows * ch + 10
        width, height, row_h = max(width, x + w), max(height, y + h), max(row_h, h)
        x += w + PANEL_GAP
    return out, width, height + 4


def _per_row(widths: list) -> int:
    """Panels per row: all of them where they fit in the column, else the most that fit with every
    row but the last as full as the first."""
    for rows in range(1, len(widths) + 1):
        per = -(-len(widths) // rows)
        if all(sum(widths[k:k + per]) + PANEL_GAP * (len(widths[k:k + per]) - 1) <= COLUMN
               for k in range(0, len(widths), per)):
            return per
    return 1


def layout_svg(title: str, panels: list) -> str:
    """The document's figure: every cell says which lane holds it and as which element."""
    def draw(out, p, r, c, x, y):
        held = p.cells.get((r, c), [])
        if len(held) == 1:
            lane, name = held[0]
            out.append(f'<use href="#c" class="l{lane}" x="{x}" y="{y}"/><text x="{x + CELL_W // 2}" y="{y + 11}">'
                       f'T{lane}<tspan x="{x + CELL_W // 2}" dy="10">{name}</tspan></text>\n')
        else:  # a hole or an overlap: the document's figures never show one, so it must stand out
            label = "none" if not held else f"{len(held)}x"
            out.append(f'<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="#fff" stroke="#c00" '
                       f'stroke-width="2"/><text class="bad" x="{x + CELL_W // 2}" y="{y + 16}">{label}</text>\n')
        if (r, c) in p.marks:
            _mark(out, x, y, CELL_W, CELL_H, p.marks[(r, c)])

    body, width, height = _panels(panels, CELL_W, CELL_H, draw)
    cell = f'<defs><rect id="c" width="{CELL_W}" height="{CELL_H}" stroke="#fff"/></defs>\n'
    return _svg(width, height, title, [cell] + body, lanes=True)


HEAT_FILL = {0: "#d73027", 1: "#d9ead3"}


def heat_svg(title: str, panels: list) -> str:
    """How many (lane, element) pairs land on each cell: 1 everywhere is a bijection; a hole (0,
    red) or an overlap (2 or more, dark) stands out at any size."""
    def draw(out, p, r, c, x, y):
        n = len(p.cells.get((r, c), []))
        fill = HEAT_FILL.get(n, "#542788")
        out.append(f'<use href="#h" x="{x}" y="{y}"/>' if n == 1 else
                   f'<rect x="{x}" y="{y}" width="{HEAT}" height="{HEAT}" fill="{fill}" stroke="#fff"/>'
                   f'<text class="w" x="{x + HEAT // 2}" y="{y + 12}">{n}</text>')
        out.append("\n")
        if (r, c) in p.marks:
            _mark(out, x, y, HEAT, HEAT, p.marks[(r, c)])

    body, width, height = _panels(panels, HEAT, HEAT, draw)
    body.insert(0, f'<defs><rect id="h" width="{HEAT}" height="{HEAT}" fill="{HEAT_FILL[1]}" stroke="#fff"/></defs>\n')
    legend_y = height + 6
    body.append(f'<rect x="4" y="{legend_y}" width="12" height="12" fill="{HEAT_FILL[1]}"/>'
                f'<text class="s" x="20" y="{legend_y + 10}">1 holder</text>'
                f'<rect x="90" y="{legend_y}" width="12" height="12" fill="{HEAT_FILL[0]}"/>'
                f'<text class="s" x="106" y="{legend_y + 10}">0: hole</text>'
                f'<rect x="170" y="{legend_y}" width="12" height="12" fill="#542788"/>'
                f'<text class="s" x="186" y="{legend_y + 10}">2+: overlap</text>'
                f'<rect class="k" x="270" y="{legend_y}" width="12" height="12"/>'
                f'<text class="s" x="286" y="{legend_y + 10}">counterexample</text>\n')
    return _svg(max(width, 400), legend_y + 18, title, body)


def _mark(out: list, x: int, y: int, w: int, h: int, label: str) -> None:
    out.append(f'<rect class="k" x="{x - 1}" y="{y - 1}" width="{w + 2}" height="{h + 2}">'
               f'<title>{escape(label)}</title></rect>\n')
