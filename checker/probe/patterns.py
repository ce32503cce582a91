"""The inputs of one probe launch: a batch of warps, one pattern per warp, as register images.

Blocks, in this order (dump format version 1 fixes it):

  random      exact round trips (32 warps, 256 for .b1): matrices from checker.semantics.inputs,
              seeded `seed + j`, scattered by the spec's layouts
  c-alone     A = B = 0 and C coded: cell (g, r, c) holds 1 + g*M*N + r*N + c, so each D slot's
              value names the C cell the hardware moved into it
  baseline-A  A = 0 against coded B (one warp per code): what a one-hot A adds to is measured
              against it (.b1 .xor.popc counts the bits of B even where A is 0)
  onehot-A    one warp per A slot (lane, element), lanes in order then elements: that element
              is 1, every other 0, B coded. D then holds, in one row only, row k of B: the row
              tells which matrix row the hardware gives the slot, the code which k.
  baseline-B, onehot-B   the same with B one-hot against coded A.

Codes: row k of coded B is the bits of k spread along N (1 + bit for arithmetic types, so no
entry is 0 and the row shows); .b1 has only 0 and 1, so its code also carries the complement
of k, in the same vector when there is room and in a second code (a second block) when not.
The lanes' inputs differ (no two lanes' registers are alike in a random warp; slots move), so
nothing can be folded by the assembler.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from checker.semantics import inputs
from checker.semantics.execute import geometries, shapes
from checker.semantics.registers import pack
from checker.semantics.types import BITS, to_bits


@dataclass
class Block:
    kind: str
    count: int
    code: int | None = None
    seeds: list = field(default_factory=list)

    def as_json(self) -> dict:
        out = {"kind": self.kind, "count": self.count}
        if self.code is not None:
            out["code"] = self.code
        if self.seeds:
            out["seeds"] = [self.seeds[0], self.seeds[-1]]
        return out


def rounds(v) -> int:
    return 256 if v.atype == "b1" else 32


def codes(k: int, j: int, binary: bool) -> np.ndarray:
    """(Q, k, j) bits: code q of index k along j entries."""
    nb = max(1, (k - 1).bit_length())
    if j < nb:
        raise ValueError(f"{j} entries cannot code {k} indices")
    idx = np.arange(k)[:, None]
    pos = np.arange(j)[None, :]

    def bits(x):
        return ((x >> pos) & 1) * (pos < nb)

    if not binary:
        return bits(idx)[None]
    comp = ((k - 1) ^ idx)
    if j >= 2 * nb:
        both = bits(idx) | np.concatenate([np.zeros((k, nb), int), bits(comp)[:, :j - nb]], axis=1)
        return both[None]
    return np.stack([bits(idx), bits(comp)])


def coded(v, operand: str) -> np.ndarray:
    """(Q, G, rows, cols) coded matrices of the operand that is NOT one-hot: B against one-hot A,
    A against one-hot B."""
    shp = shapes(v)
    m, k = shp["A"]
    n = shp["B"][1]
    binary = v.atype == "b1"
    if operand == "B":
        c = codes(k, n, binary)  # (Q, k, n)
    else:
        c = codes(k, m, binary).transpose(0, 2, 1)  # (Q, m, k)
    vals = c if binary else 1 + c
    groups = max(1, len(v.a.computations))
    return np.repeat(vals[:, None], groups, axis=1).astype(np.float64)


def _one_hot(g, type_) -> np.ndarray:
    """(32 * n, 32, count) images: slot (lane, i) set to 1, in lane-major order."""
    one = int(to_bits(type_, np.array([1]))[0])
    out = np.zeros((32 * g.n, 32, g.count), dtype=np.uint64)
    for lane in range(32):
        for i in range(g.n):
            out[lane * g.n + i, lane, i // g.per_register] = np.uint64(one << ((i % g.per_register) * BITS[type_]))
    return out


def build(v, seed: int = 0):
    """(blocks, {A, B, C: (P, 32, count) uint64}) for one variant."""
    geo = geometries(v)
    shp = shapes(v)
    groups = max(1, len(v.a.computations))
    imgs = {op: [] for op in "ABC"}
    blocks = []

    def zeros(op, p):
        return np.zeros((p, 32, geo[op].count), dtype=np.uint64)

    def add(block, a, b, c):
        blocks.append(block)
        for op, x in zip("ABC", (a, b, c)):
            imgs[op].append(x)

    seeds = [seed + j for j in range(rounds(v))]
    ins = [inputs.random_inputs(v, s) for s in seeds]
    add(Block("random", len(seeds), seeds=seeds),
        *(pack(geo[op], np.stack([x[k] for x in ins])) for k, op in enumerate("ABC")))

    m, n = shp["C"]
    cval = 1 + np.arange(groups * m * n, dtype=np.float64).reshape(groups, m, n)
    add(Block("c-alone", 1), zeros("A", 1), zeros("B", 1), pack(geo["C"], cval[None]))

    for hot, other in (("A", "B"), ("B", "A")):
        mats = coded(v, other)
        onehot = _one_hot(geo[hot], v.type_of(hot))
        for q in range(len(mats)):
            other_img = pack(geo[other], mats[q])[None]
            pair = {hot: zeros(hot, 1), other: other_img}
            add(Block(f"baseline-{hot}", 1, code=q), pair["A"], pair["B"], zeros("C", 1))
            p = len(onehot)
            pair = {hot: onehot, other: np.repeat(other_img, p, axis=0)}
            add(Block(f"onehot-{hot}", p, code=q), pair["A"], pair["B"], zeros("C", p))
    return blocks, {op: np.concatenate(x) for op, x in imgs.items()}
