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
from checker.theorems.family import TheoremFamily

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


def _bytes(parts: list, n: int) -> list:
    """sum(part_k << 8k) for each choice of one of `parts` for each of n bytes, the first byte's
    choice slowest."""
    out = [0]
    for k in range(n):
        out = [w | p << (8 * k) for w in out for p in parts]
    return out


def evaluate(q: Question):
    """The plain-Python engine: ('proved', None) or ('refuted', witness), the smallest point
    first, over every value and padding of one container (or of a register's four).

    Lists of Python ints, not numpy: numpy's import (78 ms on an idle 2-core machine) was more
    than this whole enumeration (26 ms for the 65536 points of a shifted register), and each
    worker that drew a containers task paid it. Every point's container (or register) is
    computed and compared, a block of points with one first value at a time, so a question of
    MAX_POINTS points holds one first value's share of them at once (a sixteenth for 4-bit values)."""
    n = 1 if q.shift is None else 4
    values, pads = range(1 << q.load_width), _paddings(q)
    loaded = _bytes([v << q.load_low for v in values], n)  # the values' bits of each point's boxes
    padded = _bytes(pads, n)  # and the paddings' bits, each point's values before its paddings
    if q.shift is None:
        mask = (1 << q.read_width) - 1
        meant = list(values)
    else:
        meant = _bytes([v << q.read_low for v in values], n)  # each container the value where mma reads it
    block = len(loaded) // len(values)
    for first in range(0, len(loaded), block):
        boxes = [w | u for w in loaded[first:first + block] for u in padded]
        if q.shift is None:
            shown = [(b >> q.read_low) & mask for b in boxes]
        else:
            shown = [(b << q.shift) & 0xFFFFFFFF for b in boxes]
        wanted = [w for w in meant[first:first + block] for _ in padded]
        if shown != wanted:
            k = next(k for k, (a, b) in enumerate(zip(shown, wanted)) if a != b)
            v, u = divmod(first * len(padded) + k, len(padded))
            point = [v // len(values) ** (n - 1 - j) % len(values) for j in range(n)] + \
                    [pads[u // len(pads) ** (n - 1 - j) % len(pads)] for j in range(n)]
            return REFUTED, {"point": point, "shown": [boxes[k], shown[k]]}
    return PROVED, None


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


FAMILY = TheoremFamily("containers", 80, "A 4- or 6-bit value ldmatrix loads is in the bits mma reads it from, "
                        "or is not, as declared", ("ldmatrix",), lambda a: prove(a.spec, a.opts))
