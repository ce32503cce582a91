"""PTX kernels for ldmatrix, stmatrix and movmatrix, and for ldmatrix chained into mma.

The kernels know no layout. One 32-thread block per warp, each with its own shared buffer: the
warp copies its image (IMAGE_BYTES, from the host) into the buffer, every lane reads the byte
offset of its row from a host array, the one instruction runs, and the raw result goes out:
the destination registers (ldmatrix, movmatrix) or the whole buffer (stmatrix). Which lane's
address fed which row, and where every element went, is worked out on the host from the
spec (checker/probe/movement_model.py), so no layout formula is shared by kernel and analysis.

Memory: image [warp][byte]; addresses [warp][lane] (u32 byte offsets into the buffer, masked to
stay inside it and 16-byte aligned); registers [warp][lane][register] (u32).
"""
from __future__ import annotations

import os

from checker.export import safe
from checker.probe.movement_forms import IMAGE_BYTES

CHUNKS = IMAGE_BYTES // 16  # 16-byte chunks in the buffer; each lane copies every 32nd
OFFSET_MASK = (IMAGE_BYTES - 1) & ~15
CHAIN = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
CHAIN_A = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
CHAIN_B = "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"
CHAIN_KERNEL = "probe_ldmatrix_x4_x2_trans_mma_m16n8k16"
# the kernels' parameters, in order: the device addresses of these arrays
PARAMS = {"ldmatrix": ("image", "addresses", "registers_out"),
          "stmatrix": ("image", "addresses", "registers_in", "image_out"),
          "movmatrix": ("registers_in", "registers_out"),
          "chain": ("image", "addresses_a", "addresses_b", "c_in", "d_out", "fragments_out")}


def _head(name: str, target: str, version: str, params: list, comment: str) -> list:
    return [safe.comment("//", comment), f".version {version}", f".target {target}", ".address_size 64", "",
            f".visible .entry {name}(", ",\n".join(f"    .param .u64 {p}" for p in params), ")", "{",
            f"    .shared .align 16 .b8 buf[{IMAGE_BYTES}];",
            "    .reg .b32 %lane, %warp, %gl, %t, %base, %sa, %off32, %v<4>;",
            "    .reg .b64 %g, %off;"]


def _params(params: list) -> list:
    """Global pointers %p_<name>; %lane (= %tid.x: one warp per block), %warp, %gl = warp*32+lane."""
    out = [f"    .reg .b64 {', '.join('%' + p for p in params)};"]
    for p in params:
        out += [f"    ld.param.u64 %{p}, [{p}];", f"    cvta.to.global.u64 %{p}, %{p};"]
    return out + ["    mov.u32 %lane, %tid.x;", "    mov.u32 %warp, %ctaid.x;", "    mad.lo.u32 %gl, %warp, 32, %lane;",
                  "    mov.u32 %base, buf;"]


def _copy(src: str, into_shared: bool) -> list:
    """The warp's IMAGE_BYTES between global `src` + warp*IMAGE_BYTES and the buffer, 16 bytes a lane a step."""
    out = [f"    mul.wide.u32 %off, %warp, {IMAGE_BYTES};", f"    add.u64 %g, %{src}, %off;"]
    vec = "{%v0, %v1, %v2, %v3}"
    for k in range(CHUNKS // 32):
        out += [f"    add.u32 %t, %lane, {32 * k};", "    shl.b32 %t, %t, 4;", "    add.u32 %sa, %base, %t;",
                "    cvt.u64.u32 %off, %t;"]
        if into_shared:
            out += ["    add.u64 %off, %g, %off;", f"    ld.global.v4.u32 {vec}, [%off];",
                    f"    st.shared.v4.u32 [%sa], {vec};"]
        else:
            out += [f"    ld.shared.v4.u32 {vec}, [%sa];", "    add.u64 %off, %g, %off;",
                    f"    st.global.v4.u32 [%off], {vec};"]
    return out


def _address(param: str) -> list:
    """%sa = buf + this lane's byte offset from `param`."""
    return ["    mul.wide.u32 %off, %gl, 4;", f"    add.u64 %g, %{param}, %off;", "    ld.global.u32 %off32, [%g];",
            f"    and.b32 %off32, %off32, {OFFSET_MASK};", "    add.u32 %sa, %base, %off32;"]


def _lanes(param: str, regs: list, store: bool, kind: str = "u32", size: int = 4) -> list:
    """Load or store regs at param[(warp*32 + lane) * len(regs) + j]."""
    out = [f"    mul.wide.u32 %off, %gl, {size * len(regs)};", f"    add.u64 %g, %{param}, %off;"]
    for j, r in enumerate(regs):
        out.append(f"    st.global.{kind} [%g+{size * j}], {r};" if store else f"    ld.global.{kind} {r}, [%g+{size * j}];")
    return out


def _vec(regs: list) -> str:
    return "{" + ", ".join(regs) + "}"


def generate(form, target: str, version: str | None = None) -> str:
    """PTX for one form, targeting `target` (sm_90, sm_100a, ...) at `version` (default: form.version)."""
    version = version or form.version(target)
    regs = [f"%r{j}" for j in range(form.count)]
    decl = [f"    .reg .b32 {', '.join(regs)};"]
    if form.family == "ldmatrix":
        body = (_copy("image", True) + ["    bar.sync 0;"] + _address("addresses")
                + [f"    {form.instruction} {_vec(regs)}, [%sa];"] + _lanes("registers_out", regs, True))
    elif form.family == "stmatrix":
        # every lane's stores must land before the buffer is copied out, and the fill before the store
        body = (_copy("image", True) + ["    bar.sync 0;"] + _lanes("registers_in", regs, False) + _address("addresses")
                + [f"    {form.instruction} [%sa], {_vec(regs)};", "    bar.sync 0;"] + _copy("image_out", False))
    else:
        decl.append("    .reg .b32 %moved;")
        body = (_lanes("registers_in", ["%r0"], False) + [f"    {form.instruction} %moved, %r0;"]
                + _lanes("registers_out", ["%moved"], True))
    params = list(PARAMS[form.family])
    lines = (_head(form.kernel, target, version, params, f"{form.instruction}: layout {form.layout.id} "
                   f"of {os.path.basename(form.spec_path)}") + decl + _params(params) + body + ["    ret;", "}", ""])
    return "\n".join(lines)


def generate_chain(target: str, version: str = "8.7") -> str:
    """ldmatrix.x4 (A) and ldmatrix.x2.trans (B) from the image, C from global memory, into
    mma.m16n8k16 .f32.f16.f16.f32; D and the six loaded registers stored."""
    a, b = [f"%a{j}" for j in range(4)], [f"%b{j}" for j in range(2)]
    c, d = [f"%c{j}" for j in range(4)], [f"%d{j}" for j in range(4)]
    params = list(PARAMS["chain"])
    lines = _head(CHAIN_KERNEL, target, version, params, f"{CHAIN_A} and {CHAIN_B} into {CHAIN}")
    lines += [f"    .reg .b32 {', '.join(a + b)};", f"    .reg .f32 {', '.join(c + d)};"] + _params(params)
    lines += _copy("image", True) + ["    bar.sync 0;"]
    lines += _address("addresses_a") + [f"    {CHAIN_A} {_vec(a)}, [%sa];"]
    lines += _address("addresses_b") + [f"    {CHAIN_B} {_vec(b)}, [%sa];"]
    lines += _lanes("c_in", c, False, "f32")
    lines += [f"    {CHAIN} {_vec(d)}, {_vec(a)}, {_vec(b)}, {_vec(c)};"]
    lines += _lanes("d_out", d, True, "f32") + _lanes("fragments_out", a + b, True)
    return "\n".join(lines + ["    ret;", "}", ""])
