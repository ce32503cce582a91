"""The wgmma family's theorems: what ties a warpgroup's register fragments to each other and to
the warp-level mma.sync fragments they are made of. Each is a cell equation (checker.theorems.
equation), proved by both engines over the 128 threads of the warpgroup.

  warp-rows      warp w of the warpgroup (threads 32w..32w+31) holds only rows 16w..16w+15 (with
                 each instance's injective and covers: exactly those rows)
  mma-tiles      within a warp, D is the m16n8 C/D fragment of mma.sync (m16n8k16 C.float)
                 tiled N/8 times along N: d(4j + i) of thread t is c_i of lane t % 32, 16 rows
                 down per warp and 8j columns right
  a-stacked      a register A is four mma.sync A fragments of the same K stacked one per warp
                 (m16n8k16 A.f16 for k16, ...): a_i of thread t is a_i of lane t % 32, 16w rows down
  d-to-a-reuse   D as .f32, converted to .f16 (or D as .f16 as it is), is register for register the
                 A of the next m64nNk16: column block j (columns 16j..16j+15) is a_i = d(8j + i),
                 A register r = D elements 8j + 2r, 8j + 2r + 1; where N is an odd multiple of 8
                 the last 8 columns give a0..a3 only. The same reuse into the A of m64nNk8 .tf32
                 (a_i = d(4j + i)) is refuted, as declared: that A holds columns t and t + 4, D
                 columns 2t and 2t + 1.

A parametric fragment whose instances are one map over nested domains (checker/properties/
instances.py) is asked at its largest N: each smaller N's equation is a part of that one. Where
the formula uses N, every instance is asked. The mma.sync fragments come from the specs beside
(m16n8k16.yaml, ...); where one is not there its theorems are not asked, and the message of
warp-rows says so."""
from __future__ import annotations

import os
from types import SimpleNamespace

from checker import recording
from checker.errors import SpecError
from checker.families import WGMMA_NEXT_A, WGMMA_REUSE_TF32, WGMMA_STACKED, WGMMA_TILE
from checker.formula.parser import parse_expr
from checker.loading import load, load_error
from checker.properties.instances import family
from checker.results import PROVED, Result
from checker.spec.reading import materialize
from checker.source import plain
from checker.theorems.equation import Equation, Side
from checker.theorems.relations import placed
from checker.theorems.run import equation_result
from checker.theorems.family import TheoremFamily

PROPERTY = "warpgroup"
# the fragments beside these theorems read; the scope rule reads the same (checker/families.py)
STACKED, TILE, NEXT_A, REUSE_TF32 = WGMMA_STACKED, WGMMA_TILE, WGMMA_NEXT_A, WGMMA_REUSE_TF32


def theorems(spec, readings, opts) -> list:
    """`readings`: fragment id -> its reading (the mutation campaign puts a mutant's in)."""
    out = []
    beside = Beside(spec)
    for frs in _fragments(spec):
        f = frs[-1]
        asked = [f] if len(frs) == 1 or family(spec, f) is not None else frs
        every = _every(frs, asked)
        for g in asked:
            r = readings[g.id] if g.id in readings else materialize(g)
            tie = None  # mma-tiles or a-stacked: the warp's rows follow from it where it holds
            if g.operand == "D":
                c = beside.reading(*TILE)
                if c is not None:
                    tie = (_tiles(spec, r, c, opts, every), c)
                rest = _reuse(spec, r, beside, opts, every)
            else:
                rest = []
                if spec.k in STACKED and (a := beside.reading(*STACKED[spec.k])) is not None:
                    tie = (_stacked(spec, r, a, opts), a)
            out.append(_rows_of(spec, r, opts, every, tie))
            out += ([tie[0]] if tie else []) + rest
    return out + beside.errors


def _rows_of(spec, r, opts, every, tie):
    """warp-rows: derived where the tie to mma.sync holds (each row is a row of a 16-row mma
    fragment, 16w down; that fragment's in-range is proved with its spec), else asked."""
    if tie is None or tie[0].verdict != PROVED or tie[1].fragment.rows != 16:
        return warp_rows(spec, r, opts, every)
    f, subject = r.fragment, tie[0].subject.split(": ", 1)[0]
    other = f"{tie[1].fragment.id} of m16n8k{16 if subject == 'mma-tiles' else spec.k}"
    return Result(spec.path, None, PROPERTY, PROVED, 0.0, str(f.span), subject=f"warp-rows: {f.id}",
                  message=f"warp w (threads 32w..32w+31) holds only rows 16w..16w+15 of {f.operand}; with injective "
                          f"and covers of {f.id}, exactly those rows{every}; derived: {subject} proved above places "
                          f"each of its cells 16w below a cell of {other}, whose rows are 0..15 (its in-range, "
                          "proved with its spec)")


def _fragments(spec) -> list:
    """Each fragment's instances, smallest N first: [[D.float[N=8], ..., D.float[N=256]], [A.f16]]."""
    groups: dict = {}
    for f in spec.fragments():
        groups.setdefault(f.span, []).append(f)
    return [sorted(frs, key=lambda g: g.cols) for frs in groups.values()]


def _every(frs, asked) -> str:
    if len(frs) == 1:
        return ""
    if len(asked) == 1:
        values = [dict(g.params)["N"] for g in frs]
        shown = ", ".join(map(str, values)) if len(values) < 5 else f"{values[0]}, {values[1]}, ..., {values[-1]}"
        return (f"; asked at N = {values[-1]}, so it holds at every N ({shown}, {len(values)} values): each "
                "instance is this map on a part of its domain (one formula, which does not name N)")
    return "; asked at each N (the formula names N)"


class Beside:
    """shape/id -> the reading of an mma.sync or wgmma fragment of the spec beside, read once."""

    def __init__(self, spec):
        self.spec, self.specs, self.errors = spec, {}, []

    def reading(self, shape, fid):
        if shape == self.spec.shape:
            other = self.spec
        else:
            if shape not in self.specs:
                path = os.path.join(os.path.dirname(self.spec.path), f"{shape}.yaml")
                self.specs[shape] = None
                if recording.isfile(path):  # recorded: the theorem rests on the file being there
                    other, errors = load(path)  # once per process per bytes (checker/spec/load.py)
                    self.specs[shape] = other
                    self.errors += [self.unchecked(shape, e) for e in errors or ()]
            other = self.specs[shape]
        frag = other.fragment(fid) if other is not None else None
        if frag is None:
            return None
        try:
            return materialize(frag)
        except SpecError as exc:
            self.errors.append(self.unchecked(shape, load_error(other.path, exc)))
            return None

    def unchecked(self, shape, error):
        """The error of the spec beside as this spec's theorem's result: where that spec is proved
        too it reports its own error, and the same line twice read as two errors."""
        return error.but(spec=self.spec.path, property=PROPERTY, subject=f"{self.spec.shape} with {shape}",
                         message=f"not checked: {error.message}")


def side(name, reading, at, element, lane=None, row=None, col=None) -> Side:
    texts = {"element": element, "lane": lane, "row": row, "col": col}
    src = {k: plain(v, at) for k, v in texts.items() if v is not None}
    nodes = {k: parse_expr(s) for k, s in src.items()}
    return Side(name, reading, nodes.get("lane"), nodes["element"], nodes.get("row"), nodes.get("col"), src)


def fragment_name(spec, r) -> str:
    return f"{spec.shape}/{r.fragment.id}"


def stacked(spec, r, a, a_name: str, theorem: str) -> Equation:
    """A warpgroup's register A (reading r) as four warp-level A fragments (reading a), one per
    warp: a_i of thread t is a_i of lane t % 32, 16w rows down."""
    f, at = r.fragment, r.fragment.span
    left = side(fragment_name(spec, r), r, at, "i")
    right = side(a_name, a, at, "i", lane="%tid % 32", row="row + 16 * (%tid / 32)")
    return equation(f"{spec.shape}.{theorem}.{f.id}", [("i", 0, r.n)], left, right, at)


def equation(eq_id, variables, left, right, at) -> Equation:
    threads = left.reading.fragment.threads.count
    return Equation(eq_id, tuple((v, tuple(range(lo, hi))) for v, lo, hi in variables), tuple(range(threads)),
                    left, right, at)


_PROVED: set = set()  # equations proved in this process, by what decides them (see _key)


def _structure(layout) -> tuple:
    """A layout as its lowered formulas (not their text: a mutant is a changed tree under the same
    text); equal for the same formula text wherever it is written."""
    return layout.definitions, layout.row, layout.col, layout.bound


def _key(eq) -> tuple:
    """What decides an equation: each side's formula text (errata applied), who holds it, its
    element count and the side's expressions; the variables and threads. The four wgmma specs
    print one D formula, so their D theorems are one equation each."""
    sides = tuple((_structure(s.reading.layout), s.reading.fragment.letter, s.reading.fragment.threads, s.reading.n,
                   tuple(sorted((k, v.text) for k, v in s.src.items()))) for s in (eq.left, eq.right))
    return sides, eq.variables, eq.lanes


def result(spec, eq, opts, subject, holds, expect="holds", fails=""):
    key = (_key(eq), bool(opts.cross_check))  # a proof without the enumeration answers no run that asks for it
    if expect == "holds" and key in _PROVED:
        # the same words as when it is asked: which spec of a run asks first must not change a report
        return Result(spec.path, None, PROPERTY, PROVED, 0.0, str(eq.span), subject=subject, message=holds)
    r = equation_result(eq, opts, spec.path, PROPERTY, subject, str(eq.span), expect=expect, holds=holds, fails=fails)
    if expect == "holds" and r.verdict == PROVED:
        _PROVED.add(key)
    # at the formula that gives the differing cell, on either side, as a relation is: an edit
    # of m16n8k16's C.float breaks this theorem of the wgmma spec, and relations.blame moves
    # the location to the side the run's failures point at (the theorem's line is a note)
    return placed(spec.path, SimpleNamespace(equation=eq, span=eq.span), r)


def warp_rows(spec, r, opts, every):
    f, at = r.fragment, r.fragment.span
    left = side(fragment_name(spec, r), r, at, "i", row="row / 16", col="0")
    right = side(fragment_name(spec, r), r, at, "i", row="%tid / 32", col="0")
    eq = equation(f"{spec.shape}.warp-rows.{f.id}", [("i", 0, r.n)], left, right, at)
    letter = f.letter
    return result(spec, eq, opts, f"warp-rows: {f.id}",
                   f"warp w (threads 32w..32w+31) holds only rows 16w..16w+15 of {f.operand} ({letter}0..{letter}{r.n - 1} "
                   f"of every thread); with injective and covers of {f.id}, exactly those rows{every}")


def _tiles(spec, r, c, opts, every):
    f, at = r.fragment, r.fragment.span
    left = side(fragment_name(spec, r), r, at, "i")
    right = side("/".join(TILE), c, at, "i % 4", lane="%tid % 32", row="row + 16 * (%tid / 32)",
                  col="col + 8 * (i / 4)")
    eq = equation(f"{spec.shape}.mma-tiles.{f.id}", [("i", 0, r.n)], left, right, at)
    return result(spec, eq, opts, f"mma-tiles: {f.id} and {'/'.join(TILE)}",
                   f"within warp w, {f.id} is the m16n8 C/D fragment of mma.sync ({'/'.join(TILE)}) tiled "
                   f"{f.cols // 8} times along N: d(4j + i) of thread t is c_i of lane t % 32, at row + 16w and "
                   f"col + 8j{every}")


def _stacked(spec, r, a, opts):
    f, a_name = r.fragment, f"{STACKED[spec.k][0]}/{a.fragment.id}"
    return result(spec, stacked(spec, r, a, a_name, "a-stacked"), opts, f"a-stacked: {f.id} and {a_name}",
                  f"{f.id} is four {a_name} fragments of mma.sync stacked one per warp: a_i of thread t is a_i of "
                  f"lane t % 32, 16w rows down")


def _reuse(spec, r, beside, opts, every) -> list:
    f, at = r.fragment, r.fragment.span
    out = []
    if not {"f32", "f16"} & set(f.types):
        return out
    a = beside.reading(*NEXT_A)
    if a is not None and f.cols >= 16:
        name = "/".join(NEXT_A)
        left = side(name, a, at, "i", col="col + 16 * j")
        right = side(fragment_name(spec, r), r, at, "8 * j + i")
        eq = equation(f"{spec.shape}.d-to-a-reuse.{f.id}", [("j", 0, f.cols // 16), ("i", 0, 8)], left, right, at)
        out.append(result(spec, eq, opts, f"d-to-a-reuse: {f.id} to {name}",
                           f"{f.id} as .f32 converted to .f16 (cvt.rn.f16x2.f32 of d(8j + 2r), d(8j + 2r + 1)), or as "
                           f".f16 as it is, is register for register the A of the next m64nNk16 for column block j "
                           f"(columns 16j..16j+15), every j < N/16: a_i = d(8j + i); where N is an odd multiple of 8 "
                           f"the last 8 columns give a0..a3 only (the block's first half){every}"))
    tf32 = beside.reading(*REUSE_TF32)
    if tf32 is not None and f.cols >= 8 and spec.k == 8:
        name = "/".join(REUSE_TF32)
        left = side(name, tf32, at, "i", col="col + 8 * j")
        right = side(fragment_name(spec, r), r, at, "4 * j + i")
        eq = equation(f"{spec.shape}.d-to-a-reuse.tf32.{f.id}", [("j", 0, f.cols // 8), ("i", 0, 4)], left, right, at)
        out.append(result(spec, eq, opts, f"d-to-a-reuse: {f.id} to {name}",
                           "", expect="refuted",
                           fails=(f"{f.id} is not register for register the .tf32 A of the next m64nNk8 "
                                  f"(a_i = d(4j + i) over column block j of 8): that A holds columns t and t + 4 "
                                  f"of a thread's quad, D columns 2t and 2t + 1; the reuse needs a shuffle: "
                                  f"refuted as declared")))
    return out


FAMILY = TheoremFamily("warpgroup", 90, "A warpgroup's fragments are the mma.sync fragments its warps hold, "
                        "and D is the next A where declared", ("wgmma",), lambda a: theorems(a.spec, a.readings, a.opts))
