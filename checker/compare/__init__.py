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


def compare_layout(fragment, candidate, computation="all", spec_name: str | None = None) -> Comparison:
    """`fragment`: a checker.spec.model.Fragment. `candidate`: a candidate of
    checker.compare.candidates (Cute, Bases, Formula, Table), or a callable (thread, i) -> (row, col),
    called only over the fragment's domain (its threads x its elements). `computation`: for a
    fragment held by several MMA computations (m8n8k4 .f16), which one ("all": each; None: the
    thread index is the lane)."""
    import checker.compare.engine as engine
    from checker.spec.reading import materialize

    reading = materialize(fragment)
    if callable(candidate) and not hasattr(candidate, "form"):
        from checker.compare.inputs import from_function

        threads = len(engine.targets(fragment, reading, computation)[0].lanes)
        candidate = from_function(candidate, threads, reading.n, getattr(candidate, "__name__", "the function"))
    return engine.run(spec_name or _shape(fragment), fragment, reading, candidate, computation)


def _shape(fragment) -> str:
    import os

    return os.path.splitext(os.path.basename(fragment.span.file))[0]
