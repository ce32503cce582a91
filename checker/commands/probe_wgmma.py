"""`checker probe` for the wgmma specs (family wgmma, a warpgroup of 128 threads): --compile-only
assembles every kernel for sm_90a and reads its SASS; --emit-ptx writes the kernels; --synthetic
and the GPU run write one dump per variant (checker/probe/wgmma_run.py)."""
from __future__ import annotations

import json
import os

from checker import outputs


def split(paths) -> tuple:
    """(the spec files that are not wgmma, the wgmma variants of the others)."""
    from checker.commands.common import spec_files
    from checker.files import is_relations_file
    from checker.probe.wgmma_ptx import variants
    from checker.spec.checked import load_checked

    rest, found = [], []
    for path in spec_files(paths):
        if is_relations_file(path):
            continue
        spec = load_checked(path)
        if spec.family == "wgmma":
            found.extend(variants(spec, path.replace(os.sep, "/")))
        elif spec.family == "wgmma.sp":
            from checker.probe.wgmma_sp import variants as sparse_variants

            found.extend(sparse_variants(spec, path.replace(os.sep, "/")))
        else:
            rest.append(path)
    return rest, found


def record_all(vs: list, where: str, seed: int, device=None) -> tuple:
    """Every variant's dump (synthetic where device is None) -> (paths written, skipped with why).
    wgmma runs on sm_90a only: a device of another sm skips them all."""
    from checker.probe.wgmma_run import record_all as run_all
    from checker.spec.checked import load_checked

    if device is not None and device.sm != 90:
        return [], [f"{len(vs)} wgmma variants (need sm_90a; the device is sm_{device.sm})"]
    from checker.probe.wgmma_sp import joined

    specs = {p: load_checked(p) for p in dict.fromkeys(v.spec for v in vs)}
    specs = {p: joined(s, p) if s.family == "wgmma.sp" else s for p, s in specs.items()}
    return run_all([(v, specs[v.spec]) for v in vs], where, seed, device), []


def wanted(arch: str | None) -> bool:
    """wgmma runs on sm_90a alone (9.7.15.5.2 "Target ISA Notes"): built where --arch names it."""
    from checker.commands.probe_movement import targets

    return "sm_90a" in targets(arch or "sm_80,sm_89,sm_90")


def compile_rows(vs: list, arch: str | None) -> list:
    """One row per variant: assembled for sm_90a (where --arch names it) with its SASS."""
    from checker.probe import sass
    from checker.probe.assemble import ptxas
    from checker.probe.wgmma_build import EXPECTED, build_all

    if not wanted(arch):
        return [_row(v, "skipped", "needs sm_90a (--arch sm_90a)", None, EXPECTED[v.atype], None) for v in vs]
    built = build_all(vs, ptxas(), sass.nvdisasm(), os.cpu_count() or 1)
    return [_row(b.variant, "assembled" if b.ok else "rejected", b.message, b.sass, b.expected, b.sass_ok)
            for b in built]


def _row(v, result, message, code, expected, sass_ok) -> dict:
    return {"spec": v.spec, "instruction": v.instruction, "a_source": v.a_source, "kernel": _kernel(v),
            "arch": "sm_90a", "result": result, "message": message, "sass": code, "expected_sass": expected,
            "sass_ok": sass_ok}


def _kernel(v) -> str:
    from checker.probe.wgmma_ptx import kernel_name

    return kernel_name(v)


def worst(rows: list) -> int:
    """1 where ptxas rejects a kernel or its SASS lacks the expected warpgroup mma."""
    return int(any(r["result"] == "rejected" or r["sass_ok"] is False for r in rows))


def compile_lines(rows: list) -> list:
    """The text of compile_rows' rows, as lines for checker.terminal (a rejection names the spec)."""
    from checker.terminal import rejected
    from checker.probe import sass

    done = [r for r in rows if r["result"] != "skipped"]
    if not done:
        return [f"wgmma: {len(rows)} variants skipped (need sm_90a: --arch sm_90a)"]
    text = []
    for r in done:
        if r["result"] == "rejected":
            text += rejected(f"{r['spec']}: error: ptxas (sm_90a) rejects {r['instruction']} (A from {r['a_source']})",
                             r["message"])
        elif r["sass_ok"] is False:
            got = sass.tensor_ops(r["sass"]["opcodes"]) or "no tensor-core instruction"
            text.append(f"{r['spec']}: error: {r['kernel']} became {got}, not one {r['expected_sass']}")
    count = {k: sum(r["result"] == k for r in done) for k in ("assembled", "rejected")}
    per = {src: sum(r["a_source"] == src for r in done) for src in ("registers", "shared")}
    sp = sum(".mma_async.sp." in r["instruction"] for r in done)
    text.append(f"sm_90a wgmma: {count['assembled']} assembled, {count['rejected']} rejected (A from registers "
                f"{per['registers']}, from shared memory {per['shared']}" + (f"; {sp} sparse" if sp else "") + ")")
    kinds: dict = {}
    for r in done:
        for op in (r["sass"] or {}).get("opcodes", {}):
            if op.split(".")[0] in sass.WGMMA:
                parts = op.split(".")
                at = 2 if parts[1] == "SP" else 1  # HGMMA.SP.64x8x32.F32: the shape after .SP
                key = ".".join(parts[:at] + ["64xNx" + parts[at].split("x")[-1]] + parts[at + 1:])
                kinds.setdefault(key, set()).add(int(parts[at].split("x")[1]))
    text += [f"  SASS {key}: N = {min(ns)}..{max(ns)} ({len(ns)} values)" for key, ns in sorted(kinds.items())]
    return text


def emit(vs: list, where: str) -> list:
    """DIR/<kernel>.ptx for every variant and wgmma-manifest.json; the manifest's entries."""
    from checker.probe import wgmma_ptx as wx

    manifest = []
    for v in vs:
        name = wx.kernel_name(v)
        outputs.write_text(os.path.join(where, name + ".ptx"), wx.generate(v), "--emit-ptx", follow_links=False)
        manifest.append({"instruction": v.instruction, "spec": v.spec, "kernel": name, "ptx": name + ".ptx",
                         "target": wx.TARGET, "ptx_version": v.ptx_version, "a_source": v.a_source,
                         "threads": wx.THREADS, "parameters": list(wx.PARAMS), "d_registers": v.d_registers,
                         "b_bytes": v.b_bytes, "a_bytes": v.a_bytes,
                         "descriptor": _descriptor(v),
                         "warps": wx.THREADS // 32})
    if manifest:
        outputs.write_text(os.path.join(where, "wgmma-manifest.json"), json.dumps(manifest, indent=1) + "\n",
                           "--emit-ptx", follow_links=False)
    return manifest


def _descriptor(v) -> dict:
    from checker.probe.wgmma_smem import strides

    lbo, sbo = strides(v.swizzle)
    return {"swizzle": v.swizzle, "lbo_bytes": lbo, "sbo_bytes": sbo, "high_bits": f"0x{v.descriptor_high():016x}"}

