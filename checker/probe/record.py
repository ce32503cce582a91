"""Probe one variant: build its patterns, run them (on a GPU, or through the reference model for a
synthetic dump) and write the dump."""
from __future__ import annotations

import hashlib
import os
from importlib.metadata import PackageNotFoundError, version

from checker.errors import UsageError
from checker.probe import dump, patterns, sass
from checker.probe.assemble import build, ptxas, version as ptxas_version
from checker.probe.ptx import PTX_VERSION, generate, kernel_name
from checker.semantics.execute import execute, geometries


def tool_info() -> dict:
    try:
        return {"name": "ptx-fragment-checker", "version": version("ptx-fragment-checker")}
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return {"name": "ptx-fragment-checker", "version": "source"}


def _kernel(v, sm: int) -> tuple:
    """(kernel header, cubin bytes or None, PTX text). Without ptxas the driver gets the PTX."""
    ptx = generate(v, sm)
    head = {"name": kernel_name(v), "ptx_version": PTX_VERSION, "target": f"sm_{sm}",
            "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest(), "assembler": None, "sass": None}
    try:
        tool = ptxas()
    except UsageError:
        return head, None, ptx
    built = build(v, sm, tool)
    if not built.ok:
        raise RuntimeError(f"ptxas cannot build {v.instruction} for sm_{sm}: {built.message}")
    head["assembler"] = ptxas_version(tool)
    head["sass"] = sass.disassemble(built.cubin)
    return head, built.cubin, ptx


def record(v, spec_path: str, out_dir: str, sm: int, seed: int = 0, device=None) -> str:
    """Write one dump; device None means synthetic (the reference model computes D)."""
    blocks, imgs = patterns.build(v, seed)
    geo = geometries(v)
    head, cubin, ptx = _kernel(v, sm)
    if device is None:
        d = execute(v, imgs["A"], imgs["B"], imgs["C"], geo)
        source, note = "synthetic", dump.SYNTHETIC_NOTE
        dev = {"name": "reference model (checker.semantics), no GPU", "sm": None, "driver_version": None,
               "cuda_version": None}
    else:
        d = device.run(cubin if cubin is not None else ptx.encode(), kernel_name(v), imgs,
                       {op: geo[op].reg_bits for op in "ABCD"}, {op: geo[op].count for op in "ABCD"})
        source, note = "hardware", "D came back from the device named here; outputs were poisoned with 0xFF before the launch"
        dev = device.describe()
    imgs = dict(imgs, D=d)
    header = {"source": source, "note": note, "device": dev, "instruction": v.instruction, "shape": v.shape,
              "variant": v.id, "spec": {"file": spec_path.replace(os.sep, "/"), "sha256": dump.sha256_file(spec_path)},
              "kernel": head, "seed": seed, "patterns": [b.as_json() for b in blocks], "tool": tool_info()}
    path = os.path.join(out_dir, dump.file_name(v.shape, v.id))
    dump.write(path, header, imgs, {op: geo[op].reg_bits for op in "ABCD"})
    return path
