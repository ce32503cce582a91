"""The instruction families as data: who holds a fragment, which operands it has, how its shape
is written. A spec names its family (`family:`, default `mma`); everything that used to assume a
warp of 32 lanes and operands A, B, C reads it from here.

A point of a fragment's domain is (t, i): t the thread's index among the threads that hold the
fragment, i the element index. The document names t, or parts of it, in its formulas: a warp's
`%laneid`; a warpgroup's thread index (`%tid`, T0..T127 as the figures label them, warp `%tid / 32`)
whose lane in its warp is `%laneid`. Each name is (t // divisor) % modulus."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Threads:
    """The threads that hold a fragment."""

    count: int
    unit: str  # what one is called in messages: lane, thread
    names: tuple  # (name, divisor, modulus or None): the document's names for parts of t

    def named(self, name: str):
        return next(((d, m) for n, d, m in self.names if n == name), None)


@dataclass(frozen=True)
class Operand:
    name: str  # A, B, C, D
    letter: str  # its elements are letter0, letter1, ...
    dims: tuple  # (rows, cols) as shape dimensions: ("m", "k")
    headers: tuple  # what the type column of its table may be headed


@dataclass(frozen=True)
class Family:
    name: str
    threads: Threads
    operands: tuple
    shape: str  # regex of the shape; a dimension written as a capital is a parameter
    parameters: tuple = ()  # the dimensions that may be parameters: ("n",)
    moves: bool = False  # a data-movement instruction: its fragments are readings of figures (layouts:)
    # which axis of the tile a layout's `.num` repeats the shape along: 0, rows (ldmatrix's matrices
    # stacked); 1, columns (tcgen05's .num chunks of each TMEM lane, side by side)
    num_axis: int = 0
    # a shape whose column dimension is written in bits (tcgen05's .16x64b): the bits of one
    # column (a 32-bit TMEM cell); a trailing x2 (.16x32bx2) is two such chunks, one per half-warp
    cell_bits: int = 0

    def operand(self, name: str) -> Operand | None:
        return next((o for o in self.operands if o.name == name), None)

    def dims(self, shape: str, values: dict) -> dict:
        """{'m': .., 'n': .., 'k': ..} of a shape, a parameter's dimension taken from `values`."""
        found = re.fullmatch(self.shape, shape)
        out = {}
        for dim, text in found.groupdict().items():
            if dim != "halves":
                out[dim] = int(text) if text.isdigit() else values.get(text)
        if self.cell_bits:
            out["n"] = out["n"] // self.cell_bits * (2 if found.groupdict().get("halves") else 1)
        return out


WARP = Threads(32, "lane", (("%laneid", 1, None),))
WARPGROUP = Threads(128, "thread", (("%tid", 1, None), ("%laneid", 1, 32)))

_MMA_OPERANDS = (Operand("A", "a", ("m", "k"), (".atype",)), Operand("B", "b", ("k", "n"), (".btype",)),
                 Operand("C", "c", ("m", "n"), (".ctype / .dtype", ".ctype", ".dtype")))
_MMA_SHAPE = r"m(?P<m>\d+)n(?P<n>\d+)k(?P<k>\d+)"

FAMILIES = {f.name: f for f in (
    Family("mma", WARP, _MMA_OPERANDS, _MMA_SHAPE),
    Family("mma.sp", WARP, _MMA_OPERANDS, _MMA_SHAPE),
    # register fragments only: B is read from shared memory
    Family("wgmma", WARPGROUP, (Operand("A", "a", ("m", "k"), (".atype",)),
                                Operand("D", "d", ("m", "n"), (".dtype",))),
           r"m(?P<m>\d+)n(?P<n>\d+|N)k(?P<k>\d+)", ("n",)),
    # wgmma.mma_async.sp (9.7.15.6): the sparse A in registers; D is the dense shape's (a "same
    # as" sentence). The shape names the instruction (m64nNk32.sp), so that the sparse and the
    # dense m64nNk32 are two specs (file name = shape).
    Family("wgmma.sp", WARPGROUP, (Operand("A", "a", ("m", "k"), (".atype",)),
                                   Operand("D", "d", ("m", "n"), (".dtype",))),
           r"m(?P<m>\d+)n(?P<n>\d+|N)k(?P<k>\d+)\.sp", ("n",)),
    # The matrix-movement instructions (9.7.14.5.15-17). A fragment's matrix is the tile in shared
    # memory: row r is the row whose start address thread r gives ("Addresses addr0-addr7
    # correspond to the rows of the first matrix ..."), the .num matrices stacked, matrix j in
    # rows R*j..R*j+R-1; col c is element c of that row. The shape names the instruction, so that
    # ldmatrix.m8n8 and stmatrix.m8n8 are two specs (file name = shape).
    Family("ldmatrix", WARP, (Operand("r", "e", ("m", "n"), (".type", ".dst_fmt")),),
           r"ldmatrix\.m(?P<m>\d+)n(?P<n>\d+)", moves=True),
    # stmatrix .m16n8 is .trans only: in memory the 16x8 matrix is 8 rows (N) of 16 elements (M)
    Family("stmatrix", WARP, (Operand("r", "e", ("n", "m"), (".type",)),),
           r"stmatrix\.m(?P<m>\d+)n(?P<n>\d+)", moves=True),
    # movmatrix moves registers only: its tile is the input matrix, a its source, d its result
    Family("movmatrix", WARP, (Operand("a", "a", ("m", "n"), (".type",)), Operand("d", "d", ("m", "n"), (".type",))),
           r"movmatrix\.m(?P<m>\d+)n(?P<n>\d+)", moves=True),
    # tcgen05.ld / tcgen05.st (9.7.16.2.3.1): a warp's registers r0, r1, ... against Tensor Memory.
    # The tile is the TMEM lanes the warp reaches (rows: the warp's 32, or 16 of them) by 32-bit
    # columns; the shape is `lane x size` as the document writes it (.16x64b: 16 lanes, 64 bits =
    # two columns per .num), `.num` (x1 .. x128) repeating it along the columns.
    Family("tcgen05", WARP, (Operand("r", "r", ("m", "n"), (".b32",)),),
           r"tcgen05\.(?P<m>\d+)x(?P<n>\d+)b(?P<halves>x2)?", moves=True, num_axis=1, cell_bits=32),
    # mma with block scaling (9.7.14.3): the scale factors a lane contributes from scale-a-data /
    # scale-b-data. scale_A is M x SFA_N and scale_B SFB_M x N (Table 35), whatever K is, so the
    # shape names M and N only (mma.m16n8.block_scale); SFA_N and SFB_M come from each entry's
    # .scale_vec. Element i is SF element i (byte byte-id + i of the register).
    Family("mma.block_scale", WARP, (Operand("SF_A", "a", ("m", "sfa"), (".stype",)),
                                     Operand("SF_B", "b", ("sfb", "n"), (".stype",))),
           r"mma\.m(?P<m>\d+)n(?P<n>\d+)\.block_scale"),
)}


# The fragments of the specs beside that the wgmma theorems read (checker/theorems/warpgroup.py),
# as (shape, fragment id): within a warp D is TILE tiled along N; register A of a K is four of
# STACKED[K] stacked; D is reused as the A of NEXT_A (and m64nNk8's own D, refuted as declared,
# as its REUSE_TF32 A).
# The scope rule (checker/scope.py) reads the same data through `reads`: proving one of these
# specs proves the wgmma specs whose theorems read it, and proving a wgmma spec proves them.
WGMMA_TILE = ("m16n8k16", "C.float")
WGMMA_STACKED = {8: ("m16n8k8", "A.tf32"), 16: ("m16n8k16", "A.f16"), 32: ("m16n8k32", "A.i8"),
                 256: ("m16n8k256", "A.b1")}
WGMMA_NEXT_A = ("m64nNk16", "A.f16")
WGMMA_REUSE_TF32 = ("m64nNk8", "A.tf32")


# The sparse wgmma theorems (checker/theorems/warpgroup_sparse.py), by K: the compressed A is the
# dense wgmma A of half its K (SPARSE_DENSE) and four mma.sp A fragments stacked (SPARSE_MMA_SP).
WGMMA_SPARSE_DENSE = {32: ("m64nNk16", "A.f16"), 16: ("m64nNk8", "A.tf32"), 64: ("m64nNk32", "A.i8")}
WGMMA_SPARSE_MMA_SP = {32: ("m16n8k32", "A.sp.f16"), 16: ("m16n8k16", "A.sp.tf32"), 64: ("m16n8k64", "A.sp.i8")}


# The block-scaling theorems (checker/theorems/scale_rows.py), by .scale_vec: the dense A and B
# fragment of the instruction each scale factor scales (1X: mxf8f6f4's m16n8k32, 8-bit containers;
# 2X, 4X: mxf4 / mxf4nvf4's m16n8k64, .e2m1), and the element of A that lies in row groupID + 8.
BLOCK_SCALE_A = {"1X": ("m16n8k32", "A.i8", 4), "2X": ("m16n8k64", "A.i4", 8), "4X": ("m16n8k64", "A.i4", 8)}
BLOCK_SCALE_B = {"1X": ("m16n8k32", "B.i8"), "2X": ("m16n8k64", "B.i4"), "4X": ("m16n8k64", "B.i4")}


def reads(shape: str) -> tuple:
    """The shapes of the specs beside whose fragments the theorems of spec `shape` read (its file
    name without .yaml); none for a family whose theorems read only its own spec."""
    if re.fullmatch(FAMILIES["mma.block_scale"].shape, shape):
        return tuple(dict.fromkeys(s for s, *_ in (*BLOCK_SCALE_A.values(), *BLOCK_SCALE_B.values())))
    found = re.fullmatch(r"m64nNk(\d+)(\.sp)?", shape)
    if found is None:
        return ()
    k = int(found.group(1))
    if found.group(2):
        named = [x[0] for x in (WGMMA_SPARSE_DENSE.get(k), WGMMA_SPARSE_MMA_SP.get(k)) if x]
    else:
        stacked = WGMMA_STACKED.get(k)
        named = [WGMMA_TILE[0], *([stacked[0]] if stacked else []), WGMMA_NEXT_A[0]]
    return tuple(s for s in dict.fromkeys(named) if s != shape)
