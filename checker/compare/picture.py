"""The picture `checker compare --grid` draws: the candidate's layout as `checker table` draws a
spec's, each cell marked where the spec puts another element there. A kernel engineer whose
layout differs at 128 of 256 points sees the pattern of the mistake (a swapped stride moves whole
bands), which the smallest counterexample alone does not show."""
from __future__ import annotations

from checker.compare.engine import targets
from checker.formula.evaluate import cells


def grids(fragment, reading, candidate, computation) -> tuple:
    """([(heading or None, grid)], legend): one grid (rows of cell texts) per MMA computation
    compared (one for any other fragment), over the spec's points. A cell shows the thread and
    element the candidate puts there (its thread numbering), `*` after it where the spec puts
    another point there or nothing, `.` where the candidate puts nothing (`.*` where the spec puts
    something), `!` where the candidate puts two points."""
    out = []
    letter, n = fragment.letter, reading.n
    for target in targets(fragment, reading, computation):
        lanes = target.lanes
        points = [(t, i) for t in range(len(lanes)) for i in range(n)]
        rows, cols = cells(reading.layout, [(lanes[t], i) for t, i in points])
        spec = {(r, c): p for p, r, c in zip(points, rows, cols)}
        got: dict = {}
        for p, cell in zip(points, candidate.cells(points)):
            if cell is not None and 0 <= cell[0] < fragment.rows and 0 <= cell[1] < fragment.cols:
                got.setdefault(tuple(cell), []).append(p)
        grid = []
        for r in range(fragment.rows):
            row = []
            for c in range(fragment.cols):
                held = got.get((r, c), [])
                text = "." if not held else f"T{held[0][0]}:{letter}{held[0][1]}" + ("!" if len(held) > 1 else "")
                wrong = held != ([spec[(r, c)]] if (r, c) in spec else [])
                row.append(text + ("*" if wrong else ""))
            grid.append(row)
        heading = None if target.computation is None else (
            f"MMA computation {target.computation} (lanes {', '.join(map(str, lanes))}; T<k> is the k-th of them)")
        out.append((heading, grid))
    marked = sum(x.endswith("*") for _, grid in out for row in grid for x in row)
    legend = (f"each cell: the thread and element your layout puts there; * where the spec puts another "
              f"({marked} cells), . where yours puts none, ! where yours puts two; the spec's own grid: "
              f"checker table {fragment.span.file} --fragment {fragment.id}")
    return out, legend

