"""Each variant's minimum PTX ISA version and target, from the support table
(checker/report/isa-support.yaml, the rows of ../shared/ptx-isa/mma-support-table.md), and
the check of both against the assembler:

  confirmed   ptxas assembles the kernel at `.version MIN` for sm_MIN, and rejects it at the
              version just below (which that target still accepts): the table's version is
              the true minimum
  target      it assembles at the minimum; the version below cannot name that target at all
              (sm_80 needs PTX 7.0), so the table's version claim rests on the target's
  FAILED      it does not assemble at the table's minimum, or it assembles below it
"""
from __future__ import annotations

import os
from dataclasses import dataclass

# the PTX ISA versions ptxas knows, in order, and the first version each target accepts
VERSIONS = ("6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6",
            "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0")
TARGET_PTX = {70: "6.0", 75: "6.3", 80: "7.0", 86: "7.1", 89: "7.8", 90: "7.8"}
_AND_POPC = ("7.1", 80)  # ".and.popc (7.1, sm_80)", in the table's b1 rows


def _key(version: str) -> tuple:
    return tuple(int(x) for x in version.split("."))


def table_rows(v) -> list:
    from checker.report.isa import support

    layouts = {f"{v.alayout}.{v.blayout}", v.alayout, v.blayout}
    return [r for r in support() if r["instruction"] == "mma" and r["kind"] is None and v.shape in r["shapes"]
            and v.atype in r["ab"] and v.btype in r["ab"] and v.dtype in r["cd"] and v.ctype in r["cd"]
            and layouts & set(r["layouts"])]


def minimum(v) -> tuple | None:
    """(PTX version, sm) the support table gives for the variant, or None where no row names it."""
    rows = table_rows(v)
    if not rows:
        return None
    ptx = min((r["ptx"] for r in rows), key=_key)
    sm = min(int(r["target"].split()[0].removeprefix("sm_").rstrip("a")) for r in rows)
    if v.op == "and":
        ptx, sm = max(ptx, _AND_POPC[0], key=_key), max(sm, _AND_POPC[1])
    return ptx, sm


@dataclass
class Check:
    variant: object
    ptx: str
    sm: int
    verdict: str  # confirmed | target | FAILED
    message: str


def check(v, tool: str) -> Check:
    from checker.probe.assemble import assemble
    from checker.probe.ptx import generate, kernel_name

    m = minimum(v)
    if m is None:
        return Check(v, "", 0, "FAILED", "no row of the support table names this variant")
    ptx, sm = m
    ok, text = assemble(tool, generate(v, sm, ptx), sm, kernel_name(v))[:2]
    note = ""
    if not ok and "is not defined for option" in text:  # CUDA 13's ptxas no longer knows sm_70
        newer = [t for t in sorted(TARGET_PTX) if t > sm and _key(TARGET_PTX[t]) <= _key(ptx)]
        if newer:
            note = f" (this ptxas does not know sm_{sm}; checked at sm_{newer[0]}, the oldest it knows that PTX {ptx} can name)"
            sm = newer[0]
            ok, text = assemble(tool, generate(v, sm, ptx), sm, kernel_name(v))[:2]
    if not ok:
        return Check(v, ptx, sm, "FAILED", f"ptxas rejects it at the table's minimum (PTX {ptx}, sm_{sm}): {text[:300]}")
    below = VERSIONS[VERSIONS.index(ptx) - 1] if ptx in VERSIONS and VERSIONS.index(ptx) > 0 else None
    if below is None or _key(below) < _key(TARGET_PTX.get(sm, "0.0")):
        return Check(v, ptx, sm, "target", f"assembles at PTX {ptx} for sm_{sm}; sm_{sm} needs PTX "
                     f"{TARGET_PTX.get(sm, ptx)} itself, so no lower version can be tried{note}")
    ok_below, text_below = assemble(tool, generate(v, sm, below), sm, kernel_name(v))[:2]
    if ok_below:
        return Check(v, ptx, sm, "FAILED", f"ptxas also assembles it at PTX {below}: the table's minimum "
                     f"version {ptx} is too high{note}")
    why = next((line for line in text_below.splitlines() if "version" in line.lower()), text_below.splitlines()[0])
    return Check(v, ptx, sm, "confirmed", f"assembles at PTX {ptx} for sm_{sm}; rejected at {below}: {why[:200]}{note}")


def run(variants_of: list, fmt: str, out, tool: str) -> int:
    """`checker probe --compile-only --minimums`: every variant checked; exit 1 on a FAILED one."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each check is ptxas twice
        checks = list(pool.map(lambda pv: check(pv[1], tool), variants_of))
    rows = [{"spec": path, "instruction": c.variant.instruction, "ptx": c.ptx, "sm": f"sm_{c.sm}",
             "verdict": c.verdict, "message": c.message} for (path, _), c in zip(variants_of, checks)]
    if fmt == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
    else:
        for r in rows:
            out.write(f"{r['verdict']:9s} {r['instruction'].replace('mma.sync.aligned.', ''):44s} "
                      f"PTX {r['ptx']:4s} {r['sm']:6s} {r['message']}\n")
        counts = {k: sum(r["verdict"] == k for r in rows) for k in ("confirmed", "target", "FAILED")}
        out.write(f"{len(rows)} variants: {counts['confirmed']} minimum versions confirmed by ptxas (rejected one "
                  f"version below), {counts['target']} resting on the target's own minimum, "
                  f"{counts['FAILED']} FAILED\n")
    return 1 if any(r["verdict"] == "FAILED" for r in rows) else 0
