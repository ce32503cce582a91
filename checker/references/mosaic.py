"""JAX Mosaic GPU's TiledLayout (jax/experimental/mosaic/gpu/fragmented_array.py), evaluated: the
map (thread, register element) -> (row, col) it gives an array of a fragment's shape.

A TiledLayout tiles the array's trailing dimensions, tile after tile; the warp dimension and the
lane dimensions (lanes row-major in the order given) pick the thread, the vector dimension the
place in a register, and the other dimensions, row-major, the register, as `registers.flat`
lists them (wgmma.py reads the registers in that order). The entry gives the layout's four
arguments as Mosaic GPU writes them; nothing else is read from it."""
from __future__ import annotations

from checker.errors import CheckerError

MAX_POINTS = 1 << 16


def tiled(shape: tuple, tiling: tuple, warp_dim: int, lane_dims: tuple, vector_dim: int) -> dict:
    """{(thread, element): (row, col)} over every cell of an array of `shape` (rows, cols)."""
    rows, cols = shape
    if rows * cols > MAX_POINTS:
        raise CheckerError(f"a {rows} x {cols} array is larger than a fragment can be")
    sizes = [rows, cols]
    for tile in tiling:
        k = len(tile)
        if k > len(sizes) or any(s % t for s, t in zip(sizes[-k:], tile)):
            raise CheckerError(f"the tile {tile} does not divide the dimensions {sizes[-k:]} of a {rows} x {cols} array")
        sizes = sizes[:-k] + [s // t for s, t in zip(sizes[-k:], tile)] + list(tile)
    n = len(sizes)
    for d in (warp_dim, vector_dim, *lane_dims):
        if not -n <= d < n:
            raise CheckerError(f"dimension {d} is not one of the {n} dimensions of the tiled array")
    special = {warp_dim % n, vector_dim % n, *(d % n for d in lane_dims)}
    out = {}
    for r in range(rows):
        for c in range(cols):
            idx = [r, c]
            for tile in tiling:
                k = len(tile)
                idx = idx[:-k] + [i // t for i, t in zip(idx[-k:], tile)] + [i % t for i, t in zip(idx[-k:], tile)]
            lane = 0
            for d in lane_dims:
                lane = lane * sizes[d % n] + idx[d % n]
            reg = 0
            for d in range(n):
                if d not in special:
                    reg = reg * sizes[d] + idx[d]
            out[(32 * idx[warp_dim % n] + lane, reg * sizes[vector_dim % n] + idx[vector_dim % n])] = (r, c)
    return out
