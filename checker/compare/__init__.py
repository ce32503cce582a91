"""Compare a layout of one's own -- a CuTe TV layout, Triton linear-layout bases, a table, a formula,
or any function (thread, i) -> (row, col) -- with a spec fragment, proved by z3 and by the
plain-Python enumeration, which must agree.

    from checker.compare import compare_layout
    from checker.spec.load import load_spec

    frag = load_spec("specs/m16n8k16.yaml").fragment("A.f16")
    result = compare_layout(frag, lambda t, i: (t // 4 + 8 * (i // 2 % 2), t % 4 * 2 + i % 2 + 8 * (i // 4)))
    assert result.equal, result.summary()

The result is a `Comparison` (checker.compare.engine): `equal`, `points`, `differing`, and
`difference`, the smallest (thread, i) where the two differ with both cells (`Difference`).
"""
from __future__ import annotations

from checker.compare.engine import Comparison, Difference  # noqa: F401  (the documented result types)

__all__ = ["Comparison", "Difference", "checked_computation", "compare_layout", "equal_with", "hint"]


def compare_layout(fragment, candidate, computation="all", spec_name: str | None = None) -> Comparison:
    """`fragment`: a checker.spec.model.Fragment. `candidate`: a candidate of
    checker.compare.candidates (Cute, Bases, Formula, Table), or a callable (thread, i) -> (row, col),
    called only over the fragment's domain (its threads x its elements). `computation`: for a
    fragment held by several MMA computations (m8n8k4 .f16), which one ("all": each; None: the
    thread index is the lane)."""
    import checker.compare.engine as engine
    from checker.compare.candidates import Candidate
    from checker.spec.model import Fragment
    from checker.spec.reading import materialize

    if not isinstance(fragment, Fragment):  # a checker.Layout failed inside with an AttributeError
        from checker.errors import UsageError

        raise UsageError(f"compare_layout takes a spec's fragment (checker.spec.model.Fragment), found "
                         f"{type(fragment).__name__}; a checker.Layout compares with its own .compare(candidate)")
    checked_computation(fragment, computation)
    reading = materialize(fragment)
    if callable(candidate) and not isinstance(candidate, Candidate):
        from checker.compare.pyfunction import from_function

        threads = len(engine.targets(fragment, reading, computation)[0].lanes)
        candidate = from_function(candidate, threads, reading.n, getattr(candidate, "__name__", None)
                                  or f"<{type(candidate).__name__} object>")
    return engine.run(spec_name or _shape(fragment), fragment, reading, candidate, computation)


def checked_computation(fragment, computation):
    """`computation` as compare_layout takes it, or a UsageError saying what it takes: None (the
    thread index is the lane), and for a fragment held by several MMA computations "all" or 1..n
    (0 and -1 read computations 4 and 3, and "2" or 2.0 raised TypeError, before)."""
    from checker.errors import UsageError

    if computation is None or computation == "all":  # "all" of a fragment held by the whole warp: the warp
        return computation
    n = len(fragment.computations)
    if not n:
        raise UsageError(f"{fragment.id} is held by the whole warp: computation= applies only to mma.m8n8k4 .f16 "
                         f"(found {computation!r:.40})")
    if type(computation) is int and 1 <= computation <= n:
        return computation
    raise UsageError(f"computation= takes None (the lane), \"all\" or 1..{n} for {fragment.id}, found {computation!r:.40}")


def equal_with(fragment, candidate, used, spec_name: str | None = None) -> list:
    """For a fragment held by several MMA computations (m8n8k4 .f16), the other thread numberings
    a candidate that differs under `used` is proved equal with: "all" (each computation's lanes,
    numbered by their position among them), a computation's number, or None (the lane). Export
    numbers by computation 1 where compare numbers by the lane, so a layout read back without the
    computation it was written for differs everywhere but one quad-pair: this names the fix.
    Empty for any other fragment."""
    from checker.errors import SpecError

    def equal(computation) -> bool:
        try:
            return compare_layout(fragment, candidate, computation, spec_name).equal
        except SpecError:  # a user's function that fails over the other numbering's domain
            return False

    if not fragment.computations:
        return []
    every = list(range(1, len(fragment.computations) + 1))
    each = {k: k != used and equal(k) for k in every}
    out = ["all"] if used != "all" and all(each.values()) else [k for k in every if each[k]]
    if used is not None and equal(None):
        out.append(None)
    return out


def _shape(fragment) -> str:
    import os

    return os.path.splitext(os.path.basename(fragment.span.file))[0]


def hint(fragment, used, others: list, equal: bool) -> list:
    """Lines saying which other computation numbering proves a layout equal that differs, or that
    none does (`others`: equal_with's answer)."""
    if equal or not fragment.computations:
        return []
    out = []
    for k in others:
        if k == "all":
            out.append(f"equal with --computation all (so with each of 1..{len(fragment.computations)}): each MMA "
                       "computation's lanes, the thread index being the "
                       "position among them (CuTe's SM70 quad-pair numbering; `checker export` writes "
                       "computation 1's unless --computation says)")
        elif k is None:
            out.append("equal without --computation: the thread index is then the lane")
        else:
            lanes = ", ".join(map(str, fragment.computations[k - 1].lanes))
            out.append(f"equal with --computation {k}: MMA computation {k}'s lanes ({lanes}), the thread index "
                       "being the position among them"
                       + (" (what `checker export` writes without --computation)" if k == 1 else ""))
    if not out:
        tried = [f"--computation {k}" for k in range(1, len(fragment.computations) + 1) if k != used]
        tried += [x for x, skip in (("--computation all", "all"), ("no --computation", None)) if used != skip]
        out.append(f"no other thread numbering makes it equal either ({', '.join(tried)})")
    return out
