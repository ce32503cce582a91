"""`checker table`: the layouts as data (design.md section 4), from the reading, not the print."""
from __future__ import annotations

from checker.properties.chunk import ranges
from checker.properties.enumerate import table as enumerate_table
from checker.terminal import lines as text_lines


def fragment_table(spec, fragment, reading) -> dict:
    tab = enumerate_table(reading.layout, fragment.holders(), reading.n)
    entries = []
    for (lane, i), (rows, cols, *_) in sorted(tab.items()):
        entries.append([lane, i, rows[0][1] if rows else None, cols[0][1] if cols else None])
    out = {
        "shape": spec.shape, "id": fragment.id, "operand": fragment.operand,
        "types": list(fragment.types), "layout": fragment.layout,
        "rows": fragment.rows, "cols": fragment.cols,
        "computations": [list(c.lanes) for c in fragment.computations] or None,
        "entries": entries,
    }
    if fragment.sparsity is not None:
        # entries are cells of the compressed A; ranges say which columns of A each element lies in
        sp = fragment.sparsity
        points = sorted(tab)
        _, firsts, lasts = ranges(reading.layout, points)
        out["sparse"] = {"k": sp.k, "granularity": f"{sp.nonzero}:{sp.chunk}", "pairwise": sp.pairwise,
                         "ranges": [[lane, i, f, la] for (lane, i), f, la in zip(points, firsts, lasts)]}
    return out


def render_text(t: dict, letter: str, band: int = 0) -> str:
    """The matrix as a grid, each cell `T<lane>:<element>`, as the document's figures draw it;
    one grid per MMA computation where the warp runs several. band > 0: at most that many columns
    side by side, the rest in further bands below (as the report's figures draw m16n8k256's A)."""
    head = f"{t['shape']} {t['id']} ({t['operand']}, {t['rows']}x{t['cols']}, types {', '.join(t['types'])})"
    if t.get("sparse"):
        sp = t["sparse"]
        head = (f"{t['shape']} {t['id']} (the compressed {t['operand']}, {t['rows']}x{t['cols']}: the non-zero elements "
                f"of a {t['rows']}x{sp['k']} {t['operand']} at {sp['granularity']}; types {', '.join(t['types'])})")
    groups = t["computations"] or [sorted({lane for lane, *_ in t["entries"]})]
    out = [head]
    for k, lanes in enumerate(groups):
        if t["computations"]:
            out.append(f"MMA computation {k + 1} (lanes {', '.join(map(str, lanes))})")
        out.extend(_grid(t, letter, set(lanes), band))
    return text_lines(out, end="")


def _grid(t: dict, letter: str, lanes: set, band: int = 0) -> list:
    grid = [["." for _ in range(t["cols"])] for _ in range(t["rows"])]
    for lane, i, r, c in t["entries"]:
        if lane in lanes and r is not None and c is not None and 0 <= r < t["rows"] and 0 <= c < t["cols"]:
            cell = f"T{lane}:{letter}{i}"
            grid[r][c] = cell if grid[r][c] == "." else grid[r][c] + "!"
    return drawn(grid, t["cols"], band)


def drawn(grid: list, cols: int, band: int = 0) -> list:
    """Lines of a grid of cell texts (rows of `cols` cells), right-aligned under column numbers,
    in bands of `band` columns (0: one band)."""
    width = max(len(x) for row in grid for x in row)
    step = band if band > 0 else cols
    lines = []
    for c0 in range(0, cols, step):
        shown = range(c0, min(cols, c0 + step))
        if step < cols:
            lines.append(f"columns {shown[0]}..{shown[-1]} of {cols}")
        lines.append("     " + " ".join(f"{c:>{width}}" for c in shown))
        for r, row in enumerate(grid):
            lines.append(f"{r:>4} " + " ".join(f"{row[c]:>{width}}" for c in shown))
    return lines
