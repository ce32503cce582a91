"""dimensions: the A, B and C/D fragments of one instruction agree on M, N and K, and each maps
onto its matrix (which the fragments' own proofs settle: derived from them, saying so)."""
from __future__ import annotations

import time

from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.semantics.variants import variants
from checker.errors import SpecError
from checker.spec.reading import header
from checker.theorems.family import TheoremFamily


_DIM_NAMES = {"A": ("M", "K"), "B": ("K", "N"), "C": ("M", "N")}


# a fragment's results where nothing was decided: its engines disagreed, or its task raised
_UNDECIDED = ("engines", "fragment")


def _proved(fragment_results, fid, props=("defined", "in-range", "covers")) -> tuple:
    """(every property in `props` of the fragment proved, the results that are not); a fragment
    whose proof gave no answer (a disagreement of the engines, a question z3 could not be asked)
    is undecided, as an unknown property is, never refuted."""
    mine = [r for r in fragment_results if r.fragment == fid and not r.erratum
            and (r.property in props or (r.property in _UNDECIDED and r.verdict == UNKNOWN))]
    bad = [r for r in mine if r.verdict != PROVED]
    return bool(mine) and not bad, bad


def dimensions(spec, fragment_results) -> list:
    out, seen = [], set()
    dims = {"M": spec.m, "N": spec.n, "K": spec.k}
    for v in variants(spec):
        key = (v.a.id, v.b.id, v.c.id, v.d.id)
        if key in seen:
            continue
        seen.add(key)
        t0 = time.perf_counter()
        subject = f"{v.a.id} x {v.b.id} -> {v.c.id}" + (f" / {v.d.id}" if v.d is not v.c else "")
        problems, undecided = [], 0
        for op, frag in (("A", v.a), ("B", v.b), ("C", v.c), ("D", v.d)):
            names = _DIM_NAMES["C" if op == "D" else op]
            want = tuple(dims[n] for n in names)
            if (frag.rows, frag.cols) != want:
                problems.append(f"{op} ({frag.id}) is {frag.rows}x{frag.cols}, not {'x'.join(names)} = {want[0]}x{want[1]}")
            ok, bad = _proved(fragment_results, frag.id)
            if not ok:
                undecided += bool(bad) and all(r.verdict == UNKNOWN for r in bad)
                what = ", ".join(sorted({r.property for r in bad})) or "its proofs"
                problems.append(f"{op} ({frag.id}) is not shown to map onto its {frag.rows}x{frag.cols} matrix ({what} failed)")
        for op, frag in (("C", v.c), ("D", v.d)):
            try:
                text = header(frag)
            except SpecError:
                continue  # an erratum that does not apply: reported with the fragment
            if f".{op.lower()}type" not in text:
                problems.append(f"{frag.id} holds {op} in {v.instruction}, but its table is headed {text!r}, "
                                f"not naming .{op.lower()}type: the document gives {op} no layout")
        per = " per MMA computation" if v.a.computations else ""
        if problems:
            # derived from what is unknown, and nothing refuted: the theorem is unknown, not false
            verdict = UNKNOWN if undecided == len(problems) else REFUTED
            out.append(Result(spec.path, None, "dimensions", verdict, time.perf_counter() - t0, str(v.c.span),
                              {"message": "; ".join(problems)}, subject=subject, message="; ".join(problems)))
            continue
        msg = (f"A is {spec.m}x{spec.k} (MxK), B {spec.k}x{spec.n} (KxN), C and D {spec.m}x{spec.n} (MxN){per}; "
               f"C and D share the layout of the tables headed '.ctype / .dtype'"
               + (f" (D of a .{v.dtype} result uses {v.d.id})" if v.d is not v.c else "")
               + "; derived from defined, in-range and covers of each fragment, proved above")
        out.append(Result(spec.path, None, "dimensions", PROVED, time.perf_counter() - t0, str(v.a.span),
                          subject=subject, message=msg))
    return out


FAMILY = TheoremFamily("dimensions", 30, "A, B and C/D fragments of one instruction agree on M, N and K",
                        ("mma",), lambda a: dimensions(a.spec, a.fragment_results), after_fragments=True,
                        readings_only=False)
