"""A candidate layout against a spec fragment, by both engines: the plain-Python enumeration and z3
(checker.smt.compare). They must agree on the verdict and on the smallest counterexample, point
and cells; otherwise neither is trusted and the comparison fails with an error.

The points compared: the spec's domain (its threads x its elements) and the candidate's. The
smallest counterexample in (t, i) order always lies where t <= the spec's threads and i <= its
elements (a candidate with more threads or elements differs at (threads, 0) or (0, elements) at
the latest), so both engines search that box, whatever the candidate's own domain."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from checker.errors import CheckerError
from checker.results import PROVED, UNKNOWN


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
    point where they differ (both engines found it), `differing` how many of the spec's points
    differ. `proofs`: one line per MMA computation compared, saying which queries proved what."""

    spec: str
    fragment: str
    candidate: str
    equal: bool
    points: int  # the spec's points compared (threads x elements, per computation)
    differing: int
    difference: Difference | None
    proofs: tuple = field(default_factory=tuple)
    operand: str = "A"

    def to_json(self) -> dict:
        out = asdict(self)
        out["verdict"] = "equal" if self.equal else "differs"
        if self.difference is not None:
            out["difference"]["sentence"] = self.difference.sentence(self.operand)
        return out

    def summary(self) -> str:
        if self.equal:
            return (f"{self.spec} {self.fragment}: {self.candidate} equals the spec at all {self.points} points "
                    f"(z3 proved it; the enumeration agrees)")
        return (f"{self.spec} {self.fragment}: {self.candidate} differs from the spec at {self.differing} of "
                f"{self.points} points; the first: {self.difference.sentence(self.operand)}")


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


def _enumerate(target: Target, n: int, cand, box: tuple):
    """(the smallest differing point or None, how many of the spec's points differ)."""
    from checker.formula.evaluate import cells

    lanes = target.lanes
    spec_pts = [(lanes[t], i) for t in range(len(lanes)) for i in range(n)]
    rows, cols = cells(target.reading.layout, spec_pts)
    spec = {(t, i): (rows[t * n + i], cols[t * n + i]) for t in range(len(lanes)) for i in range(n)}
    points = [(t, i) for t in range(box[0]) for i in range(box[1])]
    got = cand.cells(points)
    first, count = None, 0
    for p, c in zip(points, got):
        s = spec.get(p)
        if s != c:
            if first is None:
                first = (p, s, c)
            if s is not None:
                count += 1
    return first, count


def compare(target: Target, n: int, cand, letter: str) -> tuple:
    """-> (Difference or None, differing count, proof line). Raises when the engines disagree."""
    from checker.smt import compare as smt_compare

    box = (min(max(len(target.lanes), cand.threads), len(target.lanes) + 1), min(max(n, cand.elements), n + 1))
    first, count = _enumerate(target, n, cand, box)
    expect = None if first is None else first[0]
    z3 = smt_compare.differ(f"{target.name}.compare.{cand.kind}", target.reading, target.lanes, n, cand.form(),
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
    points = len(target.lanes) * n
    if first is None:
        return None, 0, (f"z3 proved it equal at all {points} points{where} (query "
                         f"`{target.name}.compare.{cand.kind}.differ` unsat), and the enumeration agrees")
    (t, i), s, c = first
    lane = target.lanes[t] if t < len(target.lanes) else None
    # a candidate that can hold nothing at a point of its own domain may say why (a copy atom's bits)
    detail = cand.detail(t, i) if c is not None else getattr(cand, "missing", lambda t, i: "")(t, i)
    diff = Difference(target.computation, t, lane, i, f"{letter}{i}", s, c, detail)
    return diff, count, (f"z3 found the smallest counterexample{where} at thread {t}, {letter}{i}, and the "
                         "enumeration agrees")


def _cell(x):
    return None if x is None else tuple(x)


def run(spec_name: str, fragment, reading, cand, computation="all") -> Comparison:
    """The candidate against every target of the fragment; the first difference found wins."""
    if reading.layout is None:
        raise CheckerError(f"{fragment.span}: {fragment.id} has no formula to compare with")
    total = differing = 0
    first = None
    proofs = []
    for target in targets(fragment, reading, computation):
        diff, count, proof = compare(target, reading.n, cand, fragment.letter)
        total += len(target.lanes) * reading.n
        differing += count
        proofs.append(proof)
        if diff is not None and first is None:
            first = diff
    return Comparison(spec_name, fragment.id, cand.describe(), first is None, total, differing, first,
                      tuple(proofs), fragment.operand)
