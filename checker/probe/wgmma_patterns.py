"""The inputs of one wgmma probe launch: one CTA (a warpgroup, 128 threads) per pattern, every
pattern of a variant in one launch.

A "slot" of A is one place the kernel puts an A element: (thread, element ai) of the register
fragment, or, for A from shared memory, the element (m, k) of the image at the address the
document's layout gives it. Slot s is thread * n + i, or m * K + k.

Blocks, in this order (the dump's `blocks` records them):

  columns   A all ones; column n of B holds entries that add up to n + 1 (each at most the largest
            integer the B type holds exactly); scale-d 0. Every D element is then n + 1: it names
            its column, whatever A's layout.
  slots     one CTA per digit d: slot s of A holds digit d of s (plus 1; .b1: bit d of s), in base
            CAP, the largest such integer the A type holds exactly; B is the identity tiled along N,
            B[k][n] = 1 where n % K = k; scale-d 0. Then D[m][n] = A[m][n % K]: every D element
            shows, over the digits, the slot of A it was multiplied with.
  keep      A = 0, D in coded (a distinct integer per thread and register), scale-d 1: D = D in
  drop      A all ones, B = 0, D in coded, scale-d 0: D = 0 (D in is not added)
  random    A, B small random integers, D in too, scale-d 1: predicted bit for bit

What a launch can tell. Columns and k are seen through shared memory: B's bytes sit where the
descriptor's layout (9.7.15.5.1.2) puts them, so n and k are the document's. Rows are not: A
(from registers) and D are both registers, so renumbering the 64 rows of both alike gives the
same D; what the slots show is which slot meets which D element. The crosscheck therefore names
rows relative to the spec: a D element's row is the spec's row of the A slot it shows, an A slot's
row the spec's row of the D elements that show it. A row permutation shared by A and D is invisible;
any other difference is seen. With A from shared memory the rows are seen absolutely (A's image has
the document's layout too). Every slot is seen at every N >= K (N < K shows the slots of k < N); the
identification of A needs no other launch.

Not seen: the values of any other input (NaN, rounding): every value is an exact small integer.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from checker.probe import wgmma_model as model
from checker.probe import wgmma_smem as smem
from checker.probe.wgmma_ptx import THREADS
from checker.semantics.types import BITS

# the largest integer n such that 0..n are all exact in the type (and in every D type with it)
CAP = {"tf32": 2048, "f16": 2048, "bf16": 256, "e4m3": 16, "e5m2": 8, "s8": 127, "u8": 255, "b1": 1}
DECOY = 0x40  # the byte in every image byte no element uses: 2.0 as .e4m3/.e5m2, 3.0 as .bf16, 64 as .s8
RANDOM = 2
_RANGE = {"u8": (0, 3), "s8": (-3, 3), "b1": (0, 1)}  # others -2..2


@dataclass(frozen=True)
class Block:
    kind: str
    count: int

    def as_json(self) -> dict:
        return {"kind": self.kind, "count": self.count}


def k_of(v) -> int:
    return smem.K_BYTES * 8 // BITS[v.atype]


def slot_count(v) -> int:
    return v.m * k_of(v)


def base(v) -> int:
    return 2 if v.atype == "b1" else CAP[v.atype]


def digits(v) -> int:
    d, b = 1, base(v)
    while b ** d < slot_count(v):
        d += 1
    return d


def blocks(v) -> list:
    return [Block("columns", 1), Block("slots", digits(v)), Block("keep", 1), Block("drop", 1),
            Block("random", RANDOM)]


def slot_digit(v, s: np.ndarray, d: int) -> np.ndarray:
    """The value slot s holds in the CTA of digit d."""
    digit = (s // base(v) ** d) % base(v)
    return digit if v.atype == "b1" else digit + 1


def _column_sums(v) -> np.ndarray:
    """(K, N) B of the columns pattern: column n adds up to n + 1, entries at most CAP."""
    k = k_of(v)
    cap = CAP[v.btype]
    left = np.arange(1, v.n + 1)[None, :] - cap * np.arange(k)[:, None]
    return np.clip(left, 0, cap).astype(np.float64)


def _tiled_identity(v) -> np.ndarray:
    k = k_of(v)
    return (np.arange(v.n)[None, :] % k == np.arange(k)[:, None]).astype(np.float64)


def _coded_d(v, dg) -> np.ndarray:
    """(128, n) distinct nonzero integers, exact in the D type."""
    t, i = np.meshgrid(np.arange(THREADS), np.arange(dg.n), indexing="ij")
    return (1 + (t * dg.n + i) % 2000).astype(np.float64)


def _a_image(v, frag, per_slot: np.ndarray | None, matrix: np.ndarray | None) -> np.ndarray:
    """A of one CTA as the kernel reads it: from slot values (slot order) or from a (M, K) matrix."""
    k = k_of(v)
    if v.a_shared:
        mat = matrix if matrix is not None else per_slot.reshape(v.m, k)
        return smem.place(model.bits_of(v.atype, mat), BITS[v.atype], v.swizzle, DECOY)
    g = frag["A"]
    vals = per_slot.reshape(THREADS, g.n) if per_slot is not None else matrix[g.cells[..., 0], g.cells[..., 1]]
    return model.pack(g, model.bits_of(v.atype, vals))


def _b_image(v, kn: np.ndarray) -> np.ndarray:
    return smem.place(model.bits_of(v.btype, kn.T), BITS[v.btype], v.swizzle, DECOY)


def build(v, spec, seed: int = 0) -> tuple:
    """(blocks, {a, b, d_in, scale_d}) of one launch."""
    frag = model.fragments(v, spec)
    dg = frag["D"]
    k, s = k_of(v), np.arange(slot_count(v))
    kb = v.b_k_bytes * 8 // BITS[v.btype]  # B's K: twice A's (compressed) K for a sparse variant
    ones, zeros_kn = np.ones(slot_count(v)), np.zeros((kb, v.n))
    coded = _coded_d(v, dg)
    ctas = [(ones, None, _column_sums(v), coded, 0)]
    ctas += [(slot_digit(v, s, d).astype(np.float64), None, _tiled_identity(v), coded, 0) for d in range(digits(v))]
    ctas += [(np.zeros(slot_count(v)), None, _tiled_identity(v), coded, 1), (ones, None, zeros_kn, coded, 0)]
    rng = np.random.default_rng(seed)
    for _ in range(RANDOM):
        lo, hi = _RANGE.get(v.atype, (-2, 2))
        a = rng.integers(lo, hi + 1, size=(v.m, k)).astype(np.float64)
        lo, hi = _RANGE.get(v.btype, (-2, 2))
        b = rng.integers(lo, hi + 1, size=(kb, v.n)).astype(np.float64)
        c = rng.integers(-1000, 1001, size=(v.m, v.n)) if v.dtype == "s32" else rng.integers(-8, 9, size=(v.m, v.n))
        ctas.append((None, a, b, c[dg.cells[..., 0], dg.cells[..., 1]].astype(np.float64), 1))
    extra = {}
    if v.sparse:  # each CTA its own chunk indices; B's rows of A's (compressed) K moved to where they meet A
        from checker.probe import wgmma_sp as sp

        choices = list(sp.logical_columns(v.atype, k))
        idx = [choices[c % len(choices)] for c in range(len(ctas))]
        ctas = [(p, m, sp.expand_rows(v, kn, idx[c]) if kn.shape[0] != kb else kn, d, sd)
                for c, (p, m, kn, d, sd) in enumerate(ctas)]
        extra["meta"] = np.array([[sp.metadata_word(v.atype, i)] * THREADS for i in idx], dtype=np.uint32)
    arrays = {"a": np.stack([_a_image(v, frag, per, mat) for per, mat, _, _, _ in ctas]),
              "b": np.stack([_b_image(v, kn) for _, _, kn, _, _ in ctas]),
              "d_in": np.stack([model.pack(dg, model.bits_of(v.dtype, c)) for _, _, _, c, _ in ctas]),
              "scale_d": np.array([sd for *_, sd in ctas], dtype=np.uint32), **extra}
    return blocks(v), arrays
