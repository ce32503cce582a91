"""JAX Mosaic GPU's TiledLayout (jax/experimental/mosaic/gpu/fragmented_array.py), evaluated: the
map (thread, register element) -> (row, col) it gives an array of a fragment's shape.

A TiledLayout tiles the array's trailing dimensions, tile after tile; the warp dimensions and the
lane dimensions (each row-major in the order given, as `_delinearize_index` splits the warp and
lane index) pick the thread, the vector dimension the place in a register, and the other
dimensions, row-major, the register, as `registers.flat` lists them (wgmma.py and mma.py read the
registers in that order). A warp dimension may be `Replicated(n)`: n warps hold the same cells,
none of the tiled dimensions telling them apart. The entry gives the layout's arguments as Mosaic
GPU writes them; nothing else is read from it.

A warp-level MMA (mma.py) lays out a warpgroup's tile, of which each warp issues the instruction
on its own piece: `array` is then that tile's shape and `warp` the warp compared, its lanes
numbered 0..31 and its cells where they lie in the tile."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from checker.errors import CheckerError

MAX_POINTS = 1 << 16
WARPS_IN_WARPGROUP = 4  # Mosaic GPU's TiledLayout refuses warp dimensions of any other product
LANES_IN_WARP = 32  # and lane dimensions of any other product (WARP_SIZE)


@dataclass(frozen=True)
class Replicated:
    """Mosaic GPU's Replicated(times): a warp dimension that no tiled dimension indexes."""

    times: int


def tile_shape(shape: tuple, tiling: tuple):
    """The array's shape after tiling (Mosaic GPU's Tiling.tile_shape), or None where a tile does
    not apply to it (of a higher rank than what is left, or not dividing it)."""
    sizes = list(shape)
    for tile in tiling:
        k = len(tile)
        if k > len(sizes) or any(s % t for s, t in zip(sizes[-k:], tile)):
            return None
        sizes = sizes[:-k] + [s // t for s, t in zip(sizes[-k:], tile)] + list(tile)
    return tuple(sizes)


def refused(tiling: tuple, warp_dims: tuple, lane_dims: tuple, vector_dim: int):
    """What Mosaic GPU refuses of these arguments at the pinned commit (Tiling.__post_init__,
    TiledLayout.__post_init__, checked on the tiling's first tile as upstream checks them), as
    (the field, the index in it or None, the message); None where it takes them. Upstream raises
    before any array is laid out, so an entry it refuses is no layout of any fragment."""
    rank = len(tiling[0])
    for k, tile in enumerate(tiling):
        if len(tile) > rank:
            return "tiling", k, f"the tile {list(tile)} has a higher rank than the one before it (tiles must have a " \
                                "decreasing rank)"
        rank = len(tile)
    tiled_shape = tile_shape(tiling[0], tiling)
    if tiled_shape is None:
        return "tiling", None, f"the tiling does not apply to its own first tile {list(tiling[0])}"
    n = len(tiled_shape) - len(tiling[0])  # the dimensions the tiling makes: the only ones a layout partitions
    seen: set = set()
    given = [("warp_dims", k, d) for k, d in enumerate(warp_dims) if not isinstance(d, Replicated)]
    given += [("lane_dims", k, d) for k, d in enumerate(lane_dims)] + [("vector_dim", None, vector_dim)]
    for field, k, d in given:
        if d in seen:
            return field, k, f"dimension {d} is partitioned twice (duplicate partitioning dimensions)"
        seen.add(d)
    for field, k, d in given:
        if not -n <= d < 0:
            return field, k, f"expected a dimension in -{n}..-1 (the tiling makes {n}), found {d}"
    warps = math.prod(d.times if isinstance(d, Replicated) else tiled_shape[d] for d in warp_dims)
    if warps != WARPS_IN_WARPGROUP:
        return "warp_dims", None, f"the warp dimensions {_shown(warp_dims)} span {warps} warps, not the " \
                                  f"{WARPS_IN_WARPGROUP} of a warpgroup"
    lanes = math.prod(tiled_shape[d] for d in lane_dims)
    if lanes != LANES_IN_WARP:
        return "lane_dims", None, f"the lane dimensions {_shown(lane_dims)} span {lanes} lanes, not the " \
                                  f"{LANES_IN_WARP} of a warp"
    return None


def tiled(shape: tuple, tiling: tuple, warp_dims, lane_dims: tuple, vector_dim: int, warp=None) -> dict:
    """{(thread, element): (row, col)} over every cell of an array of `shape` (rows, cols): every
    warp's threads, or warp `warp`'s alone, numbered by lane. `warp_dims`: dimensions and
    Replicated, as TiledLayout takes them."""
    rows, cols = shape
    if rows * cols > MAX_POINTS:
        raise CheckerError(f"a {rows} x {cols} array is larger than a fragment can be")
    sizes = tile_shape((rows, cols), tiling)
    if sizes is None:
        raise CheckerError(f"the tiling {[list(t) for t in tiling]} does not apply to a {rows} x {cols} array")
    n = len(sizes)
    partitioned = [d for d in warp_dims if not isinstance(d, Replicated)]
    for d in (*partitioned, vector_dim, *lane_dims):
        if not -n <= d < n:
            raise CheckerError(f"dimension {d} is not one of the {n} dimensions of the tiled array")
    warp_sizes = [d.times if isinstance(d, Replicated) else sizes[d % n] for d in warp_dims]
    held = math.prod(warp_sizes)
    if held != WARPS_IN_WARPGROUP:
        raise CheckerError(f"the warp dimensions {_shown(warp_dims)} span {held} warps, not the "
                           f"{WARPS_IN_WARPGROUP} of a warpgroup")
    if warp is not None and not 0 <= warp < WARPS_IN_WARPGROUP:
        raise CheckerError(f"warp {warp} is not one of the {WARPS_IN_WARPGROUP} warps of a warpgroup")
    # each warp's index along each warp dimension, row-major as Mosaic GPU's _delinearize_index splits it
    split = list(itertools.product(*(range(s) for s in warp_sizes)))
    special = {*(d % n for d in partitioned), vector_dim % n, *(d % n for d in lane_dims)}
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
            element = reg * sizes[vector_dim % n] + idx[vector_dim % n]
            for w in range(WARPS_IN_WARPGROUP):
                if (warp is None or w == warp) and all(
                        isinstance(d, Replicated) or idx[d % n] == i for d, i in zip(warp_dims, split[w])):
                    out[(lane if warp is not None else 32 * w + lane, element)] = (r, c)
    return out


def _shown(warp_dims: tuple) -> str:
    return "(" + ", ".join(f"Replicated({d.times})" if isinstance(d, Replicated) else str(d) for d in warp_dims) + ")"
