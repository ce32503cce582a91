"""ldmatrix chained into mma: the compositions ldmatrix.x4/m16n8k16/A.f16 and
ldmatrix.x2.trans/m16n8k16/B.f16 (specs/ldmatrix.m8n8.yaml) run on the device.

The image holds a 16x16 .f16 A and a 16x8 .f16 B as matrices, no layout: each 16-byte row of an
8x8 block (A's row r, columns 8h..8h+7; B's row k) at a row slot of its own, scrambled per warp.
Lane l gives the address of A[l % 16][8 * (l / 16)] to ldmatrix.x4 and of B[l % 16][0] to
ldmatrix.x2.trans (lanes 16-31 repeat lanes 0-15, as the document's note allows), C comes in as
the m16n8k16 C fragment. The model predicts:
  fragments  the six loaded registers, by the ldmatrix readings r.x4 and r.x2.trans
  D          A.B + C computed as matrices on the host, placed by m16n8k16's D layout: equal bits
             mean the loaded registers were the A and B fragments, i.e. the compositions hold on
             the device
"""
from __future__ import annotations

import numpy as np

from checker.catalogue import target_parts
from checker.probe.movement_forms import IMAGE_BYTES, ROW_BYTES
from checker.probe.movement_model import Probe, predict
from checker.probe.movement_ptx import CHAIN, CHAIN_A, CHAIN_B, CHAIN_KERNEL

WARPS = 4
VARIANT = "row.col.f32.f16.f16.f32"
INSTRUCTION = f"{CHAIN_A} + {CHAIN_B} -> {CHAIN}"
NAME = "ldmatrix-x4-x2.trans-into-mma.m16n8k16"
KERNEL = CHAIN_KERNEL
TARGET = "sm_80"  # mma.m16n8k16 .f16 (the support table); ldmatrix needs sm_75


def chain_of(forms: list, spec, mma_spec_path: str, mma_spec):
    """The chain, or None where the spec no longer gives both ldmatrix forms it runs: its dumps
    are then of no spec given, as the dumps of any form whose layout was removed are."""
    if not {CHAIN_A, CHAIN_B} <= {f.instruction for f in forms}:
        return None
    return Chain(forms, spec, mma_spec_path, mma_spec)


def _variant(spec, a, b, mma_spec_path: str, mma_spec):
    """The mma variant the chained kernel runs. Where the mma spec no longer gives it, the error
    is at the `fragment:` line of the composition whose fragment no longer resolves to the operand
    the kernel loads (the chain stands on those compositions), else at the mma spec."""
    from checker.errors import SourceSpan, SpecError
    from checker.semantics.variants import find

    v, _ = find(mma_spec, VARIANT)
    if v is not None:
        return v
    atype = VARIANT.split(".")[3]
    for form, operand in ((a, "A"), (b, "B")):
        for c in spec.compositions:
            shape, _, fid = c.fragment.partition("/")
            if c.layout != form.layout.id or shape != mma_spec.shape or c.expect != "holds":
                continue
            f = mma_spec.fragment(fid)
            why = (f"{mma_spec_path} has no fragment {fid!r}" if f is None else
                   f"{c.fragment} is operand {f.operand} of {', '.join('.' + t for t in f.types)} there "
                   f"({f.span}), not {operand} of .{atype}" if f.operand != operand or atype not in f.types else "")
            if why:
                raise SpecError(c.fragment_span or c.span,
                                f"composition {c.id} names {c.fragment}, which no longer resolves: {why}; the chained "
                                f"probe {NAME} loads it as {operand} of mma.sync.aligned.{mma_spec.shape}.{VARIANT}")
    raise SpecError(SourceSpan(mma_spec_path, 1, 1), f"{mma_spec.shape} gives no variant {VARIANT} (A and B "
                    f".{atype}, C and D .f32), which the chained probe {NAME} of {spec.path} runs")


class Chain:
    """The two ldmatrix forms (specs/ldmatrix.m8n8.yaml) and the mma variant (m16n8k16.yaml)."""

    predictable = True

    def __init__(self, forms: list, spec, mma_spec_path: str, mma_spec):
        from checker.semantics.execute import geometries

        self.a = next(f for f in forms if f.instruction == CHAIN_A)
        self.b = next(f for f in forms if f.instruction == CHAIN_B)
        self.variant = _variant(spec, self.a, self.b, mma_spec_path, mma_spec)
        self.geo = geometries(self.variant)
        self.spec_path = self.a.spec_path
        self.mma_spec_path = mma_spec_path
        found = [c for c in spec.compositions if c.layout == self.a.layout.id and c.fragment.startswith("m16n8k16/A")]
        # a D that differs means the loaded registers were not the A (or B) fragment: the composition
        self.location = str(found[0].span) if found else str(self.a.layout.span)
        self.instruction, self.name, self.kernel, self.family = INSTRUCTION, NAME, KERNEL, "chain"

    def supports(self, target: str) -> tuple:
        """(runs there, PTX version or why not), as a Form answers it."""
        sm, _ = target_parts(target)
        return (True, "8.7") if sm >= 80 else (False, "needs sm_80 (mma.m16n8k16 .f16)")

    def build(self, seed: int) -> Probe:
        from checker.semantics.inputs import random_inputs
        from checker.semantics.registers import pack

        rng = np.random.default_rng(seed)
        image = np.zeros((WARPS, IMAGE_BYTES), dtype=np.uint8)
        addr_a = np.zeros((WARPS, 32), dtype=np.uint32)
        addr_b = np.zeros((WARPS, 32), dtype=np.uint32)
        c_in = np.zeros((WARPS, 32, 4), dtype=np.uint32)
        for w in range(WARPS):
            A, B, C = random_inputs(self.variant, int(rng.integers(1 << 31)))
            slots = rng.permutation(IMAGE_BYTES // ROW_BYTES)[:48]  # 32 half rows of A, 16 rows of B
            a16 = A[0].astype(np.float16).view(np.uint8).reshape(16, 2, ROW_BYTES)
            b16 = B[0].astype(np.float16).view(np.uint8).reshape(16, ROW_BYTES)
            for r in range(16):
                for h in range(2):
                    image[w, slots[2 * r + h] * ROW_BYTES:][:ROW_BYTES] = a16[r, h]
                image[w, slots[32 + r] * ROW_BYTES:][:ROW_BYTES] = b16[r]
            lane = np.arange(32)
            addr_a[w] = slots[2 * (lane % 16) + lane // 16] * ROW_BYTES
            addr_b[w] = slots[32 + lane % 16] * ROW_BYTES
            c_in[w] = pack(self.geo["C"], C).astype(np.uint32)
        return Probe([("random", WARPS)], {"image": image, "addresses_a": addr_a, "addresses_b": addr_b,
                                           "c_in": c_in})

    def matrices(self, arrays: dict) -> tuple:
        """A (warps, 16, 16), B (warps, 16, 8) read from the image at the composition's addresses,
        no layout involved; C (warps, 16, 8) from its fragment."""
        from checker.semantics.registers import unpack

        img, aa, ab = arrays["image"], arrays["addresses_a"].astype(np.int64), arrays["addresses_b"].astype(np.int64)
        warps = img.shape[0]
        A = np.zeros((warps, 16, 16), dtype=np.float16)
        B = np.zeros((warps, 16, 8), dtype=np.float16)
        for w in range(warps):
            for lane in range(32):
                A[w, lane % 16, 8 * (lane // 16):][:8] = img[w, aa[w, lane]:aa[w, lane] + ROW_BYTES].view(np.float16)
            for lane in range(16):
                B[w, lane] = img[w, ab[w, lane]:ab[w, lane] + ROW_BYTES].view(np.float16)
        C = unpack(self.geo["C"], arrays["c_in"].astype(np.uint64), (16, 8))[:, 0]
        return A.astype(np.float64), B.astype(np.float64), C

    def predict(self, arrays: dict) -> dict:
        from checker.semantics.execute import multiply
        from checker.semantics.registers import pack

        frag_a = predict(self.a, {"image": arrays["image"], "addresses": arrays["addresses_a"]})["registers_out"]
        frag_b = predict(self.b, {"image": arrays["image"], "addresses": arrays["addresses_b"]})["registers_out"]
        A, B, C = self.matrices(arrays)
        D = multiply(self.variant, A[:, None], B[:, None], C[:, None])
        d = pack(self.geo["D"], np.asarray(D, dtype=np.float64)).astype(np.uint32)
        return {"d_out": d, "fragments_out": np.concatenate([frag_a, frag_b], axis=-1)}
