"""The theorems of the sparse wgmma specs (family wgmma.sp, 9.7.15.6.2): what ties the compressed
sparse A of a warpgroup to the dense A of half its K and to the sparse A of mma.sp. Each is a
cell equation (checker.theorems.equation) over the 128 threads, decided by both engines.

  compressed-dense  the compressed A (the non-zero elements only, 64 x K/2) is register for
                    register the dense A of the wgmma of half its K: a_i of thread t is a_i of
                    thread t (sparse m64nNk32 .f16 and dense m64nNk16 A.f16, sparse m64nNk16 .tf32
                    and dense m64nNk8 A.tf32, sparse m64nNk64 8-bit and dense m64nNk32 A.i8)
  sp-stacked        the compressed A is four compressed mma.sp A fragments of the same K stacked
                    one per warp (m16n8k32 A.sp.f16, ...): a_i of thread t is a_i of lane t % 32,
                    16w rows down
  warp-rows         warp w holds only rows 16w..16w+15 of A (the 9.7.15.6.2 table gives warp w the
                    sparsity information of those rows): derived from sp-stacked where it holds

The compressed column of a_i is firstcol / out_of * per_register + i % per_register on both sides
(checker/spec/reading.py), and each side's `chunk` property proves its ranges: so where the
compressed maps are equal and the geometries are, every register covers the same columns of A
on both sides. The fragments come from the specs beside; where one is not there its theorem is
not asked."""
from __future__ import annotations

from checker.families import WGMMA_SPARSE_DENSE, WGMMA_SPARSE_MMA_SP
from checker.results import PROVED, Result
from checker.spec.reading import materialize
from checker.theorems.warpgroup import PROPERTY, Beside, equation, fragment_name, result, side, stacked, warp_rows
from checker.theorems.family import TheoremFamily

# the sparse A of each K -> the dense wgmma A of half its K, and the mma.sp A it is four of; the
# scope rule reads the same (checker/families.py)
DENSE, MMA_SP = WGMMA_SPARSE_DENSE, WGMMA_SPARSE_MMA_SP


def theorems(spec, readings, opts) -> list:
    """`readings`: fragment id -> its reading (the mutation campaign puts a mutant's in)."""
    out = []
    beside = Beside(spec)
    for f in spec.fragments():
        if f.sparsity is None:
            continue
        r = readings[f.id] if f.id in readings else materialize(f)
        stacked = None
        if spec.k in MMA_SP and (a := beside.reading(*MMA_SP[spec.k])) is not None:
            stacked = _sp_stacked(spec, r, a, opts)
        out.append(_rows(spec, r, opts, stacked))
        if stacked is not None:
            out.append(stacked)
        if spec.k in DENSE and (d := beside.reading(*DENSE[spec.k])) is not None:
            out.append(_compressed_dense(spec, r, d, opts))
    return out + beside.errors


def _same_geometry(r, other) -> str:
    """Where the two sides' registers differ in how many elements they hold of how wide a range,
    equal compressed maps would not be equal ranges: said in the message, never hidden."""
    a, b = r.fragment.sparsity, getattr(other.fragment, "sparsity", None)
    if b is None or (a.per_register, a.out_of) == (b.per_register, b.out_of):
        return ""
    return (f" (the registers differ: {a.per_register} of {a.out_of} here, {b.per_register} of {b.out_of} there, "
            "so the ranges are not the same)")


def _compressed_dense(spec, r, d, opts):
    f, at = r.fragment, r.fragment.span
    name = "/".join(DENSE[spec.k])
    left = side(fragment_name(spec, r), r, at, "i")
    right = side(name, d, at, "i")
    eq = equation(f"{spec.shape}.compressed-dense.{f.id}", [("i", 0, r.n)], left, right, at)
    p = f.sparsity.per_register
    held = "element r" if p == 1 else f"elements {p}r..{p}r+{p - 1}"
    return result(spec, eq, opts, f"compressed-dense: {f.id} and {name}",
                   f"the compressed {f.id} (the non-zero elements only, {f.rows} x {f.cols}) is register for register "
                   f"the dense {name}: a_i of thread t is a_i of thread t, every i < {r.n}; with the {f.sparsity.nonzero}:{f.sparsity.chunk} "
                   f"metadata, register r of a thread spans the {f.sparsity.out_of} columns of A whose non-zero "
                   f"elements are the dense A's {held}")


def _sp_stacked(spec, r, a, opts):
    f, name = r.fragment, "/".join(MMA_SP[spec.k])
    return result(spec, stacked(spec, r, a, name, "sp-stacked"), opts, f"sp-stacked: {f.id} and {name}",
                   f"the compressed {f.id} is four compressed {name} fragments of mma.sp stacked one per warp: a_i of "
                   f"thread t is a_i of lane t % 32, 16w rows down{_same_geometry(r, a)}")


def _rows(spec, r, opts, stacked):
    """warp-rows: derived where sp-stacked holds (each row is a row of a 16-row mma.sp A, 16w
    down; that fragment's in-range is proved with its spec), else asked."""
    if stacked is None or stacked.verdict != PROVED:
        return warp_rows(spec, r, opts, "")
    f = r.fragment
    return Result(spec.path, None, PROPERTY, PROVED, 0.0, str(f.span), subject=f"warp-rows: {f.id}",
                  message=f"warp w (threads 32w..32w+31) holds only rows 16w..16w+15 of A, as the 9.7.15.6.2 table "
                          f"gives warp w the sparsity information of those rows; with injective and covers of the "
                          f"compressed {f.id}, exactly those rows; derived: sp-stacked proved above places each of its "
                          f"cells 16w below a cell of {'/'.join(MMA_SP[spec.k])}, whose rows are 0..15 (its in-range, "
                          "proved with its spec)")


FAMILY = TheoremFamily("warpgroup", 90, "A sparse warpgroup's compressed A is the dense A's and mma.sp's, "
                        "warp by warp", ("wgmma.sp",), lambda a: theorems(a.spec, a.readings, a.opts))
