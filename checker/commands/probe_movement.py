"""`checker probe` for the ldmatrix / stmatrix / movmatrix specs (and ldmatrix chained into mma):
--compile-only, --emit-ptx, --synthetic and the GPU run. checker/commands/probe.py hands these
specs here and the mma specs to its own code."""
from __future__ import annotations

import json
import os
import re

from checker import outputs
from checker.errors import UsageError


def targets(text: str) -> list:
    """"sm_80,sm_90,sm_100a" -> ["sm_80", "sm_90", "sm_100a"]."""
    found = []
    for a in text.split(","):
        if not re.fullmatch(r"sm_[0-9]{2,3}[af]?", a.strip()):
            raise UsageError(f"--arch takes targets like sm_80,sm_90,sm_100a, not {a!r}")
        found.append(a.strip())
    return found


def split(paths) -> tuple:
    """(spec files with mma variants, {instruction: Form or Chain} of the movement specs)."""
    from checker.commands.common import spec_files
    from checker.files import is_relations_file
    from checker.probe.movement_run import is_movement, subjects_of
    from checker.spec.checked import load_checked

    mma, moving = [], []
    for path in spec_files(paths):
        if is_relations_file(path):
            continue
        spec = load_checked(path)
        (moving if is_movement(spec) else mma).append((path, spec))
    return [p for p, _ in mma], subjects_of(moving)


def _sass_ops(opcodes: dict) -> str:
    from checker.probe.movement_run import MOVEMENT_SASS
    from checker.probe.sass import TENSOR_CORE

    keep = MOVEMENT_SASS + TENSOR_CORE
    return ", ".join(f"{op} x{n}" for op, n in opcodes.items() if op.split(".")[0] in keep) or "no LDSM/STSM/MOVM"


def compile_rows(subjects: dict, wanted: list) -> list:
    """Every subject assembled for every wanted target that runs it; rows as the mma part's."""
    from concurrent.futures import ThreadPoolExecutor

    from checker.probe import sass
    from checker.probe.assemble import assemble, cannot_target, ptxas
    from checker.probe.movement_run import ptx_of, targets_of

    tool, disasm = ptxas(), sass.nvdisasm()

    def one(job):
        subject, target = job
        ok, why = targets_of(subject, target)
        if not ok:
            return "skipped", why, None
        unknown = cannot_target(tool, target)
        if unknown:
            return "skipped", unknown, None
        good, message, cubin = assemble(tool, ptx_of(subject, target), target.removeprefix("sm_"), subject.kernel)
        code = sass.disassemble(cubin, disasm) if good and disasm else None
        return ("assembled" if good else "rejected"), message, code

    jobs = [(s, t) for s in subjects.values() for t in wanted]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = list(pool.map(one, jobs))
    return [{"spec": s.spec_path, "instruction": s.instruction, "arch": t, "result": result, "message": message,
             "location": str(s.a.layout.span if s.family == "chain" else s.layout.span) if result == "rejected" else None,
             "sass": code} for (s, t), (result, message, code) in zip(jobs, done)]


def compile_lines(rows: list, wanted: list) -> list:
    """The text of compile_rows' rows, as lines for checker.terminal (a rejection names the spec)."""
    forms = len({r["instruction"] for r in rows})
    text = [f"ldmatrix, stmatrix, movmatrix: {forms} kernels (every form of the specs, and ldmatrix chained into "
            "mma.m16n8k16)"] + rejections(rows)
    for t in wanted:
        mine = [r for r in rows if r["arch"] == t]
        text.append(counted(mine, t))
        kinds: dict = {}
        for r in mine:
            if r["sass"]:
                kinds.setdefault(_sass_ops(r["sass"]["opcodes"]), []).append(
                    r["instruction"].replace(".sync.aligned", "").replace(".shared", ""))
        for ops, names in sorted(kinds.items()):
            shown = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
            text.append(f"  SASS {ops}: {len(names)} ({shown})")
    return text


def tcgen05_lines(rows: list, wanted: list) -> list:
    """compile_lines for the tcgen05 kernels (checker/probe/tcgen05_ptx.py): assembled only."""
    text = [f"tcgen05: {len({r['instruction'] for r in rows})} kernels (every tcgen05.ld and tcgen05.st form of "
            "the specs; assembled only: no GPU the probe runs on has Tensor Memory)"] + rejections(rows)
    return text + ["  " + counted([r for r in rows if r["arch"] == t], t) for t in wanted]


def rejections(rows: list) -> list:
    """A located error for each kernel ptxas rejected (its spec's line), as checker.terminal writes it."""
    from checker.terminal import rejected

    out = []
    for r in rows:
        if r["result"] == "rejected":
            out += rejected(f"{r['location']}: error: ptxas ({r['arch']}) rejects {r['instruction']}", r["message"])
    return out


def counted(rows: list, target: str) -> str:
    """One target's line: how many of its rows assembled, were rejected, were skipped (and why)."""
    skipped = sorted({r["message"] for r in rows if r["result"] == "skipped"})
    return (f"{target}: {sum(r['result'] == 'assembled' for r in rows)} assembled, "
            f"{sum(r['result'] == 'rejected' for r in rows)} rejected, "
            f"{sum(r['result'] == 'skipped' for r in rows)} skipped" + (f" ({'; '.join(skipped)})" if skipped else ""))


def _target_for(subject, wanted: str | None) -> tuple:
    """(target, note): --arch where it runs the subject, else the subject's minimum target."""
    from checker.probe.movement_run import minimum_target, targets_of

    if wanted and targets_of(subject, wanted)[0]:
        return wanted, None
    return minimum_target(subject), (f"built for {minimum_target(subject)}: {wanted} does not run it" if wanted else None)


def synthetic(subjects: dict, where: str, wanted: str | None, seed: int) -> tuple:
    """Synthetic dumps of every predictable subject -> (paths written, skipped with why)."""
    from checker.probe.movement_run import record

    written, skipped = [], []
    for s in subjects.values():
        if not s.predictable:
            skipped.append(f"{s.instruction} ({s.unpredictable})")
            continue
        target, _ = _target_for(s, wanted)
        written.append(record(s, where, target, seed))
    return written, skipped


def on_device(subjects: dict, where: str, device, seed: int) -> tuple:
    """Hardware dumps of every subject the device runs -> (paths, skipped)."""
    from checker.probe.movement_run import record, targets_of

    written, skipped = [], []
    for s in subjects.values():
        target = next((t for t in (f"sm_{device.sm}", f"sm_{device.sm}a") if targets_of(s, t)[0]), None)
        if target is None:
            skipped.append(f"{s.instruction} ({targets_of(s, f'sm_{device.sm}')[1]})")
            continue
        written.append(record(s, where, target, seed, device))
    return written, skipped


README = """# ldmatrix, stmatrix and movmatrix probe kernels, to run by hand

Written by `checker probe --emit-ptx`. `manifest-movement.json` lists each kernel: its PTX file,
`.target`, the number of warps, and its parameters in order. Launch grid (`warps`, 1, 1), block
(32, 1, 1), one `.u64` parameter per array named in `params`, the device address of that array.
Inputs are `<kernel>.<array>.bin` (raw little-endian, dtype and shape in the manifest): copy each
to the device as is. Fill each output with 0xFF bytes before the launch, copy it back after, and
compare it byte for byte with `<kernel>.<array>.expected.bin`, what the specs' readings predict
(a .b6x16_p32 / .b4x16_p64 form whose spec gives no container reading has none: {unpacked}; where
one leaves a container's upper bits unsaid, compare only each container's value bits).
"""


def emit(subjects: dict, where: str, wanted: str | None, seed: int) -> list:
    """Every subject's PTX, inputs and expected outputs into `where`; -> manifest entries."""
    import numpy as np

    from checker.probe.movement_ptx import PARAMS
    from checker.probe.movement_run import inputs, predicted, ptx_of
    from checker.probe.movement_forms import UNPACKED

    manifest = []
    for s in subjects.values():
        target, note = _target_for(s, wanted)
        outputs.write_text(os.path.join(where, s.kernel + ".ptx"), ptx_of(s, target), "--emit-ptx", follow_links=False)
        probe = inputs(s, seed)
        arrays = {n: (a, "in") for n, a in probe.arrays.items()}
        if s.predictable:
            arrays.update({n: (a, "expected") for n, a in predicted(s, probe.arrays).items()})
        files = {}
        for name, (a, kind) in arrays.items():
            a = np.asarray(a)
            fname = f"{s.kernel}.{name}{'.expected' if kind == 'expected' else ''}.bin"
            outputs.write_bytes(os.path.join(where, fname), a.astype("<u1" if a.dtype == np.uint8 else "<u4").tobytes(),
                                "--emit-ptx", follow_links=False)
            files[name + (".expected" if kind == "expected" else "")] = {
                "file": fname, "dtype": "u8" if a.dtype == np.uint8 else "u32", "shape": list(a.shape)}
        manifest.append({"kernel": s.kernel, "instruction": s.instruction, "ptx": s.kernel + ".ptx", "target": target,
                         "warps": probe.warps, "params": list(PARAMS[s.family]), "arrays": files,
                         "blocks": [{"kind": k, "count": n} for k, n in probe.blocks],
                         "note": note or (None if s.predictable else s.unpredictable)})
    # through checker.outputs as the other emitters write: a FIFO or device planted in the folder
    # is refused, not opened (a FIFO with no reader would hang the command)
    outputs.write_text(os.path.join(where, "manifest-movement.json"),
                       json.dumps(manifest, indent=1, sort_keys=True) + "\n", "--emit-ptx", follow_links=False)
    outputs.write_text(os.path.join(where, "README-movement.md"), README.format(unpacked=UNPACKED[1]), "--emit-ptx",
                       follow_links=False)
    return manifest
