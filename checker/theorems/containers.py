"""The container theorem of ldmatrix .b8x16 specs: are the bits ldmatrix .b8x16.<format> leaves
a 4-bit or 6-bit value in the bits mma .kind::f8f6f4 reads it from?

    ldmatrix leaves   container = value << load_low | padding   (padding: zero, or any bits
                                                                 outside the value's, unsaid)
    mma reads         (container >> read_low) & (2^read_width - 1)

for every value (and padding); with `shift: s`, of a 32-bit register of four containers shifted
left by s (CuTe's fp4_shift_A / fp4_shift_B): is every container then exactly the document's,
the value in the bits mma reads and zero padding? Both engines decide it -- z3
(checker/smt/containers.py) and the enumeration below -- and must agree on the verdict and the
smallest counterexample (lexicographic over values, then paddings); `expect: refuted` states a
theorem that does not hold, its counterexample the point."""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from checker.errors import CheckerError, SpecError
from checker.loading import load_error
from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.smt import containers as smt_containers
from checker.theorems.run import pinned

PROPERTY = "containers"
MAX_POINTS = 1 << 20


class Disagreement(CheckerError):
    """The engines answered differently: a bug in one of them, never a verdict."""


@dataclass(frozen=True)
class Question:
    load_low: int
    load_width: int
    upper: str  # zero | unstated
    padding_mask: int  # the container bits outside the loaded value
    read_low: int
    read_width: int
    shift: int | None


def question(containers, theorem) -> Question:
    load, read = containers.loads[theorem.format], containers.reads[theorem.type]
    return Question(load.low, load.width, load.upper, load.padding_mask, read.low, read.width, theorem.shift)


def _paddings(q: Question) -> list:
    """Every padding the reading allows, ascending: 0 only, or each subset of the padding bits."""
    if q.upper == "zero":
        return [0]
    return [u for u in range(256) if u & ~q.padding_mask == 0]


def size(q: Question) -> int:
    n = 1 if q.shift is None else 4
    return ((1 << q.load_width) * len(_paddings(q))) ** n


def evaluate(q: Question):
    """The plain-Python engine: ('proved', None) or ('refuted', witness), the smallest point
    first, over every value and padding of one container (or of a register's four)."""
    # Imported here: only an ldmatrix .b8x16 spec asks this, and numpy costs a seed proof more
    # than z3's import does.
    import numpy as np

    n = 1 if q.shift is None else 4
    axes = [np.arange(1 << q.load_width, dtype=np.int64)] * n + [np.array(_paddings(q), dtype=np.int64)] * n
    grids = [g.ravel() for g in np.meshgrid(*axes, indexing="ij")]  # the first variable slowest
    values, pads = grids[:n], grids[n:]
    boxes = [(v << q.load_low) | u for v, u in zip(values, pads)]
    if q.shift is None:
        read = (boxes[0] >> q.read_low) & ((1 << q.read_width) - 1)
        wrong, shown = read != values[0], [boxes[0], read]
    else:
        register = sum(b << (8 * k) for k, b in enumerate(boxes))
        shifted = (register << q.shift) & 0xFFFFFFFF
        wrong = np.zeros(register.shape, dtype=bool)
        for k, v in enumerate(values):
            wrong |= ((shifted >> (8 * k)) & 0xFF) != (v << q.read_low)
        shown = [register, shifted]
    bad = np.flatnonzero(wrong)
    if bad.size == 0:
        return PROVED, None
    k = int(bad[0])
    return REFUTED, {"point": [int(g[k]) for g in grids], "shown": [int(s[k]) for s in shown]}


def describe(q: Question, theorem, w: dict) -> str:
    name = f"ldmatrix .b8x16.{theorem.format}"
    if q.shift is None:
        (v, u), (box, read) = w["point"], w["shown"]
        pad = f" and padding {u:#010b}" if q.upper != "zero" else ""
        return (f"the value {v:#0{q.load_width + 2}b}{pad}: {name} leaves the container {box:#010b}; mma .kind::f8f6f4 "
                f"reads .{theorem.type} from bits {q.read_low + q.read_width - 1}..{q.read_low}: {read:#0{q.read_width + 2}b}")
    values, (register, shifted) = w["point"][:4], w["shown"]
    return (f"the values {', '.join(f'{v:#0{q.load_width + 2}b}' for v in values)}: {name} leaves the register "
            f"{register:#010x}, shifted left by {q.shift} {shifted:#010x}, whose containers are not "
            f"{', '.join(f'{v << q.read_low:#010b}' for v in values)}")


def decide(q: Question, name: str, opts):
    """(verdict, witness, seconds, reason); both engines, or z3 alone without the cross-check."""
    t0 = time.perf_counter()
    py = evaluate(q) if opts.cross_check else None
    answer = smt_containers.prove(name, q, opts.dump_smt, expect=py)
    if py is not None and answer.verdict != UNKNOWN and (answer.verdict, answer.witness) != py:
        raise Disagreement(f"{name}: the z3 and plain-Python engines disagree, so neither is trusted: "
                           f"z3 says {answer.verdict} {answer.witness}, enumeration says {py[0]} {py[1]}")
    return answer.verdict, answer.witness, time.perf_counter() - t0, answer.reason


def prove(spec, opts) -> list:
    c = spec.containers
    if c is None:
        return []
    out = []
    for t in c.theorems:
        detail = {"format": t.format, "type": t.type, "standing": c.loads[t.format].standing,
                  "read_from": [f"{s.repo}@{s.commit[:12]}:{s.path}:{s.lines[0]}-{s.lines[1]}"
                                for s in c.loads[t.format].read_from]}
        q = question(c, t)
        try:
            if size(q) > MAX_POINTS:
                raise SpecError(t.span, f"{t.id} ranges over {size(q)} points; the bound is {MAX_POINTS}")
            verdict, w, seconds, reason = decide(q, t.id, opts)
        except Disagreement as exc:
            out.append(Result(spec.path, None, PROPERTY, UNKNOWN, 0.0, str(t.span), subject=t.id, message=str(exc)))
            continue
        except SpecError as exc:
            out.append(load_error(spec.path, exc).but(subject=t.id))
            continue
        where = str(t.span)
        if verdict == UNKNOWN:
            r = Result(spec.path, None, PROPERTY, UNKNOWN, seconds, where, subject=t.id, message=f"z3 could not decide {t.id}: {reason}")
        elif verdict == PROVED:
            ok = t.expect == "holds"
            r = Result(spec.path, None, PROPERTY, PROVED if ok else REFUTED, seconds, where, subject=t.id,
                       message=t.statement if ok else f"expected to be refuted, but it holds: {t.statement}")
        else:
            cex = {"point": w["point"], "shown": w["shown"], "message": describe(q, t, w)}
            moved = pinned(None if t.witness is None else list(t.witness), w["point"]) if t.expect == "refuted" else None
            declared = t.expect == "refuted" and moved is None
            msg = (f"{t.statement.rstrip('.')}: refuted as declared ({cex['message']})" if declared
                   else f"{moved} ({cex['message']})" if moved else f"does not hold: {cex['message']}")
            r = Result(spec.path, None, PROPERTY, REFUTED, seconds, where, cex, subject=t.id, declared=declared, message=msg)
        out.append(r.but(detail=detail))
    return out


def points(q: Question):
    """Every (values..., paddings...) in the engines' order: for tests."""
    n = 1 if q.shift is None else 4
    return itertools.product(*([range(1 << q.load_width)] * n + [_paddings(q)] * n))
