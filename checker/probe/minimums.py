"""The check of each variant's minimum PTX ISA version and target, from the support table
(checker/catalogue.py), against the assembler:

  confirmed   ptxas assembles the kernel at `.version MIN` for sm_MIN, and rejects it at the
              version just below (which that target still accepts): the table's version is
              the true minimum
  target      it assembles at the minimum; the version below cannot name that target at all
              (sm_80 needs PTX 7.0), so the table's version claim rests on the target's
  FAILED      it does not assemble at the table's minimum, or it assembles below it
"""
from __future__ import annotations

from dataclasses import dataclass

from checker.catalogue import minimum, version_key
from checker.probe.assemble import assemble
from checker.probe.ptx import generate, kernel_name

# the PTX ISA versions ptxas knows, in order, and the first version each target accepts
VERSIONS = ("6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6",
            "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0")
TARGET_PTX = {70: "6.0", 75: "6.3", 80: "7.0", 86: "7.1", 89: "7.8", 90: "7.8"}


@dataclass
class Check:
    variant: object
    ptx: str
    sm: int
    verdict: str  # confirmed | target | FAILED
    message: str


def check(v, tool: str) -> Check:
    m = minimum(v)
    if m is None:
        return Check(v, "", 0, "FAILED", "no row of the support table names this variant")
    ptx, sm = m
    ok, text = assemble(tool, generate(v, sm, ptx), sm, kernel_name(v))[:2]
    note = ""
    if not ok and "is not defined for option" in text:  # CUDA 13's ptxas no longer knows sm_70
        newer = [t for t in sorted(TARGET_PTX) if t > sm and version_key(TARGET_PTX[t]) <= version_key(ptx)]
        if newer:
            note = f" (this ptxas does not know sm_{sm}; checked at sm_{newer[0]}, the oldest it knows that PTX {ptx} can name)"
            sm = newer[0]
            ok, text = assemble(tool, generate(v, sm, ptx), sm, kernel_name(v))[:2]
    if not ok:
        return Check(v, ptx, sm, "FAILED", f"ptxas rejects it at the table's minimum (PTX {ptx}, sm_{sm}): {text[:300]}")
    below = VERSIONS[VERSIONS.index(ptx) - 1] if ptx in VERSIONS and VERSIONS.index(ptx) > 0 else None
    if below is None or version_key(below) < version_key(TARGET_PTX.get(sm, "0.0")):
        return Check(v, ptx, sm, "target", f"assembles at PTX {ptx} for sm_{sm}; sm_{sm} needs PTX "
                     f"{TARGET_PTX.get(sm, ptx)} itself, so no lower version can be tried{note}")
    ok_below, text_below = assemble(tool, generate(v, sm, below), sm, kernel_name(v))[:2]
    if ok_below:
        return Check(v, ptx, sm, "FAILED", f"ptxas also assembles it at PTX {below}: the table's minimum "
                     f"version {ptx} is too high{note}")
    why = next((line for line in text_below.splitlines() if "version" in line.lower()), text_below.splitlines()[0])
    return Check(v, ptx, sm, "confirmed", f"assembles at PTX {ptx} for sm_{sm}; rejected at {below}: {why[:200]}{note}")
