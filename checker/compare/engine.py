"""A candidate layout against a spec fragment, by both engines: the plain-Python enumeration and z3
(checker.smt.compare). They must agree on the verdict and on the smallest counterexample, point
and cells; otherwise neither is trusted and the comparison fails with an error.

The points compared: the union of the spec's (its threads x its elements) and the candidate's
(every (t, i) it holds an element at). A point of one that the other does not hold differs, so
a candidate with more elements or threads than the spec differs at each point beyond the
spec's, and `differing` and `points` count them (over the union, per MMA computation).

The enumeration compares the spec's domain point by point and asks the candidate how many points
it holds beyond it, and the smallest (`outside`: arithmetic for a layout that holds its whole
threads x elements, a search for a table or a copy atom); z3 searches the union's bounding box,
independently, and the two must agree on the smallest counterexample."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from checker.compare.candidates import Candidate
from checker.errors import CheckerError
from checker.results import PROVED, UNKNOWN

MAX_BOX = 1 << 16  # a thread or element index z3 searches up to (checker.compare.candidates.MAX_COORD)


@dataclass(frozen=True)
class Difference:
    """The smallest point where the spec and the candidate differ."""

    computation: int | None  # the MMA computation (m8n8k4 .f16), or None
    thread: int  # the thread index as the candidate numbers it
    lane: int | None  # the spec's lane (or thread) for it; None: the spec has no such thread
    i: int
    element: str  # "a2"
    spec: tuple | None  # (row, col) the spec gives; None: the spec holds no such point
    candidate: tuple | None  # (row, col) the candidate gives; None: it holds no such point
    detail: str  # how the candidate got its cell (a CuTe index, ...)

    def sentence(self, operand: str) -> str:
        def cell(x):
            return "nothing" if x is None else f"{operand}[{x[0]}][{x[1]}]"
        who = f"thread {self.thread}" + (f" (lane {self.lane})" if self.lane not in (None, self.thread) else "")
        comp = f"MMA computation {self.computation}: " if self.computation is not None else ""
        spec = "the spec has no such element" if self.spec is None else f"the spec puts it at {cell(self.spec)}"
        why = f" ({self.detail})" if self.detail else ""
        cand = (f"the candidate holds no such element{why}" if self.candidate is None
                else f"the candidate gives {cell(self.candidate)}{why}")
        return f"{comp}{who} {self.element}: {spec}, {cand}"


@dataclass(frozen=True)
class Comparison:
    """What `compare_layout` proves: `equal` is True only when z3 proved the candidate equal to the
    spec's map at every point and the enumeration agrees; otherwise `difference` is the smallest
    point where they differ (both engines found it). `points`: the union of the spec's points and
    the candidate's (per MMA computation compared, summed); `differing`: how many of them differ,
    the candidate's points beyond the spec's domain included. `proofs`: one line per MMA
    computation compared, saying which queries proved what."""

    spec: str
    fragment: str
    candidate: str
    equal: bool
    points: int  # the spec's points and the candidate's, their union (per computation, summed)
    differing: int
    difference: Difference | None
    proofs: tuple = field(default_factory=tuple)
    operand: str = "A"
    # for m8n8k4 .f16: the other `computation=` values that prove the candidate equal (set by
    # checker.Layout.compare; `checker compare` says them as --computation hints)
    equal_with: tuple = field(default_factory=tuple)

    def to_json(self) -> dict:
        out = asdict(self)
        out["verdict"] = "equal" if self.equal else "differs"
        out["equal_with"] = list(self.equal_with)
        if self.difference is not None:
            out["difference"]["sentence"] = self.difference.sentence(self.operand)
        return out

    def summary(self) -> str:
        if self.equal:
            return (f"{self.spec} {self.fragment}: {self.candidate} equals the spec at all {self.points} points "
                    f"(z3 proved it; the enumeration agrees)")
        also = ""
        if self.equal_with:
            said = ", ".join("computation=None (the thread index is the lane)" if k is None else f"computation={k!r}"
                             for k in self.equal_with)
            also = f"; equal with {said}"
        return (f"{self.spec} {self.fragment}: {self.candidate} differs from the spec at {self.differing} of "
                f"{self.points} points; the first: {self.difference.sentence(self.operand)}{also}")


@dataclass(frozen=True)
class Target:
    """The spec's side: a reading (the spec's, or an erratum's printed text) over some threads."""

    reading: object
    lanes: tuple  # thread index t -> the spec's lane (thread)
    computation: int | None
    name: str  # for z3's query names


def targets(fragment, reading, computation="all") -> list:
    """The spec's maps a candidate is compared with. For a fragment held by several MMA computations
    (m8n8k4 .f16), `computation` N compares with computation N's lanes (the thread index is the
    position among them, as CuTe's SM70 quad-pair numbers threads), "all" with each in turn, and
    None with the whole warp (the thread index is the lane)."""
    name = f"{fragment.span.file}.{fragment.id}"
    if not fragment.computations or computation is None:
        return [Target(reading, tuple(range(fragment.threads.count)), None, name)]
    comps = fragment.computations if computation == "all" else [fragment.computations[computation - 1]]
    return [Target(reading, c.lanes, c.id, f"{name}.c{c.id}") for c in comps]


def _enumerate(target: Target, n: int, cand: Candidate):
    """(the smallest differing point with both cells, or None; how many points differ; how many
    points there are: the spec's and those the candidate holds beyond them)."""
    from checker.formula.evaluate import cells

    lanes = target.lanes
    points = [(t, i) for t in range(len(lanes)) for i in range(n)]
    rows, cols = cells(target.reading.layout, [(lanes[t], i) for t, i in points])
    got = cand.cells(points)
    first, count = None, 0
    for p, s, c in zip(points, zip(rows, cols), got):
        if s != c:
            first = first or (p, s, c)
            count += 1
    extra, beyond = cand.outside(len(lanes), n)
    if beyond is not None and (first is None or beyond < first[0]):
        first = (beyond, None, cand.cells([beyond])[0])
    return first, count + extra, len(points) + extra


def compare(target: Target, n: int, cand: Candidate, letter: str) -> tuple:
    """-> (Difference or None, differing count, points compared, proof line). Raises when the
    engines disagree."""
    from checker.smt import compare as smt_compare

    # z3 searches the union's bounding box, each side capped where an index stops fitting its terms:
    # the smallest point a candidate holds beyond the spec's lies below the cap ((0, n), (threads,
    # 0), or a table's entry, whose indices are below MAX_COORD). A table is given only the entries
    # that can be that answer (Candidate.within); every other candidate's form is already small.
    sought = cand.within(len(target.lanes), n)
    box = (min(max(len(target.lanes), sought.threads), MAX_BOX), min(max(n, sought.elements), MAX_BOX))
    first, count, points = _enumerate(target, n, cand)
    expect = None if first is None else first[0]
    z3 = smt_compare.differ(f"{target.name}.compare.{cand.kind}", target.reading, target.lanes, n, sought.form(),
                            box, expect)
    where = f" (MMA computation {target.computation})" if target.computation is not None else ""
    if z3.verdict == UNKNOWN:
        raise CheckerError(f"z3 could not decide whether {cand.describe()} equals the spec{where} ({z3.reason})")
    z3_at = None if z3.verdict == PROVED else (z3.witness["t"], z3.witness["i"])
    z3_cells = None if z3_at is None else (_cell(z3.witness["spec"]), _cell(z3.witness["candidate"]))
    py_cells = None if first is None else (first[1], first[2])
    if z3_at != expect or z3_cells != py_cells:
        raise CheckerError(f"the z3 and plain-Python engines disagree on {cand.describe()}{where} (z3: "
                           f"{z3_at or 'equal'} {z3_cells or ''}, enumeration: {expect or 'equal'} {py_cells or ''}), "
                           "so neither is trusted")
    if first is None:
        return None, 0, points, (f"z3 proved it equal at all {points} points{where} (query "
                         f"`{target.name}.compare.{cand.kind}.differ` unsat), and the enumeration agrees")
    (t, i), s, c = first
    lane = target.lanes[t] if t < len(target.lanes) else None
    # a candidate that can hold nothing at a point of its own domain may say why (a copy atom's bits)
    detail = cand.detail(t, i) if c is not None else cand.missing(t, i)
    diff = Difference(target.computation, t, lane, i, f"{letter}{i}", s, c, detail)
    return diff, count, points, (f"z3 found the smallest counterexample{where} at thread {t}, {letter}{i}, and the "
                         "enumeration agrees")


def _cell(x):
    return None if x is None else tuple(x)


def run(spec_name: str, fragment, reading, cand: Candidate, computation="all") -> Comparison:
    """The candidate against every target of the fragment; the first difference found wins."""
    if reading.layout is None:
        raise CheckerError(f"{fragment.span}: {fragment.id} has no formula to compare with")
    total = differing = 0
    first = None
    proofs = []
    for target in targets(fragment, reading, computation):
        diff, count, points, proof = compare(target, reading.n, cand, fragment.letter)
        total += points
        differing += count
        proofs.append(proof)
        if diff is not None and first is None:
            first = diff
    return Comparison(spec_name, fragment.id, cand.describe(), first is None, total, differing, first,
                      tuple(proofs), fragment.operand)
