"""Read back, from a dump's identification patterns, which matrix cell the device gave each slot.

Every answer is relative to the spec's layouts of the other operands: an A slot is identified by
unpacking the coded B and the resulting D with the spec's B and D layouts, a D slot by the spec's
C layout. That is all a program can see: relabelling m, n or k consistently across A, B, C and D
leaves every result the same, so such a relabelling can never be told apart from the spec.

Result per operand: `hw` (32, n, 3) int array of (computation, row, col) per slot, -1 where the
slot could not be identified, and `why` for those.
"""
from __future__ import annotations

import numpy as np

from checker.semantics.registers import elements, group_of, unpack
from checker.semantics.types import from_bits


def blocks_of(header: dict) -> dict:
    """(kind, code) -> slice of warps."""
    out, start = {}, 0
    for b in header["patterns"]:
        out[(b["kind"], b.get("code"))] = slice(start, start + b["count"])
        start += b["count"]
    return out


def spec_cells(g) -> np.ndarray:
    """(32, n, 3): the spec's (computation, row, col) of every slot."""
    owner = group_of(g)
    return np.stack([np.broadcast_to(owner[:, None], g.rows.shape), g.rows, g.cols], axis=-1)


def _code_values(v, delta):
    """What a one-hot slot adds to D, turned back into the coded operand's entry."""
    if v.atype == "b1" and v.op == "xor":
        return (1 - delta) / 2  # a ^ b flips from b to 1 - b: D moves by 1 - 2b
    return delta


def operand(v, geo, shp, dump, hot: str) -> dict:
    """Identify every slot of A (hot='A') or B (hot='B')."""
    other = "B" if hot == "A" else "A"
    where = blocks_of(dump.header)
    regs = dump.registers
    g = geo[hot]
    hw = np.full((32 * g.n, 3), -1, dtype=np.int64)
    vecs, tables, nonzero = [], [], None
    q = 0
    while ("onehot-" + hot, q) in where:
        base = where[("baseline-" + hot, q)]
        hot_sl = where[("onehot-" + hot, q)]
        if hot_sl.stop - hot_sl.start != 32 * g.n:
            return {"hw": hw.reshape(32, g.n, 3), "why": f"the dump has {hot_sl.stop - hot_sl.start} one-hot "
                    f"{hot} warps; the spec's {hot} has {32 * g.n} slots"}
        if base.stop - base.start != 1:  # every one-hot warp is compared with the one baseline warp
            return {"hw": hw.reshape(32, g.n, 3), "why": f"the dump's baseline-{hot} block #{q} has "
                    f"{base.stop - base.start} warps; the patterns make it 1, which every one-hot warp is compared with"}
        d_hot = unpack(geo["D"], regs["D"][hot_sl], shp["D"]).astype(np.float64)  # (S, G, M, N)
        d_base = unpack(geo["D"], regs["D"][base], shp["D"]).astype(np.float64)  # (1, G, M, N)
        coded = unpack(geo[other], regs[other][base], shp[other])[0].astype(np.float64)  # (G, ., .)
        # a dump's D may hold infinities or the largest doubles: inf - inf is NaN and 1.7e308 - -1.7e308
        # overflows, each matching no code (the slot is not identified, located); numpy had also warned
        # on stderr, naming this file's line as if it were the input's
        with np.errstate(invalid="ignore", over="ignore"):
            vals = _code_values(v, d_hot - d_base)
        nz = (d_hot != d_base)
        if hot == "B":  # look along columns: (S, G, N, M); coded A (G, M, K) -> rows of k: (G, K, M)
            vals, nz, coded = vals.swapaxes(-1, -2), nz.swapaxes(-1, -2), coded.swapaxes(-1, -2)
        nz = nz.any(axis=-1)  # (S, G, line)
        nonzero = nz if nonzero is None else nonzero | nz
        vecs.append(vals)
        tables.append(coded)  # (G, K, J): entry k of the code along J
        q += 1
    if nonzero is None:
        return {"hw": hw.reshape(32, g.n, 3), "why": f"the dump has no one-hot {hot} patterns"}
    vec = np.concatenate(vecs, axis=-1)  # (S, G, line, Q*J)
    table = np.concatenate(tables, axis=-1)  # (G, K, Q*J)
    lines = nonzero.sum(axis=(1, 2))
    for s in np.nonzero(lines == 1)[0]:
        gg, line = np.argwhere(nonzero[s])[0]
        match = np.nonzero((table[gg] == vec[s, gg, line][None, :]).all(axis=1))[0]
        if len(match) == 1:
            k = int(match[0])
            hw[s] = (gg, line, k) if hot == "A" else (gg, k, line)
    why = None
    if (lines != 1).any():
        s = int(np.nonzero(lines != 1)[0][0])
        why = (f"lane {s // g.n} {g.fragment.letter}{s % g.n}: setting it alone changes "
               f"{int(lines[s])} {'rows' if hot == 'A' else 'columns'} of D, not one")
    elif (hw[:, 0] < 0).any():
        s = int(np.nonzero(hw[:, 0] < 0)[0][0])
        why = f"lane {s // g.n} {g.fragment.letter}{s % g.n}: what it adds to D matches no k of the coded {other}"
    return {"hw": hw.reshape(32, g.n, 3), "why": why}


def accumulator(v, geo, shp, dump) -> dict:
    """Identify every D slot from the C-alone pattern: its value names the C cell it came from."""
    where = blocks_of(dump.header)
    sl = where[("c-alone", None)]
    g = geo["D"]
    C = unpack(geo["C"], dump.registers["C"][sl], shp["C"])[0].astype(np.float64)  # (G, M, N)
    cell = {float(x): idx for idx, x in np.ndenumerate(C)}
    got = from_bits(v.dtype, elements(g, dump.registers["D"][sl][0])).astype(np.float64)  # (32, n)
    hw = np.full((32, g.n, 3), -1, dtype=np.int64)
    for lane in range(32):
        for i in range(g.n):
            hit = cell.get(float(got[lane, i]))
            if hit is not None:
                hw[lane, i] = hit
    why = None
    if (hw[..., 0] < 0).any():
        lane, i = np.argwhere(hw[..., 0] < 0)[0]
        why = f"lane {lane} {g.fragment.letter}{i}: its value {got[lane, i]:g} is in no cell of C"
    return {"hw": hw, "why": why}
