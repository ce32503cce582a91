"""The instruction variants a spec describes: shape, .alayout/.blayout, the four types and, for
.b1, the bit operation, each with the fragments that hold A, B, C and D.

The type rules are the PTX ISA's (9.7.14.2 "Matrix Data-types", the syntax and shape-specific
restrictions of 9.7.14.5.14), as tabulated in document/ptx-isa/mma-support-table.md section 3e.
"""
from __future__ import annotations

from dataclasses import dataclass

# multiplicand type -> accumulator (ctype, dtype) pairs; `m8n8k4` lets .f16 C feed .f32 D. The
# .kind::f8f6f4 types (.e3m2, .e2m3, .e2m1) are left out: their instructions carry a .kind
# qualifier and padded containers the reference model and the probe do not model yet.
_ACCUMULATORS = {
    "f16": (("f16", "f16"), ("f32", "f32")),
    "bf16": (("f32", "f32"),),
    "tf32": (("f32", "f32"),),
    "f64": (("f64", "f64"),),
    "e4m3": (("f16", "f16"), ("f32", "f32")),
    "e5m2": (("f16", "f16"), ("f32", "f32")),
    "u8": (("s32", "s32"),), "s8": (("s32", "s32"),),
    "u4": (("s32", "s32"),), "s4": (("s32", "s32"),),
    "b1": (("s32", "s32"),),
}
_M8N8K4_F16 = (("f16", "f16"), ("f16", "f32"), ("f32", "f32"))  # "When .ctype is .f32, .dtype must also be .f32"
# A and B types that must be equal; the others (integers, fp8) combine freely
_SAME_AB = {"f16", "bf16", "tf32", "f64", "b1"}
_FAMILY = {"u8": "int8", "s8": "int8", "u4": "int4", "s4": "int4", "e4m3": "fp8", "e5m2": "fp8"}


@dataclass(frozen=True)
class Variant:
    """One instruction variant: shape, layouts and types, and the fragments each operand uses."""

    shape: str
    alayout: str
    blayout: str
    atype: str
    btype: str
    ctype: str
    dtype: str
    op: str | None  # "xor" or "and" for .b1
    a: object  # Fragment
    b: object
    c: object
    d: object
    section: str

    @property
    def id(self) -> str:
        tail = f".{self.op}.popc" if self.op else ""
        return f"{self.alayout}.{self.blayout}.{self.dtype}.{self.atype}.{self.btype}.{self.ctype}{tail}"

    @property
    def instruction(self) -> str:
        return f"mma.sync.aligned.{self.shape}.{self.id}"

    def fragment(self, operand: str):
        return {"A": self.a, "B": self.b, "C": self.c, "D": self.d}[operand]

    def type_of(self, operand: str) -> str:
        return {"A": self.atype, "B": self.btype, "C": self.ctype, "D": self.dtype}[operand]


def _pick(fragments, operand, type_, layout):
    for f in fragments:
        if f.operand == operand and type_ in f.types and f.layout in (None, layout):
            return f
    return None


def variants(spec) -> list:
    out = []
    for sec in spec.sections:
        frags = sec.fragments
        for a_frag in (f for f in frags if f.operand == "A"):
            alayout = a_frag.layout or "row"
            for atype in a_frag.types:
                for b_frag in (f for f in frags if f.operand == "B"):
                    blayout = b_frag.layout or "col"
                    for btype in b_frag.types:
                        same = atype in _SAME_AB or btype in _SAME_AB
                        if (atype != btype) if same else _FAMILY.get(atype) != _FAMILY.get(btype):
                            continue
                        pairs = _M8N8K4_F16 if (spec.shape, atype) == ("m8n8k4", "f16") else _ACCUMULATORS.get(atype, ())
                        for ctype, dtype in pairs:
                            c = _pick(frags, "C", ctype, None)
                            d = _pick(frags, "C", dtype, None)
                            if c is None or d is None:
                                continue
                            for op in (("xor", "and") if atype == "b1" else (None,)):
                                out.append(Variant(spec.shape, alayout, blayout, atype, btype, ctype, dtype, op,
                                                   a_frag, b_frag, c, d, sec.section))
    return out


def find(spec, ident: str):
    """(variant, all variants): the variant by its id (`row.col.f32.f16.f16.f32`) or its whole
    instruction name; None where the spec gives none, which each caller must say at a line of its
    own (simulate: the usage; the ldmatrix chain: the composition that names the fragment)."""
    all_ = variants(spec)
    for v in all_:
        if ident in (v.id, v.instruction, v.instruction.replace("mma.sync.aligned.", "")):
            return v, all_
    return None, all_
