"""`checker simulate`: one round trip through the reference model (checker/commands/simulate.py
runs it), for a person to read."""
from __future__ import annotations

import numpy as np

from checker.terminal import lines as text_lines


def _matrix(name, m) -> list:
    out = []
    for g in range(m.shape[0]):
        head = f"{name}" + (f" (computation {g + 1})" if m.shape[0] > 1 else "") + f", {m.shape[1]}x{m.shape[2]}:"
        out.append(head)
        text = np.array2string(m[g], max_line_width=200, threshold=1 << 16,
                               formatter={"float_kind": lambda x: f"{x:g}", "int_kind": str})
        out.extend("  " + line for line in text.splitlines())
    return out


def render_text(r: dict) -> str:
    v = r["variant"]
    lines = [f"{v.instruction}  (seed {r['seed']})",
             f"  A: {v.a.id} as .{v.atype}   B: {v.b.id} as .{v.btype}   C: {v.c.id} as .{v.ctype}   "
             f"D: {v.d.id} as .{v.dtype}",
             "  inputs are drawn so every product and partial sum is exact (checker/semantics/inputs.py)", ""]
    for name in "ABC":
        lines.extend(_matrix(name, r["matrices"][name]))
    lines.append("")
    lines.append("register images per lane (hex; element 0 in the low bits):")
    geo = r["geometry"]
    head = "lane  " + "  ".join(f"{op}[{k}]".ljust(geo[op].reg_bits // 4) for op in "ABCD" for k in range(geo[op].count)).rstrip()
    lines.append(head)
    for lane in range(32):
        cells = [f"{int(x):0{geo[op].reg_bits // 4}x}" for op in "ABCD" for x in r["registers"][op][lane]]
        lines.append(f"{lane:>4}  " + "  ".join(cells))
    lines.append("")
    lines.extend(_matrix("D gathered from the D registers", r["matrices"]["D"]))
    verdict = "equal" if r["equal"] else f"DIFFERENT in {r['mismatches']} cells"
    lines.append(f"round trip: D gathered from the registers and the host's A.B + C are {verdict} "
                 f"({r['cells']} cells)")
    return text_lines(lines)


def render_json(r: dict) -> dict:
    v = r["variant"]
    return {"instruction": v.instruction, "variant": v.id, "seed": r["seed"],
            "fragments": {"A": v.a.id, "B": v.b.id, "C": v.c.id, "D": v.d.id},
            "matrices": {k: m.tolist() for k, m in r["matrices"].items()},
            "registers": {k: [[f"0x{int(x):x}" for x in lane] for lane in regs] for k, regs in r["registers"].items()},
            "equal": r["equal"], "mismatches": r["mismatches"]}
