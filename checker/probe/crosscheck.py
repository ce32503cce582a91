"""Predict every dump from the spec and compare, bit for bit; no GPU needed.

Per dump, four results:
  predicts      every warp's D, predicted by the reference model from the warp's A, B, C
                register images and the spec's layouts, equals the dump's D bit for bit
  identifies-A  every A slot is, by the identification patterns, where the spec's formula puts it
  identifies-B  the same for B
  identifies-D  every D slot holds the C cell the spec's D layout says (from the C-alone pattern)
A disagreement names the slot, what the dump shows and what the spec says, at the line of the
formula piece that gives the spec's answer.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from checker.formula.evaluate import at
from checker.probe import dump as dumps
from checker.probe import identify
from checker.probe.findings import error_lines, readable
from checker.results import PROVED, REFUTED, SPEC_ERROR, Result
from checker.semantics.execute import execute, geometries, shapes
from checker.semantics.registers import ModelError
from checker.spec.reading import materialize
from checker.terminal import lines as text_lines

AXES = {"A": ("row", "k"), "B": ("k", "col"), "D": ("row", "col")}
RELABELLING = ("identification is relative to the spec's layouts of the other operands: a relabelling of m, n "
               "or k applied consistently to A, B, C and D is invisible to any program")


def where(fragment, lane: int, i: int, axis: int) -> str:
    """file:line:col of the formula piece that gives the spec's row (axis 0) or col (axis 1)."""
    layout = materialize(fragment).layout
    hits = at(layout, lane, i)[axis]
    if not hits:
        return str(fragment.span)
    formula = layout.row if axis == 0 else layout.col
    return str(layout.src.span(formula.pieces[hits[0][0]].off))


def _slot_name(op: str, g, lane: int, i: int) -> str:
    return f"lane {lane} {'d' if op == 'D' else g.fragment.letter}{i}"


def _compare_slots(op: str, g, hw: np.ndarray, why: str | None, spec_path, subject, tag, seen: str) -> Result:
    spec = identify.spec_cells(g)
    n_slots = 32 * g.n
    prop = f"identifies-{op}"
    if why is not None and (hw[..., 0] < 0).all():
        return Result(spec_path, g.fragment.id, prop, REFUTED, location=str(g.fragment.span), subject=subject,
                      message=f"{tag}no slot could be identified: {why}")
    known = hw[..., 0] >= 0
    wrong = known & (hw != spec).any(axis=-1)
    unknown = ~known
    if not wrong.any() and not unknown.any():
        return Result(spec_path, g.fragment.id, prop, PROVED, location=str(g.fragment.span), subject=subject,
                      message=f"{tag}all {n_slots} {op} slots are where the spec puts them")
    if wrong.any():
        lane, i = (int(x) for x in np.argwhere(wrong)[0])
        h, s = hw[lane, i], spec[lane, i]
        names = AXES[op]
        parts = []
        if len(g.groups) > 1 and h[0] != s[0]:
            parts.append((f"computation {h[0] + 1}", f"computation {s[0] + 1}"))
        for ax in (0, 1):
            if h[1 + ax] != s[1 + ax]:
                parts.append((f"{names[ax]} {h[1 + ax]}", f"{names[ax]} {s[1 + ax]}"))
        axis = 0 if h[1] != s[1] else 1
        loc = where(g.fragment, lane, i, axis) if (h[1] != s[1] or h[2] != s[2]) else str(g.fragment.span)
        msg = (f"{tag}{_slot_name(op, g, lane, i)}: {seen} " + ", ".join(p[0] for p in parts)
               + ", spec " + ", ".join(p[1] for p in parts)
               + f" ({int(wrong.sum())} of {n_slots} slots differ"
               + (f", {int(unknown.sum())} not identified" if unknown.any() else "") + ")")
        cex = {"lane": lane, "i": i, seen: h.tolist(), "spec": s.tolist(), "differ": int(wrong.sum())}
        return Result(spec_path, g.fragment.id, prop, REFUTED, location=loc, counterexample=cex, subject=subject,
                      message=msg)
    return Result(spec_path, g.fragment.id, prop, REFUTED, location=str(g.fragment.span), subject=subject,
                  message=f"{tag}{int(unknown.sum())} of {n_slots} slots could not be identified: {why}")


def _predicts(v, geo, d, spec_path, subject, tag) -> Result:
    regs = d.registers
    try:
        predicted = execute(v, regs["A"], regs["B"], regs["C"], geo)
    except (ModelError, ValueError, OverflowError) as exc:  # a dump's inputs can be anything: NaN, inf
        return Result(spec_path, v.a.id, "predicts", REFUTED, location=str(v.a.span), subject=subject,
                      message=f"{tag}the reference model cannot run the dump's inputs under this spec: {exc}")
    bad = (predicted != regs["D"]).any(axis=(1, 2))
    counts = []
    for kind, sl in identify.blocks_of(d.header).items():
        counts.append(f"{kind[0]}{'' if kind[1] is None else '#' + str(kind[1])} "
                      f"{int((~bad[sl]).sum())}/{sl.stop - sl.start}")
    if not bad.any():
        return Result(spec_path, v.d.id, "predicts", PROVED, location=str(v.d.span), subject=subject,
                      message=f"{tag}all {len(bad)} warps predicted bit for bit ({', '.join(counts)})",
                      detail={"warps": len(bad)})
    w = int(np.nonzero(bad)[0][0])
    lane, r = (int(x) for x in np.argwhere(predicted[w] != regs["D"][w])[0])
    bits = geo["D"].reg_bits // 4
    msg = (f"{tag}{int(bad.sum())} of {len(bad)} warps differ; first: warp {w}, lane {lane}, D register {r}: "
           f"dump {int(regs['D'][w, lane, r]):0{bits}x}, spec predicts {int(predicted[w, lane, r]):0{bits}x} "
           f"({', '.join(counts)})")
    cex = {"warp": w, "lane": lane, "register": r, "dump": int(regs["D"][w, lane, r]),
           "predicted": int(predicted[w, lane, r])}
    return Result(spec_path, v.d.id, "predicts", REFUTED, location=str(v.d.span), counterexample=cex,
                  subject=subject, message=msg)


def malformed(d, message: str) -> Result:
    """A dump that cannot be checked: a located error (exit 3, like a spec that cannot be loaded)."""
    return Result(d.path, None, "dump", SPEC_ERROR, location=f"{d.path}:1:1", message=message,
                  detail={"dump": d.path, "source": d.header.get("source")})


def registers_fit(v, geo, d) -> str | None:
    """Why the dump's register images are not the variant's (count of registers per lane, width of a
    word), or None: a dump is read against the spec's geometry before anything computes with it."""
    for op in "ABCD":
        g, regs, bits = geo[op], d.registers.get(op), d.bits.get(op)
        if regs is None:
            return f"the dump has no {op} registers"
        row = next((r for r in g.fragment.table if g.type in r.types), None)
        where = f" (spec {row.span})" if row is not None and getattr(row, "span", None) else ""
        if regs.ndim != 3 or regs.shape[2] != g.count or (bits is not None and bits != g.reg_bits):
            has = f"{regs.shape[2] if regs.ndim == 3 else '?'} x {bits or '?'}-bit"
            return (f"registers.{op} holds {has} registers per lane, but {v.instruction} takes "
                    f"{g.count} x {g.reg_bits}-bit for {op} (.{g.type}){where}")
    return None


def too_old(v, d) -> str | None:
    """Why a hardware dump's kernel cannot hold its instruction, or None: a kernel built for a
    target before the support table's minimum does not assemble (ptxas: "needs sm_90"), so a dump
    claiming one was not made by the probe; the device's sm is tied to the target by the reader."""
    from checker.catalogue import min_sm, target_parts

    need, target = min_sm(v), d.header["kernel"]["target"]
    if d.synthetic or need is None or target_parts(target)[0] >= need:
        return None
    return f"at kernel.target: a kernel for {target} cannot hold {v.instruction}, which needs sm_{need} (the support table)"


def check_dump(v, spec_path: str, d) -> list:
    t0 = time.perf_counter()
    subject = v.instruction.replace("mma.sync.aligned.", "")
    tag = "[synthetic dump: reference model, not hardware] " if d.synthetic else ""
    try:
        geo = geometries(v)
    except ModelError as exc:
        return [Result(spec_path, v.a.id, "predicts", REFUTED, location=str(v.a.span), subject=subject,
                       message=f"{tag}{exc}")]
    wrong = registers_fit(v, geo, d) or too_old(v, d)
    if wrong is not None:
        return [malformed(d, wrong)]
    shp = shapes(v)
    out = [_predicts(v, geo, d, spec_path, subject, tag)]
    for op in ("A", "B", "D"):
        try:
            got = (identify.accumulator(v, geo, shp, d) if op == "D" else identify.operand(v, geo, shp, d, op))
        except ModelError as exc:
            out.append(Result(spec_path, geo[op].fragment.id, f"identifies-{op}", REFUTED,
                              location=str(geo[op].fragment.span), subject=subject,
                              message=f"{tag}cannot read the patterns under this spec's layouts: {exc}"))
            continue
        except KeyError as exc:
            out.append(Result(spec_path, geo[op].fragment.id, f"identifies-{op}", REFUTED,
                              location=f"{d.path}:1:1", subject=subject,
                              message=f"{tag}the dump has no {exc.args[0][0]} pattern"))
            continue
        out.append(_compare_slots(op, geo[op], got["hw"], got["why"], spec_path, subject, tag,
                                  "dump" if d.synthetic else "hardware"))
    seconds = time.perf_counter() - t0
    return [r.but(seconds=seconds / len(out), detail={"dump": d.path, "source": d.header["source"]}) for r in out]


def crosscheck(specs: list, dump_paths: list, jobs: int = 1) -> tuple:
    """specs: [(path, Spec)]; -> (results, stats). Each dump is read and checked on its own, spread
    over `jobs` forked workers as `prove` spreads its tasks; an error is the first dump's in order,
    as in one process (checker/workers.py)."""
    from checker import workers
    from checker.semantics.variants import variants

    by_instruction, shapes_given = {}, {}
    for path, spec in specs:
        shapes_given[spec.shape] = path
        for v in variants(spec):
            by_instruction[v.instruction] = (path, v)
    results, seen, other = [], set(), 0
    task = functools.partial(_dump_results, by_instruction=by_instruction, shapes_given=shapes_given)
    for mine, instr, elsewhere in workers.run_in_order(task, list(dump_paths), jobs):
        results.extend(mine)
        other += elsewhere
        if instr is not None:
            seen.add(instr)
    stats = {"dumps": len(dump_paths), "other_specs": other,
             "synthetic": sum(r.detail.get("source") == "synthetic" for r in results if r.property == "predicts"),
             "hardware": sum(r.detail.get("source") == "hardware" for r in results if r.property == "predicts"),
             "without_dump": sorted(set(by_instruction) - seen)}
    return results, stats


def _dump_results(p: str, by_instruction: dict, shapes_given: dict):
    """(the results of one dump file, the instruction it checked or None, 1 when it is of a spec not
    given else 0)."""
    mine: list = []
    found = list(readable([p], dumps.read, mine))
    if not found:
        return mine, None, 0  # malformed: `readable` made its result
    d = found[0][1]
    instr = d.header["instruction"]
    if instr not in by_instruction:
        if d.header["shape"] not in shapes_given:
            return [], None, 1
        spec_path = shapes_given[d.header["shape"]]
        described = sum(1 for i in by_instruction if by_instruction[i][0] == spec_path)
        return [Result(spec_path, None, "predicts", REFUTED, location=f"{p}:1:1",
                       subject=instr.replace("mma.sync.aligned.", ""),
                       message=f"the dump is of {instr}, which {spec_path} no longer describes "
                       f"(it describes {described} variants; re-record or delete the dump)",
                       detail={"dump": p, "source": d.header["source"]})], None, 0
    path, v = by_instruction[instr]
    return check_dump(v, path, d), instr, 0


def render_text(results: list, stats: dict, seconds: float) -> str:
    lines = error_lines(results)
    groups: dict = {}
    for r in results:
        if r.subject and r.property.startswith(("predicts", "identifies")):
            groups.setdefault((r.spec, r.subject, r.detail.get("source"), r.detail.get("dump")), []).append(r)
    agree = sum(all(r.verdict == PROVED for r in rs) for rs in groups.values())
    dumps_of: dict = {}
    for spec, subject, source, dump in groups:
        dumps_of.setdefault((spec, subject, source), set()).add(dump)
    for (spec, subject, source, dump), rs in sorted(groups.items(), key=lambda x: (x[0][0], x[0][1], str(x[0][3]))):
        ok = all(r.verdict == PROVED for r in rs)
        failed = ", ".join(r.property for r in rs if r.verdict != PROVED)
        warps = next((r.detail.get("warps") for r in rs if r.property == "predicts"), None)
        # two dumps of one variant (two GPUs, two drivers) are two verdicts, each naming its file
        lines.append(f"{'agrees' if ok else 'DISAGREES':9s} {subject:48s} {source or '-':9s} "
                     + (f"{warps} warps bit for bit; every A, B and D slot where the spec puts it" if ok
                        else f"fails {failed}")
                     + (f" ({dump})" if len(dumps_of[(spec, subject, source)]) > 1 and dump else ""))
    lines.append("")
    if stats["without_dump"]:
        lines.append(f"{len(stats['without_dump'])} variants of these specs have no dump: "
                     + ", ".join(s.replace("mma.sync.aligned.", "") for s in stats["without_dump"][:6])
                     + (" ..." if len(stats["without_dump"]) > 6 else ""))
    if stats["synthetic"] and not stats["hardware"]:
        lines.append("every dump checked is SYNTHETIC (computed by the reference model): this tests the crosscheck, "
                     "not the hardware; no hardware dump has been recorded for these specs")
    if agree == len(groups) and groups:
        lines.append(f"verdict: {'the spec predicts every dump' if stats['synthetic'] and not stats['hardware'] else 'hardware computes the function the document describes'}; "
                     + RELABELLING)
    errors = sum(r.verdict == SPEC_ERROR for r in results)
    lines.append(f"{stats['dumps']} dumps ({stats['hardware']} hardware, {stats['synthetic']} synthetic, "
                 f"{stats['other_specs']} of other specs): {agree} agree, {len(groups) - agree} disagree, "
                 f"{errors} malformed; {seconds:.2f} s")
    return text_lines(lines)
