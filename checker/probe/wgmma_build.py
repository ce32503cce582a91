"""Every wgmma probe kernel assembled by ptxas for sm_90a, no GPU needed, with the SASS each
became: one module (one ptxas run) per spec and type combination, split per kernel by nvdisasm;
where ptxas rejects a module, each of its kernels is assembled alone, so the rejection names the
kernel it is about."""
from __future__ import annotations

from dataclasses import dataclass

from checker.probe import sass
from checker.probe.assemble import assemble
from checker.probe.wgmma_ptx import TARGET, WgmmaVariant, generate, kernel_name, module

# the SASS instruction each multiplicand type becomes: 16-/32-bit floats HGMMA, fp8 QGMMA,
# 8-bit integers IGMMA, single bits BGMMA
EXPECTED = {"f16": "HGMMA", "bf16": "HGMMA", "tf32": "HGMMA", "e4m3": "QGMMA", "e5m2": "QGMMA",
            "s8": "IGMMA", "u8": "IGMMA", "b1": "BGMMA"}


@dataclass
class Built:
    variant: WgmmaVariant
    ok: bool
    message: str  # "assembled", or ptxas's message
    sass: dict | None = None  # {opcodes, tensor_core, emulated}; None without nvdisasm
    cubin: bytes | None = None  # the module that holds the kernel (shared by its group)

    @property
    def expected(self) -> str:
        return EXPECTED[self.variant.atype]

    @property
    def wgmma_ops(self) -> dict:
        """The warpgroup mma instructions of the kernel's SASS: {opcode: count}."""
        return {op: n for op, n in (self.sass or {}).get("opcodes", {}).items() if op.split(".")[0] in sass.WGMMA}

    @property
    def sass_ok(self) -> bool | None:
        """One warpgroup mma of the expected kind and nothing else, sparse (HGMMA.SP.64x8x32.F32) for
        a sparse variant and dense otherwise; None where SASS was not read."""
        if self.sass is None:
            return None
        ops = self.wgmma_ops
        if sum(ops.values()) != 1:
            return False
        parts = next(iter(ops)).split(".")
        return parts[0] == self.expected and (parts[1] == "SP") == self.variant.sparse


def groups(vs) -> list:
    """The variants in modules: one per spec, A type, B type and D type (both A sources)."""
    out: dict = {}
    for v in vs:
        out.setdefault((v.spec, v.atype, v.btype, v.dtype), []).append(v)
    return list(out.values())


def build_group(vs: list, tool: str, disasm: str | None) -> list:
    v0 = vs[0]
    name = f"wgmma_probe_{'sp_' if v0.sparse else ''}{v0.k}_{v0.dtype}_{v0.atype}_{v0.btype}"
    ok, message, cubin = assemble(tool, module(vs, f"wgmma register-fragment probe: {name}"), TARGET[3:], name)
    if not ok:
        return [build_one(v, tool, disasm) for v in vs]
    each = sass.disassemble_each(cubin, disasm) if disasm else None
    return [Built(v, True, "assembled", None if each is None else each.get(kernel_name(v), {}), cubin) for v in vs]


def build_one(v: WgmmaVariant, tool: str, disasm: str | None) -> Built:
    ok, message, cubin = assemble(tool, generate(v), TARGET[3:], kernel_name(v))
    return Built(v, ok, message, sass.disassemble(cubin, disasm) if ok and disasm else None, cubin if ok else None)


def build_all(vs, tool: str, disasm: str | None, workers: int = 1) -> list:
    """Built for every variant, in the order given."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:  # each group is one or two subprocesses
        done = [b for bs in pool.map(lambda g: build_group(g, tool, disasm), groups(vs)) for b in bs]
    order = {id(b.variant): b for b in done}
    return [order[id(v)] for v in vs]
