"""Probe ldmatrix / stmatrix / movmatrix (and the chained kernel): which forms the specs give,
their kernels built for a target, one launch each (on a GPU, or through the reference model for
a synthetic dump), the dump written."""
from __future__ import annotations

import hashlib
import os

import numpy as np

from checker.errors import CheckerError, UsageError
from checker.probe import movement_dump as dumps
from checker.probe import movement_model as model
from checker.probe.movement_forms import chain_spec_path, forms_of
from checker.probe.movement_ptx import PARAMS, generate, generate_chain

MOVEMENT_SASS = ("LDSM", "STSM", "MOVM")
SEED = 0


def is_movement(spec) -> bool:
    return spec.family in ("ldmatrix", "stmatrix", "movmatrix")


def subjects_of(specs: list) -> dict:
    """specs: [(path, Spec)] -> {instruction: Form or Chain}, in the specs' order; the chain where
    an ldmatrix.m8n8 spec has m16n8k16.yaml beside it (or among the specs)."""
    from checker.probe.movement_chain import chain_of
    from checker.spec.load import load_spec

    out = {}
    for path, spec in specs:
        if not is_movement(spec):
            continue
        forms = forms_of(path, spec)
        out.update((f.instruction, f) for f in forms)
        mma_path = chain_spec_path(path)
        if mma_path is not None:
            same = [s for p, s in specs if os.path.abspath(p) == os.path.abspath(mma_path)]
            chain = chain_of(forms, spec, mma_path, same[0] if same else load_spec(mma_path))
            if chain is not None:
                out[chain.instruction] = chain
    return out


def targets_of(subject, target: str) -> tuple:
    """(runs there, PTX version or why not)."""
    return subject.supports(target)


def ptx_of(subject, target: str) -> str:
    return generate_chain(target) if subject.family == "chain" else generate(subject, target)


def minimum_target(subject) -> str:
    from checker.probe.movement_chain import TARGET

    return TARGET if subject.family == "chain" else subject.minimum_target()


def kernel(subject, target: str) -> tuple:
    """(kernel header, cubin or None, PTX text). Without ptxas the driver gets the PTX."""
    from checker.probe import sass
    from checker.probe.assemble import assemble, ptxas, version

    ptx = ptx_of(subject, target)
    head = {"name": subject.kernel, "target": target, "ptx_version": ptx.split("\n")[1].split()[1],
            "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest(), "assembler": None, "sass": None}
    try:
        tool = ptxas()
    except UsageError:
        return head, None, ptx
    ok, message, cubin = assemble(tool, ptx, target.removeprefix("sm_"), subject.kernel)
    if not ok:
        raise CheckerError(f"ptxas cannot build {subject.instruction} for {target}: {message}")
    head["assembler"] = version(tool)
    found = sass.disassemble(cubin)
    head["sass"] = None if found is None else found["opcodes"]
    return head, cubin, ptx


def inputs(subject, seed: int) -> model.Probe:
    return subject.build(seed) if subject.family == "chain" else model.build(subject, seed)


def outputs_of(subject, probe: model.Probe) -> dict:
    """{name: (shape, dtype)} of the arrays the kernel writes."""
    warps = probe.warps
    if subject.family == "chain":
        return {"d_out": ((warps, 32, 4), np.uint32), "fragments_out": ((warps, 32, 6), np.uint32)}
    _, outs = model.inputs_of(subject)
    return {name: (probe.arrays["image"].shape, np.uint8) if name == "image_out"
            else ((warps, 32, subject.count), np.uint32) for name in outs}


def predicted(subject, arrays: dict) -> dict:
    return subject.predict(arrays) if subject.family == "chain" else model.predict(subject, arrays)


def record(subject, out_dir: str, target: str, seed: int = SEED, device=None) -> str:
    """Write one dump; device None: synthetic (the reference model writes the outputs)."""
    from checker.probe.dump import sha256_file
    from checker.probe.record import tool_info

    probe = inputs(subject, seed)
    head, cubin, ptx = kernel(subject, target)
    if device is None:
        arrays = dict(probe.arrays, **predicted(subject, probe.arrays))
        source, note = "synthetic", dumps.SYNTHETIC_NOTE
        dev = {"name": "reference model (checker.probe.movement_model), no GPU", "sm": None}
    else:
        from checker.probe.movement_gpu import launch

        got = launch(device, cubin if cubin is not None else ptx.encode(), subject.kernel, PARAMS[subject.family],
                     probe.arrays, outputs_of(subject, probe), probe.warps)
        arrays = dict(probe.arrays, **got)
        source, note = "hardware", ("the outputs came back from the device named here; they were filled with 0xFF "
                                    "bytes before the launch")
        dev = device.describe()
    spec = subject.spec_path
    header = {"source": source, "note": note, "device": dev, "instruction": subject.instruction,
              "family": subject.family, "spec": spec.replace(os.sep, "/"), "spec_sha256": sha256_file(spec),
              "kernel": head, "seed": seed, "blocks": [{"kind": k, "count": n} for k, n in probe.blocks],
              "tool": tool_info()}
    path = os.path.join(out_dir, dumps.file_name(subject.name))
    dumps.write(path, header, arrays)
    return path


def crosscheck_movement(specs: list, paths: list) -> tuple:
    """specs: [(path, Spec)]; the movement dumps at `paths` checked -> (results, stats)."""
    from checker.probe.movement_check import crosscheck

    return crosscheck(subjects_of(specs), paths)
