"""`checker probe --emit-ptx DIR`: every variant's probe kernel written out with its inputs and the
D the reference model predicts, so that someone with a GPU and no Python can run them by hand."""
from __future__ import annotations

import json
import os

from checker import outputs
from checker.commands.probe_compile import archs, variants_of
from checker.errors import UsageError
from checker.terminal import lines

README = """# Probe kernels, to run by hand

Written by {command}. One kernel per `mma` variant; each only moves raw register images: every
thread loads its A, B and C registers from global memory, runs the one `mma`, and stores D. All
layout knowledge stays in the specs, which made the inputs and predict the output.

For each kernel in `manifest.json`:

- `<kernel>.ptx`: PTX ISA {ptx}, `.target` as listed (it runs on that GPU or a newer one; the
  driver JIT-compiles it, or assemble it with `ptxas -arch=<target>`).
- Launch: grid (`warps`, 1, 1), block (32, 1, 1), no shared memory; four `.u64` parameters, the
  device addresses of A, B, C and D, in that order.
- `<kernel>.A.bin`, `.B.bin`, `.C.bin`: the inputs, raw little-endian words of `bits` bits,
  ordered [warp][lane][register] (`registers` words per lane). Copy each to the device as is.
- D is `warps x 32 x registers` words of D's `bits`. Copy it back and compare it byte for byte
  with `<kernel>.D.expected.bin`, the D the reference model (checker.semantics) computes from the
  specs: equal means the GPU places every element where the specs say. Fill D with 0xFF bytes
  before the launch, so that a warp that writes nothing cannot pass.

`checker probe` does all of this itself on a GPU (the `[gpu]` extra) and writes dumps that
`checker crosscheck` reads; `patterns` in the manifest are the blocks of warps those dumps describe.
"""


def emit(args, out, mma_paths: list | None = None, moving: dict | None = None, wgmma: list | None = None) -> int:
    """Write DIR/<kernel>.ptx, its input images, its expected D, manifest.json and README.md."""
    import numpy as np

    from checker.catalogue import min_sm
    from checker.probe import patterns
    from checker.probe.ptx import PTX_VERSION, generate, kernel_name
    from checker.semantics.execute import execute, geometries

    where = outputs.folder(args.emit_ptx, "--emit-ptx")
    targets = archs(args.arch) if args.arch else None
    if targets is not None and len(targets) != 1:
        raise UsageError("--emit-ptx takes one --arch (default: each variant's minimum target)")
    outputs.make_folder(where, "--emit-ptx")
    manifest, skipped = [], []
    for path, v in (variants_of(args.paths if mma_paths is None else mma_paths) if mma_paths != [] else []):
        need = min_sm(v)
        sm = targets[0] if targets else need
        if need is None or sm < need:
            skipped.append(f"{v.instruction} (needs sm_{need})")
            continue
        name = kernel_name(v)
        blocks, imgs = patterns.build(v, args.seed)
        geo = geometries(v)
        imgs = dict(imgs, D=execute(v, imgs["A"], imgs["B"], imgs["C"], geo))
        files = {"ptx": f"{name}.ptx"}
        outputs.write_text(os.path.join(where, files["ptx"]), generate(v, sm), "--emit-ptx", follow_links=False)
        for op in "ABCD":
            files[op] = f"{name}.{op}.bin" if op != "D" else f"{name}.D.expected.bin"
            dtype = np.dtype("<u4" if geo[op].reg_bits == 32 else "<u8")
            image = np.ascontiguousarray(imgs[op].astype(dtype)).tobytes()
            outputs.write_bytes(os.path.join(where, files[op]), image, "--emit-ptx", follow_links=False)
        manifest.append({
            "instruction": v.instruction, "variant": v.id, "spec": path.replace(os.sep, "/"), "kernel": name,
            "ptx": files["ptx"], "target": f"sm_{sm}", "warps": int(len(imgs["A"])),
            "operands": {op: {"file": files[op], "registers": geo[op].count, "bits": geo[op].reg_bits}
                         for op in "ABCD"},
            "seed": args.seed, "patterns": [b.as_json() for b in blocks]})
    moved = []
    if moving:
        from checker.commands.probe_movement import emit as emit_movement

        moved = emit_movement(moving, where, args.arch, args.seed)
    wg = []
    if wgmma:
        from checker.commands.probe_wgmma import emit as emit_wgmma

        if targets is not None and targets != [90]:
            skipped.append(f"{len(wgmma)} wgmma variants (need sm_90a)")
        else:
            wg = emit_wgmma(wgmma, where)
    if not manifest and not moved and not wg:
        raise UsageError("no variant could be emitted: " + "; ".join(skipped))
    command = " ".join(["checker probe", *args.paths, "--emit-ptx", args.emit_ptx]
                       + (["--arch", args.arch] if args.arch else []) + (["--seed", str(args.seed)] if args.seed else []))
    if manifest:
        outputs.write_text(os.path.join(where, "manifest.json"), json.dumps(manifest, indent=1) + "\n", "--emit-ptx",
                           follow_links=False)
        from checker.report.markdown import code

        # the paths are the user's: a code span they cannot close, on one line
        outputs.write_text(os.path.join(where, "README.md"), README.format(command=code(command), ptx=PTX_VERSION),
                           "--emit-ptx", follow_links=False)
    if args.format == "json":
        json.dump({"folder": where, "kernels": [m["kernel"] for m in manifest + moved + wg], "skipped": skipped}, out,
                  indent=1)
        out.write("\n")
    else:
        out.write(lines(_text(where, manifest, moved, wg, skipped)))
    return 0


def _text(where: str, manifest: list, moved: list, wg: list, skipped: list) -> list:
    """What --emit-ptx says it wrote, as lines for checker.terminal (DIR is the user's path)."""
    text = [f"wrote {os.path.join(where, m['ptx'])} ({m['target']}, {m['warps']} warps)" for m in manifest + moved]
    text += [f"skipped {s}" for s in skipped]
    if manifest:
        text.append(f"{len(manifest)} kernels with their inputs and expected D in {where}; how to run them: "
                    f"{os.path.join(where, 'README.md')}")
    if wg:
        text.append(f"{len(wg)} wgmma kernels (sm_90a, 128 threads a CTA) in {where}; what each takes: "
                    f"{os.path.join(where, 'wgmma-manifest.json')}")
    if moved:
        text.append(f"{len(moved)} ldmatrix, stmatrix and movmatrix kernels with their inputs and expected outputs in "
                    f"{where}; how to run them: {os.path.join(where, 'README-movement.md')}")
    return text
