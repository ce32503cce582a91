"""The sparse wgmma variants of the probe: `wgmma.mma_async.sp` (9.7.15.6.3), one kernel per variant
of the sparse specs (family wgmma.sp), built by wgmma_ptx's kernel body with what sparsity changes.

A is the compressed A (9.7.15.6.1: "stored in the packed format Mx(K/2)"): in registers the spec's
A.sp fragment (four .b32, as dense), in shared memory the dense image of K/2 columns (32 bytes of K,
the same descriptor as dense). B is the full K x N: 64 bytes of K behind a no-swizzle descriptor
(4 core matrices along K, LBO 128, SBO 8 x 64 bytes). sp-meta is one .b32 per thread loaded from
global memory; sp-sel is 0, the one value every type allows (9.7.15.6.3's table: "0 (threads T0,
T1)" for .f16/.bf16/.tf32, "0 (all threads contribute)" for the 8-bit types). D is the dense
shape's D at the same N (the spec's `same_as`).

Which thread and which bits of sp-meta hold the indices of which chunk is drawn only (Figures
171-181), not transcribed; the model therefore reads metadata only when every thread of a CTA holds
the same word and every 4-bit group of it the same valid indices (`metadata_word`), so that the
answer does not depend on the figure. checker/probe/wgmma_sp_model.py says what that leaves unseen.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from checker.catalogue import WGMMA_PTX
from checker.probe import wgmma_smem
from checker.probe.wgmma_ptx import RULES, K_BYTES, MIXED_INT_VERSION, PARAMS, WgmmaVariant
from checker.semantics.sparse import Geometry, column, distinct

SP_VERSION = WGMMA_PTX[True]
# ptxas: "Feature 'Sparse WGMMA with floating point types' requires PTX ISA .version 8.2 or later"
TF32_NIBBLE = {0: 0b0100, 1: 0b1110}  # 9.7.15.6.1: "0b1110 and 0b0100 are the only meaningful values"


def geometry(atype: str) -> Geometry:
    """9.7.15.6.1: .tf32 is 1:2, every other type 2:4 (per_register / out_of are not used here)."""
    return Geometry(1, 2, False, 1, 2) if atype == "tf32" else Geometry(2, 4, False, 2, 4)


def nibble(atype: str, indices: tuple) -> int:
    """The 4 bits of sp-meta naming one chunk's non-zero positions: two 2-bit indices, the first in
    the low bits (.tf32: the position of its one non-zero, as 0b0100 or 0b1110)."""
    if atype == "tf32":
        return TF32_NIBBLE[indices[0]]
    return indices[0] | indices[1] << 2


def indices_of(atype: str, nib: int) -> tuple | None:
    """The chunk indices a valid 4-bit group names, or None (undefined behaviour: 9.7.15.6.1 makes
    the two indices of a chunk distinct, "0b0000, 0b0101, 0b1010, 0b1111 are invalid", in any order;
    .tf32 has two meaningful values)."""
    if atype == "tf32":
        return next(((k,) for k, x in TF32_NIBBLE.items() if x == nib), None)
    idx = (nib & 3, nib >> 2)
    return idx if distinct(geometry(atype), idx) else None


def metadata_word(atype: str, indices: tuple) -> int:
    """sp-meta with every 4-bit group naming `indices`: the same for whichever chunk it describes."""
    return nibble(atype, indices) * 0x11111111


def logical_columns(atype: str, kc: int) -> np.ndarray:
    """(valid index tuples, kc) logical column of A of each compressed column, per index tuple (a
    chunk's two indices in either order)."""
    g = geometry(atype)
    choices = [(i,) for i in range(g.units)] if g.picked == 1 else [
        (i, j) for i in range(g.units) for j in range(g.units) if i != j]
    return {idx: np.array([(c // g.nonzero) * g.chunk + column(g, 0, c % g.nonzero, idx) for c in range(kc)])
            for idx in choices}


@dataclass(frozen=True)
class SparseVariant(WgmmaVariant):
    """One wgmma.mma_async.sp instruction; `d_spec` is the dense spec whose D it names."""

    d_spec: str = ""

    sparse = True
    params = PARAMS + ("meta",)
    b_k_bytes = 2 * K_BYTES
    after_b = ", %meta, 0"  # sp-meta, sp-sel 0

    @property
    def instruction(self) -> str:
        return f"wgmma.mma_async.sp.sync.aligned.{self.shape}.{self.dtype}.{self.atype}.{self.btype}"

    @property
    def ptx_version(self) -> str:
        return MIXED_INT_VERSION if self.atype in ("s8", "u8") and self.atype != self.btype else SP_VERSION

    @property
    def id(self) -> str:
        return f"{self.shape}.sp.{self.dtype}.{self.atype}.{self.btype}.a_{self.a_source}"

    def b_descriptor_high(self) -> int:
        lbo, sbo = wgmma_smem.strides(self.swizzle, self.b_k_bytes)
        return wgmma_smem.descriptor(0, lbo, sbo, self.swizzle)

    def expand_a(self, a, arrays):
        return decompress(self, a, arrays["meta"])


def chunk_indices(v, words) -> list:
    """(C, 128) sp-meta words -> the chunk indices of each CTA; a WgmmaModelError where a CTA's
    words differ between threads or between 4-bit groups (placing them needs the metadata figure),
    or name no meaningful indices (9.7.15.6.1: undefined behaviour)."""
    from checker.probe.wgmma_model import WgmmaModelError

    out = []
    for c, w in enumerate(np.asarray(words, dtype=np.uint32)):
        nibs = {(int(x) >> (4 * j)) & 15 for x in set(w.tolist()) for j in range(8)}
        idx = indices_of(v.atype, nibs.pop()) if len(nibs) == 1 else None
        if idx is None:
            raise WgmmaModelError(f"CTA {c}: sp-meta is not one meaningful 4-bit group repeated in every thread "
                                  f"({len(set(w.tolist()))} distinct words); which thread and bits describe which "
                                  "chunk is drawn only (not transcribed), so the model cannot place it")
        out.append(idx)
    return out


def expand_rows(v, compressed: np.ndarray, indices: tuple) -> np.ndarray:
    """(K/2, N) rows -> (K, N): compressed row r at the logical row of A's column it multiplies."""
    kc = compressed.shape[0]
    out = np.zeros((2 * kc,) + compressed.shape[1:])
    out[logical_columns(v.atype, kc)[indices]] = compressed
    return out


def decompress(v, a: np.ndarray, words) -> np.ndarray:
    """(C, M, K/2) compressed A -> (C, M, K): each CTA's stored elements at the columns its metadata
    names, zeros between (9.7.15.6.1)."""
    out = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
    for c, idx in enumerate(chunk_indices(v, words)):
        out[c][:, logical_columns(v.atype, a.shape[-1])[idx]] = a[c]
    return out


class Joined:
    """A sparse spec seen with the dense D it names: its A.sp fragments and the dense C/D ones."""

    def __init__(self, sparse, dense):
        self.sparse, self.dense = sparse, dense
        self.m, self.k, self.shape = sparse.m, sparse.k, sparse.shape

    def fragments(self) -> list:
        return [f for f in self.sparse.fragments() if f.operand == "A"] + [
            f for f in self.dense.fragments() if f.operand in ("C", "D")]


_JOINED: dict = {}


def joined(sparse, path: str):
    """The Joined view of a sparse spec at `path`, one per spec (the model caches by its id)."""
    from checker.spec.load import load_spec

    if id(sparse) not in _JOINED:
        _JOINED[id(sparse)] = (sparse, Joined(sparse, load_spec(d_spec_path(sparse, path))))
    return _JOINED[id(sparse)][1]


def d_spec_path(spec, path: str) -> str:
    """The dense spec the sparse spec's `same_as` names for D (beside it: <shape>.yaml)."""
    for sec in spec.sections:
        for x in sec.same_as:
            if "D" in x.operands:
                return os.path.join(os.path.dirname(path), x.fragments[0].split("/")[0] + ".yaml").replace(os.sep, "/")
    return ""


def variants(spec, path: str = "", d_spec=None, a_shared=(False, True), every_n: bool = False) -> list:
    """Every sparse variant of a wgmma.sp spec: its A types x the btypes and D types the syntax
    allows (the dense ones: 9.7.15.6.3 prints the same), A from registers and from shared memory, no
    swizzle, at the smallest and the largest N of the D row of that type in the dense spec (every N
    with `every_n`): the sparse part, A and its metadata, is the same at every N."""
    from checker.spec.load import load_spec

    dpath = d_spec_path(spec, path)
    dense = d_spec if d_spec is not None else load_spec(dpath)
    d_at: dict = {}
    for f in dense.fragments():
        if f.operand in ("C", "D"):
            for t in f.types_here():
                d_at.setdefault(t, set()).add(dict(f.params).get("N"))
    out = []
    a_types = [t for f in spec.fragments() if f.operand == "A" for t in f.types_here()]
    for atype in dict.fromkeys(a_types):
        btypes, dtypes = RULES[atype]
        for dtype in dtypes:
            for btype in btypes:
                ns = sorted(n for n in d_at.get(dtype, ()) if n is not None)
                for n in (ns if every_n else dict.fromkeys(ns[:1] + ns[-1:])):
                    for shared in a_shared:
                        out.append(SparseVariant(spec.m, n, spec.k, dtype, atype, btype, shared, path, d_spec=dpath))
    return out
