"""c-origin: lane 0's element 0 of every C/D fragment of an mma spec is C[0][0].

The worked example of CONTRIBUTING "Adding a theorem family": this module copied into
checker/theorems/ is the whole change of code; tests/unit/test_registry.py makes exactly that change
in a copy of the package and proves it. (A layout whose first accumulator element is elsewhere is
not wrong as such; every accumulator of the document happens to start there, which is what makes a
small example that can fail: a C row formula that slips by one refutes it.)"""
from __future__ import annotations

from checker.formula.evaluate import warp_table
from checker.results import PROVED, REFUTED, Result
from checker.theorems.family import TheoremFamily


def prove(asked) -> list:
    out = []
    for f in asked.spec.fragments():
        reading = asked.readings.get(f.id) if f.operand == "C" else None
        if reading is None or reading.layout is None:
            continue
        rows, cols = warp_table(reading.layout, reading.n)
        at = (rows[0], cols[0])
        out.append(Result(asked.spec.path, None, "c-origin", PROVED if at == (0, 0) else REFUTED, 0.0,
                          str(f.span), subject=f.id, message=f"lane 0 {f.letter}0 of {f.id} is C[{at[0]}][{at[1]}]"))
    return out


FAMILY = TheoremFamily("c-origin", 65, "Lane 0's first accumulator element is C[0][0]", ("mma",), prove)
