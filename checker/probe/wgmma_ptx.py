"""PTX kernels for the wgmma register-fragment probe (Hopper, sm_90a): the instruction variants a
wgmma spec covers, and one kernel per variant.

The kernels know no fragment layout. One CTA is one warpgroup (128 threads) running one pattern:
it copies its B image (raw bytes, laid out by the host) into shared memory and, for the
A-from-shared-memory form, its A image too; makes the writes visible to the async proxy
(fence.proxy.async, 9.7.15.4); loads its A registers (register form) and its D registers from
global memory; runs one `wgmma.mma_async` between wgmma.fence and commit_group / wait_group 0;
and stores D. Which thread's register holds which element is worked out on the host from the
spec, so no layout formula is shared by kernel and analysis.

Shared memory is read through matrix descriptors (9.7.15.5.1.2.2, read in PTX ISA 9.2, the version
that prints the descriptor's fields and the shared-memory layouts), with no swizzle or, in the
swizzled variants, the 32B, 64B or 128B swizzle (checker/probe/wgmma_smem.py: the layout, the
descriptor, the host-side image). Without swizzle, every
multiplicand's K extent is 32 bytes (k8 .tf32, k16 .f16/.bf16, k32 8-bit types, k256 .b1), two
core matrices of 8 rows x 16 bytes: each core matrix is 128 contiguous bytes, the two along K
are LBO = 128 bytes apart and the next 8 rows (of N for B, of M for A) SBO = 256 bytes on, so an
image is dense: the byte at offset 256*(r//8) + 128*(kb//16) + 16*(r%8) + kb%16 holds row r's
(N for B, M for A) K byte kb. Both are K-major (imm-trans-a = imm-trans-b = 0). Swizzled, each row
is one row of the swizzle atom (32, 64 or 128 bytes, its first 32 the row's K), 8 rows SBO = 8 x the
row apart, the buffers aligned to 1024 bytes so that every pattern starts on its boundary (base
offset 0).

Global memory, per CTA c and thread t of the CTA (u32 words):
  A (register form): [c][t][4]    A (shared form): [c][a_bytes / 4]    B: [c][b_bytes / 4]
  D in and out: [c][t][R], R = D's registers    S: [c] (scale-d: nonzero D = A*B + D, zero D = A*B)
"""
from __future__ import annotations

from dataclasses import dataclass

from checker.catalogue import WGMMA_MIXED_INT_PTX as MIXED_INT_VERSION, WGMMA_PTX, WGMMA_TARGET as TARGET
from checker.export import safe
from checker.probe import wgmma_smem

PTX_VERSION = WGMMA_PTX[False]
THREADS = 128
K_BYTES = 32  # a row's K extent in bytes, for every wgmma type
LBO_BYTES = 128
SBO_BYTES = 256
A_BYTES = 64 * K_BYTES
PARAMS = ("a", "b", "d_in", "scale_d", "d_out")  # the kernel's .u64 parameters, in order

# atype -> (btypes allowed with it, dtypes), from 9.7.15.5.2's syntax
RULES = {
    "f16": (("f16",), ("f16", "f32")),
    "bf16": (("bf16",), ("f32",)),
    "tf32": (("tf32",), ("f32",)),
    "e4m3": (("e4m3", "e5m2"), ("f16", "f32")),
    "e5m2": (("e4m3", "e5m2"), ("f16", "f32")),
    "s8": (("s8", "u8"), ("s32",)),
    "u8": (("s8", "u8"), ("s32",)),
    "b1": (("b1",), ("s32",)),
}
_EBITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1}


@dataclass(frozen=True)
class WgmmaVariant:
    """One wgmma.mma_async instruction: shape, types, and where A comes from."""

    m: int
    n: int
    k: int
    dtype: str
    atype: str
    btype: str
    a_shared: bool  # A through a descriptor (a-desc) rather than in registers
    spec: str = ""  # the spec file it came from
    swizzle: str = "none"  # the swizzle mode of every descriptor of the kernel (wgmma_smem.SWIZZLES)

    @property
    def shape(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"

    @property
    def instruction(self) -> str:
        if self.atype == "b1":
            return f"wgmma.mma_async.sync.aligned.{self.shape}.s32.b1.b1.and.popc"
        return f"wgmma.mma_async.sync.aligned.{self.shape}.{self.dtype}.{self.atype}.{self.btype}"

    @property
    def a_source(self) -> str:
        return "shared" if self.a_shared else "registers"

    @property
    def d_registers(self) -> int:
        return self.n // 4 if self.dtype == "f16" else self.n // 2  # f16 D: two per .f16x2 register

    # what a sparse variant (checker/probe/wgmma_sp.py) changes: its parameters, B's K extent and
    # descriptor, the operands after b-desc, and A as the multiply sees it (decompressed)
    sparse = False
    params = PARAMS
    b_k_bytes = K_BYTES
    after_b = ""

    def b_descriptor_high(self) -> int:
        return self.descriptor_high()

    def expand_a(self, a, arrays):
        """(C, M, K) A as the kernel holds it -> A as the multiply uses it: the same, dense."""
        return a

    @property
    def b_bytes(self) -> int:
        return wgmma_smem.image_bytes(self.n, self.swizzle, self.b_k_bytes)

    @property
    def a_bytes(self) -> int:
        return wgmma_smem.image_bytes(self.m, self.swizzle) if self.a_shared else 0

    def descriptor_high(self) -> int:
        """The descriptor's bits other than the start address, as the kernel ORs them in."""
        lbo, sbo = wgmma_smem.strides(self.swizzle)
        return wgmma_smem.descriptor(0, lbo, sbo, self.swizzle)

    def immediates(self) -> str:
        """What follows scale-d: imm-scale-a, imm-scale-b = 1 (no negation), and for .f16/.bf16 the
        transposes (0: K-major); the integer and .b1 forms take none."""
        if self.atype in ("s8", "u8", "b1"):
            return ""
        trans = (", 0, 0" if self.a_shared else ", 0") if self.atype in ("f16", "bf16") else ""
        return ", 1, 1" + trans

    @property
    def ptx_version(self) -> str:
        mixed_int = self.atype in ("s8", "u8") and self.atype != self.btype
        return MIXED_INT_VERSION if mixed_int else PTX_VERSION

    @property
    def id(self) -> str:
        tail = "" if self.swizzle == "none" else f".swizzle_{self.swizzle}"
        return f"{self.shape}.{self.dtype}.{self.atype}.{self.btype}.a_{self.a_source}{tail}"


def kernel_name(v: WgmmaVariant) -> str:
    tail = "" if v.swizzle == "none" else f"_sw{v.swizzle[:-1]}"
    return f"wgmma_probe_{'sp_' if v.sparse else ''}{v.shape}_{v.dtype}_{v.atype}_{v.btype}_{'as' if v.a_shared else 'ar'}{tail}"


def variants(spec, path: str = "", a_shared=(False, True), swizzled: bool = True) -> list:
    """Every wgmma variant of a wgmma spec: its A types x the btypes and D types the syntax allows
    with each, at every N where the spec's D row of that type exists, A from registers and from
    shared memory, without swizzle; then (swizzled) the same at the smallest and the largest of
    those N with each swizzle mode (the swizzle moves bytes of shared memory, not registers: two N,
    one 8 rows of B and one 32 groups of 8, show it reading every row group)."""
    a_types = [t for f in spec.fragments() if f.operand == "A" for t in f.types_here()]
    d_at: dict = {}
    for f in spec.fragments():
        if f.operand in ("C", "D"):
            n = dict(f.params).get("N")
            for t in f.types_here():
                d_at.setdefault(t, set()).add(n)
    out = []
    for atype in dict.fromkeys(a_types):
        if atype not in RULES:
            continue
        btypes, dtypes = RULES[atype]
        for dtype in dtypes:
            for btype in btypes:
                ns = sorted(n for n in d_at.get(dtype, ()) if n is not None)
                for n in ns:
                    for shared in a_shared:
                        out.append(WgmmaVariant(spec.m, n, spec.k, dtype, atype, btype, shared, path))
                for mode in (wgmma_smem.SWIZZLES[1:] if swizzled and ns else ()):
                    for n in dict.fromkeys((ns[0], ns[-1])):
                        for shared in a_shared:
                            out.append(WgmmaVariant(spec.m, n, spec.k, dtype, atype, btype, shared, path, mode))
    return out


def _copy(label: str, src: str, dst: str, nbytes: int) -> list:
    """Every thread copies every 128th 16-byte chunk of `nbytes` from global %`src` to shared `dst`."""
    return ["    mov.u32 %r3, %r1;", f"{label}:", f"    setp.ge.u32 %p0, %r3, {nbytes // 16};", f"    @%p0 bra {label}_END;",
            "    mul.wide.u32 %rd2, %r3, 16;", f"    add.u64 %rd3, %{src}, %rd2;",
            "    ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd3];",
            f"    mov.u32 %r8, {dst};", "    shl.b32 %r9, %r3, 4;", "    add.u32 %r8, %r8, %r9;",
            "    st.shared.v4.u32 [%r8], {%r4, %r5, %r6, %r7};",
            f"    add.u32 %r3, %r3, {THREADS};", f"    bra {label};", f"{label}_END:"]


def _descriptor(reg: str, buf: str, hi: int) -> list:
    """%`reg` = the descriptor of shared `buf`: encode(start) | `hi` (encode(LBO) << 16 |
    encode(SBO) << 32 | swizzle mode << 62, base offset 0); encode(x) = (x & 0x3FFFF) >> 4."""
    hi = hi if hi < 1 << 62 else f"0x{hi:016X}"  # a mode in bits 63-62: written in hex, as unsigned
    return [f"    mov.u32 %r10, {buf};", "    and.b32 %r10, %r10, 0x3FFFF;", "    shr.u32 %r10, %r10, 4;",
            f"    cvt.u64.u32 %{reg}, %r10;", f"    or.b64 %{reg}, %{reg}, {hi};"]


def body(v: WgmmaVariant) -> list:
    """The .entry of one variant, without the module header."""
    regs, dreg = v.d_registers, ("f32" if v.dtype == "f32" else "b32")
    sw = "no swizzle" if v.swizzle == "none" else f"{v.swizzle} swizzle"
    align = 1024 if v.swizzle != "none" else 128  # every swizzle pattern starts on its boundary
    lines = [safe.comment("//", f"{v.instruction}: A from {v.a_source}, B K-major in shared memory ({sw})"),
             f".visible .entry {kernel_name(v)}(", ",\n".join(f"    .param .u64 p_{p}" for p in v.params), ")", "{",
             f"    .shared .align {align} .b8 smem_b[{v.b_bytes}];"]
    if v.a_shared:
        lines.append(f"    .shared .align {align} .b8 smem_a[{v.a_bytes}];")
    lines += ["    .reg .pred %p<2>;", "    .reg .b32 %r<12>, %a<4>;", f"    .reg .{dreg} %d<{regs}>;",
              "    .reg .b64 %rd<8>, %pa, %pb, %pdi, %ps, %pdo, %descA, %descB;"]
    if "meta" in v.params:
        lines += ["    .reg .b32 %meta;", "    .reg .b64 %pm;"]
    for p in v.params:
        short = {"a": "pa", "b": "pb", "d_in": "pdi", "scale_d": "ps", "d_out": "pdo", "meta": "pm"}[p]
        lines += [f"    ld.param.u64 %{short}, [p_{p}];", f"    cvta.to.global.u64 %{short}, %{short};"]
    lines += ["    mov.u32 %r0, %ctaid.x;", "    mov.u32 %r1, %tid.x;", f"    mad.lo.u32 %r2, %r0, {THREADS}, %r1;",
              f"    mul.wide.u32 %rd0, %r0, {v.b_bytes};", "    add.u64 %pb, %pb, %rd0;"]
    lines += _copy("COPY_B", "pb", "smem_b", v.b_bytes)
    if v.a_shared:
        lines += [f"    mul.wide.u32 %rd0, %r0, {v.a_bytes};", "    add.u64 %pa, %pa, %rd0;"]
        lines += _copy("COPY_A", "pa", "smem_a", v.a_bytes)
    # the generic proxy's shared-memory writes made visible to wgmma's async proxy, then to all
    lines += ["    fence.proxy.async.shared::cta;", "    bar.sync 0;"]
    if not v.a_shared:
        lines += ["    mul.wide.u32 %rd0, %r2, 16;", "    add.u64 %rd1, %pa, %rd0;"]
        lines += [f"    ld.global.b32 %a{j}, [%rd1+{4 * j}];" for j in range(4)]
    lines += [f"    mul.wide.u32 %rd0, %r2, {4 * regs};", "    add.u64 %rd1, %pdi, %rd0;", "    add.u64 %rd4, %pdo, %rd0;"]
    lines += [f"    ld.global.{dreg} %d{j}, [%rd1+{4 * j}];" for j in range(regs)]
    lines += ["    mul.wide.u32 %rd0, %r0, 4;", "    add.u64 %rd1, %ps, %rd0;", "    ld.global.u32 %r11, [%rd1];",
              "    setp.ne.u32 %p1, %r11, 0;"]
    if "meta" in v.params:  # sp-meta: one .b32 per thread
        lines += ["    mul.wide.u32 %rd0, %r2, 4;", "    add.u64 %rd1, %pm, %rd0;", "    ld.global.b32 %meta, [%rd1];"]
    lines += _descriptor("descB", "smem_b", v.b_descriptor_high())
    if v.a_shared:
        lines += _descriptor("descA", "smem_a", v.descriptor_high())
    a = "%descA" if v.a_shared else "{%a0, %a1, %a2, %a3}"
    d = "{" + ", ".join(f"%d{j}" for j in range(regs)) + "}"
    lines += ["    wgmma.fence.sync.aligned;", f"    {v.instruction} {d}, {a}, %descB{v.after_b}, %p1{v.immediates()};",
              "    wgmma.commit_group.sync.aligned;", "    wgmma.wait_group.sync.aligned 0;"]
    lines += [f"    st.global.{dreg} [%rd4+{4 * j}], %d{j};" for j in range(regs)]
    return lines + ["    ret;", "}", ""]


def _header(comment: str, version: str) -> list:
    return [safe.comment("//", comment), f".version {version}", f".target {TARGET}", ".address_size 64", ""]


def generate(v: WgmmaVariant) -> str:
    """One PTX module holding the one kernel of `v`, at the PTX ISA version it needs."""
    return "\n".join(_header(f"wgmma register-fragment probe: {v.instruction}", v.ptx_version) + body(v))


def module(vs, comment: str) -> str:
    """One PTX module holding the kernel of every variant in `vs` (one ptxas run for many), at the
    newest PTX ISA version one of them needs."""
    version = max((v.ptx_version for v in vs), key=lambda x: tuple(map(int, x.split("."))), default=PTX_VERSION)
    return "\n".join(_header(comment, version) + [line for v in vs for line in body(v)])
