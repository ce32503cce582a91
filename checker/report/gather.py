"""What a coverage report shows, gathered once from the results of proving the specs: each
fragment's tables and figures from the reading and, for each erratum, from the document as printed."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from checker.errors import SpecError
from checker.formula.evaluate import cells as evaluate_cells
from checker.properties.chunk import ranges as chunk_ranges
from checker.report.figures import COMPUTATION_STROKE, Panel
from checker.results import SPEC_ERROR, Result
from checker.spec.load import load_spec
from checker.spec.reading import formula, materialize
from checker.files import is_relations_file


@dataclass
class ErratumView:
    erratum: object  # model.Erratum
    results: list  # what the printed text fails, each with its counterexample
    heat: list | None  # panels of the printed layout; None where it does not parse


@dataclass
class FragmentView:
    spec: object
    fragment: object
    results: list
    document: str  # the formula block as printed
    reading: str  # with every erratum applied
    layout: list = field(default_factory=list)  # panels
    errata: list = field(default_factory=list)
    error: Result | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(not r.failed() for r in self.results)


@dataclass
class SpecView:
    path: str
    spec: object | None
    fragments: list
    theorems: list  # results about several fragments
    errors: list  # load errors
    relations: bool = False
    figures_only: list = field(default_factory=list)  # (fragment, its results): drawn only, tables checked
    results: list = field(default_factory=list)  # every result of the file


@dataclass
class Report:
    specs: list
    results: list
    hardware: dict  # (shape, operand, type) -> dumps that agree; see isa.py
    hardware_dumps: int = 0  # hardware dumps whose every check passes
    untranscribed: list = field(default_factory=list)  # complete.Group: the document's figures no spec transcribes


def key(r: Result) -> str:
    """Stable across runs: how a result's timing is found again in timings.json."""
    return "|".join(str(x) for x in (r.spec, r.fragment, r.computation, r.property, r.subject, r.erratum,
                                      r.detail.get("dump")))


def gather(files: list, results: list, hardware: dict, hardware_dumps: int) -> Report:
    """The views of `files`, from the results of proving them (the command proves: checker/commands/report.py)."""
    by_spec: dict = {}
    for r in results:
        by_spec.setdefault(r.spec, []).append(r)
    views = []
    for path in files:
        mine = by_spec.get(path, [])
        errors = [r for r in mine if r.property == "load" and r.fragment is None]
        theorems = [r for r in mine if r.subject is not None]
        if is_relations_file(path) or errors:
            views.append(SpecView(path, None, [], theorems, errors, is_relations_file(path), results=mine))
            continue
        spec = load_spec(path)
        frags = [_fragment(spec, f, [r for r in mine if r.fragment == f.id and r.subject is None])
                 for f in spec.fragments()]
        drawn = [(f, [r for r in mine if r.fragment == f.id and r.subject is None])
                 for s in spec.sections for f in s.figures_only]
        views.append(SpecView(path, spec, frags, theorems, [], figures_only=drawn, results=mine))
    return Report(views, results, hardware, hardware_dumps)


def _fragment(spec, fragment, results) -> FragmentView:
    errors = [r for r in results if r.verdict == SPEC_ERROR]
    document = fragment.formula.text
    try:
        reading_text = formula(fragment)
        reading = materialize(fragment)
    except SpecError:
        return FragmentView(spec, fragment, results, document, document, error=errors[0] if errors else None)
    view = FragmentView(spec, fragment, results, document, reading_text)
    marks = _marks([r for r in results if not r.erratum and r.counterexample])
    view.layout = panels(fragment, reading.layout, reading.n, marks)
    for e in fragment.errata:
        mine = [r for r in results if r.erratum and _of(r, e)]
        heat = None
        if e.field == "formula":  # other errata leave the map as it is: no figure to show
            printed = materialize(fragment, e, reading.n)
            if printed.layout is not None:
                heat = panels(fragment, printed.layout, reading.n, _marks(mine))
        view.errata.append(ErratumView(e, mine, heat))
    return view


def _of(r: Result, e) -> bool:
    return (r.counterexample or {}).get("erratum_at") == str(e.span) or r.location == str(e.span)


def _marks(results) -> dict:
    """(computation, cell) -> what the counterexample says about it."""
    out = {}
    for r in results:
        cell = (r.counterexample or {}).get("cell")
        if cell is not None:
            out.setdefault((r.computation, tuple(cell)), f"{r.property}: {r.message}")
    return out


def panels(fragment, layout, n, marks) -> list:
    """One panel per MMA computation (one for the whole warp but for m8n8k4 .f16), each cell with
    the (lane, element) pairs that the layout sends there, as the first applying piece gives it."""
    out = []
    # a wgmma fragment at N = 256 has 16384 points and is drawn at every N: the element names are
    # made once, and the cells come from the column-wise engine, not a point at a time
    names = [f"{fragment.letter}{i}" for i in range(n)]
    for k, (cid, lanes) in enumerate(fragment.domains()):
        points = [(lane, i) for lane in sorted(lanes) for i in range(n)]
        rows, cols = evaluate_cells(layout, points, missing=None)
        cells: dict = {}
        for (lane, i), row, col in zip(points, rows, cols):
            if row is not None and col is not None:
                cells.setdefault((row, col), []).append((lane, names[i]))
        caption = f"{fragment.operand} ({fragment.rows} x {fragment.cols})"
        if fragment.sparsity is not None:
            caption = f"the compressed {fragment.operand} ({fragment.rows} x {fragment.cols}): non-zero elements only"
        stroke = None
        if cid is not None:
            comp = fragment.computations[k]
            caption = f"MMA computation {cid}: lanes {_ranges(comp.lanes)}"
            stroke = COMPUTATION_STROKE[k % len(COMPUTATION_STROKE)]
        mine = {cell: label for (c, cell), label in marks.items() if c == cid}
        out.append(Panel(caption, fragment.rows, fragment.cols, cells, mine, stroke))
    if fragment.sparsity is not None:
        out.append(_sparse_panel(fragment, layout, n))
    return out


def _sparse_panel(fragment, layout, n) -> Panel:
    """A itself, as the document's sparse figures draw it: every column of a register's range
    [firstcol ... lastcol] marked with the lane and the elements that hold its non-zero ones."""
    per = fragment.sparsity.per_register
    points = [(lane, i) for lane in range(fragment.threads.count) for i in range(0, n, per)]
    rows, firsts, lasts = chunk_ranges(layout, points)
    cells: dict = {}
    for (lane, i), r, first, last in zip(points, rows, firsts, lasts):
        names = f"{fragment.letter}{i}" if per == 1 else (
            f"{fragment.letter}{i},{fragment.letter}{i + 1}" if per == 2 else f"{fragment.letter}{i}..{i + per - 1}")
        for c in range(max(first, 0), min(last, fragment.sparsity.k - 1) + 1):
            if 0 <= r < fragment.rows:
                cells.setdefault((r, c), []).append((lane, names))
    caption = (f"{fragment.operand} ({fragment.rows} x {fragment.sparsity.k}): each register's range "
               f"[firstcol ... lastcol]; the metadata picks its non-zero columns")
    return Panel(caption, fragment.rows, fragment.sparsity.k, cells, {}, None)


def _ranges(lanes) -> str:
    runs: list = []
    for lane in lanes:
        if runs and runs[-1][1] == lane - 1:
            runs[-1][1] = lane
        else:
            runs.append([lane, lane])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in runs)


def slug(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]
