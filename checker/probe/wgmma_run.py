"""Probe the wgmma variants: build every kernel (one ptxas run per type combination, as
--compile-only does), run each variant's patterns in one launch (on a GPU through the [gpu]
extra's driver bindings, or through the reference model for a synthetic dump) and write its dump."""
from __future__ import annotations

import hashlib
import os

from checker.errors import CheckerError, UsageError
from checker.probe import wgmma_dump as dumps
from checker.probe import wgmma_model as model
from checker.probe import wgmma_patterns as patterns
from checker.probe.wgmma_ptx import TARGET, THREADS, generate, kernel_name


def build(vs: list) -> dict:
    """{variant id: (kernel header, cubin or None)}; without ptxas the driver gets the PTX."""
    heads = {}
    for v in vs:
        ptx = generate(v)
        heads[v.id] = {"name": kernel_name(v), "ptx_version": v.ptx_version, "target": TARGET,
                       "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest(), "assembler": None, "sass": None}
    try:
        from checker.probe.assemble import ptxas, version

        tool = ptxas()
    except UsageError:
        return {v.id: (heads[v.id], None) for v in vs}
    from checker.probe import sass
    from checker.probe.wgmma_build import build_all

    out = {}
    for b in build_all(vs, tool, sass.nvdisasm(), os.cpu_count() or 1):
        if not b.ok:
            raise CheckerError(f"ptxas cannot build {b.variant.instruction} ({b.variant.id}) for {TARGET}: {b.message}")
        head = dict(heads[b.variant.id], assembler=version(tool), sass=None if b.sass is None else b.sass["opcodes"])
        out[b.variant.id] = (head, b.cubin)
    return out


def record(v, spec, built: tuple, out_dir: str, seed: int = 0, device=None) -> str:
    """Write one dump; device None: synthetic (the reference model writes d_out)."""
    from checker.probe.dump import sha256_file
    from checker.probe.record import tool_info

    head, cubin = built
    blocks, arrays = patterns.build(v, spec, seed)
    ctas = len(arrays["scale_d"])
    if device is None:
        d_out = model.predict(v, spec, arrays)
        source, note = "synthetic", dumps.SYNTHETIC_NOTE
        dev = {"name": "reference model (checker.probe.wgmma_model), no GPU", "sm": None, "driver_version": None,
               "cuda_version": None}
    else:
        from checker.probe.movement_gpu import launch

        image = cubin if cubin is not None else generate(v).encode()
        got = launch(device, image, kernel_name(v), v.params, arrays,
                     {"d_out": (arrays["d_in"].shape, arrays["d_in"].dtype)}, ctas, THREADS)
        d_out = got["d_out"]
        source, note = "hardware", ("d_out came back from the device named here; it was filled with 0xFF bytes "
                                    "before the launch")
        dev = device.describe()
    header = {"source": source, "note": note, "device": dev, "instruction": v.instruction, "variant": v.id,
              "n": v.n, "a_source": v.a_source, "swizzle": v.swizzle, "descriptor_high": f"0x{v.descriptor_high():016x}",
              "spec": {"file": v.spec, "sha256": sha256_file(v.spec)}, "kernel": head, "seed": seed,
              "blocks": [b.as_json() for b in blocks], "tool": tool_info()}
    path = os.path.join(out_dir, dumps.file_name(v.id))
    dumps.write(path, header, dict(arrays, d_out=d_out))
    return path


def record_all(found: list, out_dir: str, seed: int = 0, device=None, keep=None) -> list:
    """found: [(variant, spec)], `keep` a filter on variants; -> the dump paths written."""
    todo = [(v, s) for v, s in found if keep is None or keep(v)]
    built = build([v for v, _ in todo])
    return [record(v, s, built[v.id], out_dir, seed, device) for v, s in todo]


# the synthetic dumps kept in reports/synthetic/: every K, both A sources, every swizzle mode
# (spec, N, dtype, atype, btype, A from shared memory, swizzle)
SAMPLE = (("specs/m64nNk8.yaml", 8, "f32", "tf32", "tf32", False, "none"),
          ("specs/m64nNk16.yaml", 24, "f16", "f16", "f16", True, "none"),
          ("specs/m64nNk16.yaml", 64, "f32", "f16", "f16", False, "none"),
          ("specs/m64nNk16.yaml", 256, "f32", "bf16", "bf16", False, "128B"),
          ("specs/m64nNk32.yaml", 8, "f16", "e5m2", "e4m3", True, "32B"),
          ("specs/m64nNk32.yaml", 256, "s32", "s8", "u8", True, "64B"),
          ("specs/m64nNk256.yaml", 8, "s32", "b1", "b1", False, "none"))
# and two sparse ones (wgmma.mma_async.sp): the compressed A from registers and from shared memory
SAMPLE_SP = (("specs/m64nNk32.sp.yaml", 8, "f32", "f16", "f16", False, "none"),
             ("specs/m64nNk16.sp.yaml", 256, "f32", "tf32", "tf32", True, "none"))


def sample() -> list:
    """[(variant, spec)] of SAMPLE and SAMPLE_SP (a sparse variant's spec: its Joined view)."""
    from checker.probe import wgmma_sp
    from checker.probe.wgmma_ptx import variants
    from checker.spec.load import load_spec

    out = []
    for path in dict.fromkeys(p[0] for p in SAMPLE + SAMPLE_SP):
        spec = load_spec(path)
        sparse = spec.family == "wgmma.sp"
        view = wgmma_sp.joined(spec, path) if sparse else spec
        out += [(v, view) for v in (wgmma_sp.variants(spec, path) if sparse else variants(spec, path))
                if (v.spec, v.n, v.dtype, v.atype, v.btype, v.a_shared, v.swizzle) in SAMPLE + SAMPLE_SP]
    return out


if __name__ == "__main__":  # python -m checker.probe.wgmma_run DIR: the SAMPLE's synthetic dumps
    import sys

    for p in record_all(sample(), sys.argv[1] if len(sys.argv) > 1 else os.path.join("reports", "synthetic")):
        print("wrote", p)
