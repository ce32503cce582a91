"""`checker probe --compile-only`: every variant's kernel assembled by ptxas, no GPU needed; with
--minimums, each variant's minimum PTX version and target from the support table checked too."""
from __future__ import annotations

import json
import os

from checker.commands.common import spec_files
from checker.errors import UsageError


def archs(text: str) -> list:
    import re

    found = []
    for a in text.split(","):
        m = re.fullmatch(r"sm_([0-9]{2,3})[af]?", a.strip())
        if not m:
            raise UsageError(f"--arch takes targets like sm_80,sm_90, not {a!r}")
        # mma kernels are built for the plain target: sm_100a's mma is sm_100's
        if int(m.group(1)) not in found:
            found.append(int(m.group(1)))
    return found


def variants_of(paths, allow_empty: bool = False) -> list:
    from checker.semantics.variants import variants
    from checker.spec.checked import load_checked
    from checker.files import is_relations_file

    out = []
    for path in spec_files(paths):
        if not is_relations_file(path):
            out.extend((path, v) for v in variants(load_checked(path)))
    if not out and not allow_empty:
        raise UsageError("no variant to probe: the paths hold no spec the probe runs (a tcgen05 spec's forms are "
                         "assembled only, by --compile-only)")
    return out


def compile_only(args, out) -> int:
    """Every variant assembled by ptxas for each target, its SASS read where nvdisasm is found; or,
    with --minimums, checked at the support table's minimum version and target."""
    from concurrent.futures import ThreadPoolExecutor

    from checker.commands.probe_wgmma import compile_lines as wgmma_lines, compile_rows as wgmma_rows
    from checker.commands.probe_wgmma import split as split_wgmma, worst as wgmma_worst
    from checker.commands.probe_movement import compile_lines, compile_rows, split, targets as movement_targets
    from checker.commands.probe_movement import tcgen05_lines
    from checker.terminal import lines, rejected

    paths, wgmma = split_wgmma(args.paths)
    mma_paths, moving = split(paths) if paths else ([], {})
    mma_paths, tc = _tcgen05(mma_paths)
    if args.minimums:
        from checker.probe.assemble import ptxas

        return _minimums(variants_of(mma_paths), args.format, out, ptxas())

    from checker.probe import sass, tcgen05_ptx
    from checker.probe.assemble import build, ptxas

    targets = archs(args.arch or "sm_80,sm_89,sm_90")
    wanted = movement_targets(args.arch or "sm_80,sm_89,sm_90")
    moved = compile_rows(moving, wanted) if moving else []
    tc_wanted = movement_targets(args.arch) if args.arch else ["sm_100a"]  # Tensor Memory's target
    tc_rows = tcgen05_ptx.compile_rows(tc, tc_wanted) if tc else []
    tool, disasm = ptxas(), sass.nvdisasm()

    def one(job):
        _, v, sm = job
        b = build(v, sm, tool)
        return b, (sass.disassemble(b.cubin, disasm) if b.ok and disasm else None)

    jobs = [(path, v, sm) for path, v in (variants_of(mma_paths) if mma_paths else []) for sm in targets]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each job is two subprocesses
        done = list(pool.map(one, jobs))
    rows, text = [], []
    for (path, v, sm), (b, code) in zip(jobs, done):
        where = next(r.span for r in v.a.table if v.atype in r.types)
        rows.append({"spec": path, "instruction": v.instruction, "arch": f"sm_{sm}",
                     "result": {True: "assembled", None: "skipped", False: "rejected"}[b.ok],
                     "message": b.message, "location": str(where) if b.ok is False else None, "sass": code})
        if b.ok is False:
            regs = ", ".join(f"{op} {r.count} x .{r.kind} at line {r.span.line}"
                             for op in "ABCD" for r in v.fragment(op).table if v.type_of(op) in r.types)
            text += rejected(f"{where}: error: ptxas (sm_{sm}) rejects {v.instruction} with the spec's registers "
                             f"({regs})", b.message)
    wg_rows = wgmma_rows(wgmma, args.arch) if wgmma else []
    worst = max(int(any(r["result"] == "rejected" for r in rows + moved + tc_rows)), wgmma_worst(wg_rows))
    if args.format == "json":
        json.dump(rows + moved + wg_rows + tc_rows, out, indent=1)
        out.write("\n")
        return worst
    text += _summary(rows, targets if jobs else [])
    text += compile_lines(moved, wanted) if moved else []
    text += wgmma_lines(wg_rows) if wg_rows else []
    text += tcgen05_lines(tc_rows, tc_wanted) if tc_rows else []
    if not disasm and (jobs or moved or wg_rows):  # once, whichever families went without SASS
        text.append("(no nvdisasm found: SASS opcode counts skipped; the [test] and [gpu] extras install it)")
    out.write(lines(text))
    return worst


def _tcgen05(paths: list) -> tuple:
    """(the paths of specs with mma variants, [(path, Spec)] of the tcgen05 specs among them)."""
    from checker.probe.tcgen05_ptx import is_tcgen05
    from checker.spec.checked import load_checked

    specs = [(p, load_checked(p)) for p in paths]
    return [p for p, s in specs if not is_tcgen05(s)], [(p, s) for p, s in specs if is_tcgen05(s)]


def _summary(rows: list, targets: list) -> list:
    """Per target: the mma variants assembled, rejected and skipped, and their SASS by opcodes."""
    from checker.probe import sass

    text = []
    for sm in targets:
        mine = [r for r in rows if r["arch"] == f"sm_{sm}"]
        skipped = sorted({r["message"] for r in mine if r["result"] == "skipped"})
        text.append(f"sm_{sm}: {sum(r['result'] == 'assembled' for r in mine)} assembled, "
                    f"{sum(r['result'] == 'rejected' for r in mine)} rejected, "
                    f"{sum(r['result'] == 'skipped' for r in mine)} skipped"
                    + (f" ({'; '.join(skipped)})" if skipped else ""))
        kinds: dict = {}
        for r in mine:
            if r["sass"]:
                ops = sass.tensor_ops(r["sass"]["opcodes"]) or "no tensor-core instruction (emulated)"
                kinds.setdefault(ops, []).append(r["instruction"].replace("mma.sync.aligned.", ""))
        for ops, names in sorted(kinds.items()):
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            text.append(f"  SASS {ops}: {len(names)} ({shown})")
    return text


def _minimums(todo: list, fmt: str, out, tool: str) -> int:
    """Every (path, variant) checked (checker/probe/minimums.py); exit 1 on a FAILED one."""
    from concurrent.futures import ThreadPoolExecutor

    from checker.probe import minimums
    from checker.terminal import lines

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each check is ptxas twice
        checks = list(pool.map(lambda pv: minimums.check(pv[1], tool), todo))
    rows = [{"spec": path, "instruction": c.variant.instruction, "ptx": c.ptx, "sm": f"sm_{c.sm}",
             "verdict": c.verdict, "message": c.message} for (path, _), c in zip(todo, checks)]
    if fmt == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
    else:
        # a FAILED message quotes ptxas, whose lines follow the row's as they always did
        text = [line for r in rows for line in (f"{r['verdict']:9s} {r['instruction'].replace('mma.sync.aligned.', ''):44s} "
                                                f"PTX {r['ptx']:4s} {r['sm']:6s} {r['message']}").split("\n")]
        counts = {k: sum(r["verdict"] == k for r in rows) for k in ("confirmed", "target", "FAILED")}
        text.append(f"{len(rows)} variants: {counts['confirmed']} minimum versions confirmed by ptxas (rejected one "
                    f"version below), {counts['target']} resting on the target's own minimum, "
                    f"{counts['FAILED']} FAILED")
        out.write(lines(text))
    return 1 if any(r["verdict"] == "FAILED" for r in rows) else 0
