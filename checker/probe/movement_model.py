"""The reference model of ldmatrix, stmatrix and movmatrix, and the probe's inputs.

What the spec says a form does, for any inputs (a batch of warps):
  ldmatrix   lane t's element i = tile[row][col], (row, col) the reading's cell of (t, i), where
             tile row r is the ROW_BYTES at the byte offset lane r gave ("Addresses addr0-addr7
             correspond to the rows of the first matrix, ..."), element col of it, little-endian
  stmatrix   the image, with element i of lane t written at tile cell (row, col) of (t, i)
  movmatrix  d's element i of lane t = the input matrix's cell (row, col) of d's reading, the
             input matrix being what a holds, by a's reading
Lanes past the tile's rows (.x1: lanes 8-31) still get addresses, of rows no lane below them
names: the document gives them none ("–" in its table), and the model reads none of them.
  .b8x16     (ldmatrix .b8x16.b4x16_p64 / .b6x16_p32) element col of a row is the col-th 4-/6-bit
             value packed in the row's first bytes, and lands in its 8-bit container where the
             spec's `containers:` reading puts it; container bits the reading leaves unsaid are
             not predicted (defined_bits)

Inputs, in blocks of warps (patterns): codes that name what the hardware moved, and random bits.
  row-code / col-code   (ldmatrix) every element of the image names its row slot / its column
  lane-code / element-code   (stmatrix, movmatrix) every source element names its lane / its i
  random                random bits, each warp with its own scrambled row addresses
A pair of code warps shares its addresses, so together they name a slot's (lane, i) or (row, col).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from checker.probe.movement_forms import IMAGE_BYTES, ROW_BYTES, SLOTS

RANDOM_WARPS = 4
CODE_PAIRS = 2  # pair 0: lane t's address is row slot t; pair 1: a scrambled slot
# codes of 8-bit and 16-bit elements: row slots < 64, columns < 16, lanes < 32, elements < 16,
# all apart from each other and from the poison (all ones) an unwritten stmatrix cell keeps
ROW_CODE = {8: 0x40, 16: 0x4000}
COL_CODE = {8: 0x80, 16: 0x8000}
LANE_CODE = ROW_CODE
ELEMENT_CODE = COL_CODE
POISON = 0xFF


@dataclass
class Probe:
    """One launch: blocks [(kind, warps)], and the arrays the kernel reads (and, once run, writes)."""

    blocks: list
    arrays: dict = field(default_factory=dict)  # name -> numpy array, [warp, ...]

    @property
    def warps(self) -> int:
        return sum(n for _, n in self.blocks)

    def block_slices(self) -> dict:
        out, start = {}, 0
        for kind, n in self.blocks:
            out[kind] = slice(start, start + n)
            start += n
        return out


def inputs_of(form) -> tuple:
    """The names of the arrays the form's kernel reads, and of those it writes."""
    return {"ldmatrix": (("image", "addresses"), ("registers_out",)),
            "stmatrix": (("image", "addresses", "registers_in"), ("image_out",)),
            "movmatrix": (("registers_in",), ("registers_out",))}[form.family]


def _addresses(rng, identity: bool) -> np.ndarray:
    slots = np.arange(32) if identity else rng.permutation(SLOTS)[:32]
    return (slots * ROW_BYTES).astype(np.uint32)


def _elements_to_bytes(values: np.ndarray, bits: int) -> np.ndarray:
    """(..., k) element values -> (..., k * bits / 8) bytes, little-endian."""
    v = np.asarray(values, dtype=np.uint64)
    if bits == 8:
        return v.astype(np.uint8)
    out = np.empty(v.shape[:-1] + (v.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2], out[..., 1::2] = v & 0xFF, v >> 8
    return out


def _pack(form, elements: np.ndarray) -> np.ndarray:
    """(..., 32, n) element values -> (..., 32, count) uint32 registers, element 0 in the low bits."""
    e = np.asarray(elements, dtype=np.uint64)
    regs = np.zeros(e.shape[:-1] + (form.count,), dtype=np.uint64)
    for i in range(form.n):
        regs[..., i // form.per_register] |= e[..., i] << np.uint64((i % form.per_register) * form.elem_bits)
    return regs.astype(np.uint32)


def unpack(form, regs: np.ndarray) -> np.ndarray:
    """(..., 32, count) registers -> (..., 32, n) element values."""
    r = np.asarray(regs, dtype=np.uint64)
    i = np.arange(form.n)
    shifts = ((i % form.per_register) * form.elem_bits).astype(np.uint64)
    return (r[..., i // form.per_register] >> shifts) & np.uint64((1 << form.elem_bits) - 1)


def build(form, seed: int) -> Probe:
    """The probe's inputs for one form: code pairs, then random warps."""
    rng = np.random.default_rng(seed)
    bits, per_row = form.elem_bits, ROW_BYTES * 8 // form.elem_bits
    if form.family == "ldmatrix":
        kinds = ("row-code", "col-code")
    else:
        kinds = ("lane-code", "element-code")
    blocks = [(f"{k}#{p}", 1) for p in range(CODE_PAIRS) for k in kinds] + [("random", RANDOM_WARPS)]
    warps = sum(n for _, n in blocks)
    arrays = {}
    if form.family != "movmatrix":
        addresses = np.zeros((warps, 32), dtype=np.uint32)
        image = np.full((warps, IMAGE_BYTES), POISON, dtype=np.uint8)
        slot, col = np.divmod(np.arange(SLOTS * per_row), per_row)
        for w in range(warps):
            pair = w // 2 if w < 2 * CODE_PAIRS else None
            if pair is not None and w % 2 == 1:
                addresses[w] = addresses[w - 1]  # the pair's second warp: the same addresses
            else:
                addresses[w] = _addresses(rng, pair == 0)
            if w >= 2 * CODE_PAIRS:
                image[w] = rng.integers(0, 256, IMAGE_BYTES, dtype=np.uint8)
            elif form.family == "ldmatrix" and form.packed:
                # a 4-bit value cannot name 32 rows: the codes are cut to the width, inputs of
                # `predicts` (which checks every bit), not read back by `identifies`
                values = np.arange(SLOTS)[:, None] if w % 2 == 0 else np.arange(16)[None, :]
                values = np.broadcast_to(values, (SLOTS, 16)) & ((1 << form.container.width) - 1)
                image[w] = packed_row(form, values).reshape(-1)
            elif form.family == "ldmatrix":
                code = ROW_CODE[bits] + slot if w % 2 == 0 else COL_CODE[bits] + col
                image[w] = _elements_to_bytes(code, bits)
        arrays["image"], arrays["addresses"] = image, addresses
    if form.family != "ldmatrix":
        lane, i = np.meshgrid(np.arange(32), np.arange(form.n), indexing="ij")
        elems = np.zeros((warps, 32, form.n), dtype=np.uint64)
        for w in range(warps):
            if w < 2 * CODE_PAIRS:
                elems[w] = LANE_CODE[bits] + lane if w % 2 == 0 else ELEMENT_CODE[bits] + i
            else:
                elems[w] = rng.integers(0, 1 << bits, (32, form.n), dtype=np.uint64)
        arrays["registers_in"] = _pack(form, elems)
    return Probe(blocks, arrays)


def tile_offsets(form, addresses: np.ndarray) -> np.ndarray:
    """(warps, 32, n) byte offsets in the image of every (lane, i) cell, by the spec's reading."""
    row_start = addresses.astype(np.int64)[:, form.rows]  # lane r gives row r
    return row_start + form.cols[None] * (form.elem_bits // 8)


def _read(image: np.ndarray, offsets: np.ndarray, bits: int) -> np.ndarray:
    w = np.arange(image.shape[0])[:, None, None]
    values = image[w, offsets].astype(np.uint64)
    if bits == 16:
        values |= image[w, offsets + 1].astype(np.uint64) << np.uint64(8)
    return values


def predict(form, arrays: dict) -> dict:
    """What the spec says the kernel writes, from what it reads: {name: array}."""
    if not form.predictable:
        raise ValueError(form.unpredictable)
    if form.family == "ldmatrix" and form.packed:
        return {"registers_out": _pack(form, packed_read(form, arrays["image"], arrays["addresses"]))}
    if form.family == "ldmatrix":
        offsets = tile_offsets(form, arrays["addresses"])
        return {"registers_out": _pack(form, _read(arrays["image"], offsets, form.elem_bits))}
    if form.family == "stmatrix":
        out = np.array(arrays["image"], dtype=np.uint8, copy=True)
        offsets = tile_offsets(form, arrays["addresses"])
        values = unpack(form, arrays["registers_in"])
        w = np.broadcast_to(np.arange(out.shape[0])[:, None, None], offsets.shape)
        out[w, offsets] = (values & np.uint64(0xFF)).astype(np.uint8)
        if form.elem_bits == 16:
            out[w, offsets + 1] = (values >> np.uint64(8)).astype(np.uint8)
        return {"image_out": out}
    return {"registers_out": _pack(form, moved(form, unpack(form, arrays["registers_in"])))}


def packed_read(form, image: np.ndarray, addresses: np.ndarray) -> np.ndarray:
    """.b8x16 forms: (warps, 32, n) containers. Value c of a row is bits width*c .. width*c +
    width - 1 of its first bytes read as one little-endian number (the reading's `memory`); it
    spans at most two bytes, both inside the row's 16."""
    load = form.container
    width = load.width
    bit = form.cols * width  # (32, n)
    first = addresses.astype(np.int64)[:, form.rows] + bit // 8
    w = np.arange(image.shape[0])[:, None, None]
    pair = image[w, first].astype(np.uint64) | image[w, first + 1].astype(np.uint64) << np.uint64(8)
    value = (pair >> (bit % 8).astype(np.uint64)) & np.uint64((1 << width) - 1)
    return value << np.uint64(load.low)


def defined_bits(form) -> np.ndarray | None:
    """(32, count) masks of the register bits the model predicts, or None for all of them: a
    .b8x16 reading that leaves a container's other bits unsaid predicts only the value's."""
    if not form.packed or form.container is None or form.container.upper == "zero":
        return None
    per_byte = ((1 << form.container.width) - 1) << form.container.low
    return _pack(form, np.full((32, form.n), per_byte, dtype=np.uint64))


def packed_row(form, values: np.ndarray) -> np.ndarray:
    """(..., 16) values of one row each -> (..., ROW_BYTES) bytes: packed little-endian in the
    reading's first bytes, the padding after them POISON (ldmatrix must not read it)."""
    load = form.container
    v = np.asarray(values, dtype=object)
    out = np.full(v.shape[:-1] + (ROW_BYTES,), POISON, dtype=np.uint8)
    for idx in np.ndindex(*v.shape[:-1]):
        number = sum(int(x) << (load.width * c) for c, x in enumerate(v[idx]))
        out[idx][:load.memory.packed_bytes] = list(number.to_bytes(load.memory.packed_bytes, "little"))
    return out


def moved(form, source: np.ndarray) -> np.ndarray:
    """movmatrix: (warps, 32, n) elements of a -> those of d: d's (t, i) holds the input matrix's
    cell that d's reading names, which a holds at the (lane, i) a's reading puts there."""
    a_rows, a_cols = form.source_positions
    holder = np.full((form.tile_rows, form.layout.cols), -1)
    holder[a_rows, a_cols] = np.arange(32 * form.n).reshape(32, form.n)
    index = holder[form.rows, form.cols]  # (32, n): flat (lane, i) of a
    if (index < 0).any():
        raise ValueError("a's reading leaves a cell of the input matrix unheld")
    flat = source.reshape(source.shape[0], 32 * form.n)
    return flat[:, index]


def distinct_rows(form, addresses: np.ndarray) -> str | None:
    """Why a warp's addresses cannot be read by the model (one outside the buffer or not 16-byte
    aligned, or two tile rows at one slot), or None."""
    rows = form.tile_rows if form is not None else 0
    for w, a in enumerate(np.asarray(addresses, dtype=np.int64)):
        if (a % ROW_BYTES).any() or (a < 0).any() or (a + ROW_BYTES > IMAGE_BYTES).any():
            return f"warp {w}: every address must be a 16-byte aligned row inside the {IMAGE_BYTES}-byte buffer"
        if len(set(a[:rows].tolist())) != rows:
            return f"warp {w}: the addresses of lanes 0-{rows - 1} must be distinct rows of the buffer"
    return None
