"""Where wgmma reads a multiplicand in shared memory: the canonical layouts, the swizzle modes and the
matrix descriptor, as PTX ISA 9.2 prints them (9.7.15.5.1.2 "Shared Memory Matrix Layout", its
Table 38, 9.7.15.5.1.2.1.3 "Canonical Layouts", 9.7.15.5.1.2.2 "Matrix Descriptor Format").

Canonical layouts, in elements, T = 128 / element bits (one 16-byte chunk), w = the swizzle's
width in chunks (none 1, 32B 2, 64B 4, 128B 8):

  K-major, no swizzle   ((8,m),(T,2k)):((1T,SBO),(1,LBO))
  K-major, swizzled     ((8,m),(T,2k)):((wT,SBO),(1,T))
  MN-major, no swizzle  ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
  MN-major, swizzled    ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))

each composed with Swizzle<b,4,3>, b = log2(w). The swizzle is read as acting on byte addresses:
Table 38 gives the atoms "for elements of size 128 bits", so bit 4 up of an address is the 16-byte
chunk, and Swizzle<b,4,3> XORs chunk bits 4..4+b-1 with bits 7..7+b-1 (the 128-byte row of the
repeating pattern). The examples print their "Exact layout" in elements with the same Swizzle<b,4,3>;
read literally in elements the 32B swizzle would move a tf32 64 bytes, outside its 32-byte row.

The document's K-major swizzled layout steps K by T elements within a row of wT: it holds 2k <= w
chunks of K. The 32B tf32 example (Figure 167) prints ((8,2),(4,4)):((8,64),(1,4)): four chunks of K
in rows of two, so that exact layout is not one-to-one (k = 8 of row 0 and k = 0 of row 1 share an
offset); the tests keep that finding. A wgmma reads 32 bytes of K per instruction, which fits every
mode; the probe puts them at the start of each swizzle row and fills the rest with decoys.
"""
from __future__ import annotations

import numpy as np

SWIZZLES = ("none", "32B", "64B", "128B")
_B = {"none": 0, "32B": 1, "64B": 2, "128B": 3}  # Swizzle<b,4,3>
MODE_FIELD = {"none": 0, "128B": 1, "64B": 2, "32B": 3}  # descriptor bits 63-62
REPEAT_BYTES = {"128B": 1024, "64B": 512, "32B": 256}  # "Starting address of the repeating pattern"
K_BYTES = 32  # the K extent of one wgmma, for every type


def chunks(mode: str) -> int:
    """w: 16-byte chunks per row of the swizzle atom (Table 38: 8x1, 8x2, 8x4, 8x8 for K-major)."""
    return 1 << _B[mode]


def swizzle(addr, mode: str):
    """Swizzle<b,4,3> on byte addresses: chunk bits 4.. XOR row bits 7..."""
    b = _B[mode]
    a = np.asarray(addr, dtype=np.int64)
    return a ^ (((a >> 7) & ((1 << b) - 1)) << 4)


def k_major(bits: int, row, k, mode: str, lbo: int, sbo: int):
    """(byte, bit) of element (row, k) of a K-major matrix, row along M or N; lbo, sbo in bytes."""
    t = 128 // bits
    row, k = np.asarray(row, dtype=np.int64), np.asarray(k, dtype=np.int64)
    r0, r1, k0, k1 = row % 8, row // 8, k % t, k // t
    w = chunks(mode)
    if mode == "none":
        elem = t * r0 + k0 + (sbo * 8 // bits) * r1 + (lbo * 8 // bits) * k1
    else:
        if (k1 >= w).any():
            raise ValueError(f"K-major {mode}: K reaches chunk {int(k1.max())}, but a swizzle row holds {w}")
        elem = w * t * r0 + k0 + t * k1 + (sbo * 8 // bits) * r1
    at = elem * bits
    return swizzle(at // 8, mode), at % 8


def mn_major(bits: int, mn, k, mode: str, lbo: int, sbo: int):
    """(byte, bit) of element (mn, k) of an MN-major matrix; lbo, sbo in bytes."""
    t = 128 // bits
    mn, k = np.asarray(mn, dtype=np.int64), np.asarray(k, dtype=np.int64)
    w = chunks(mode)
    t0, c, mm = mn % t, (mn // t) % w, mn // (w * t)
    r, kk = k % 8, k // 8
    lbo_e, sbo_e = lbo * 8 // bits, sbo * 8 // bits
    if mode == "none":
        elem = t0 + sbo_e * mm + t * r + lbo_e * kk
    else:
        elem = t0 + t * c + lbo_e * mm + w * t * r + sbo_e * kk
    at = elem * bits
    return swizzle(at // 8, mode), at % 8


def encode(x: int) -> int:
    """matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4."""
    return (x & 0x3FFFF) >> 4


def base_offset(start: int, mode: str) -> int:
    """0 where the pattern starts on its boundary, else (pattern start addr >> 0x7) & 0x7."""
    if mode == "none" or start % REPEAT_BYTES[mode] == 0:
        return 0
    return (start >> 0x7) & 0x7


def descriptor(start: int, lbo: int, sbo: int, mode: str, base: int = 0) -> int:
    """The 64-bit matrix descriptor: start 13-0, LBO 29-16, SBO 45-32, base offset 51-49, mode 63-62."""
    return (encode(start) | encode(lbo) << 16 | encode(sbo) << 32 | (base & 7) << 49
            | MODE_FIELD[mode] << 62)


def decode(desc: int) -> dict:
    """The fields of a descriptor, in bytes (the encoded values times 16)."""
    modes = {v: k for k, v in MODE_FIELD.items()}
    return {"start": (desc & 0x3FFF) << 4, "lbo": (desc >> 16 & 0x3FFF) << 4, "sbo": (desc >> 32 & 0x3FFF) << 4,
            "base_offset": desc >> 49 & 7, "swizzle": modes[desc >> 62 & 3]}


def strides(mode: str, k_bytes: int = K_BYTES) -> tuple:
    """(LBO, SBO) in bytes of the probe's dense K-major images of `k_bytes` of K (32; a sparse wgmma's B
    64): no swizzle, the core matrices along K 128 bytes apart and the next 8 rows 8 x k_bytes on;
    swizzled, LBO is "not used, assumed to be 1" (encoded 1: 16 bytes) and the next 8 rows follow the
    atom (8 rows of w chunks)."""
    if mode == "none":
        return 128, 8 * k_bytes
    return 16, 8 * 16 * chunks(mode)


def image_bytes(rows: int, mode: str, k_bytes: int = K_BYTES) -> int:
    """Bytes of a K-major image of `rows` rows (a multiple of 8) and `k_bytes` of K."""
    return rows * (k_bytes if mode == "none" else 16 * chunks(mode))


def offsets(bits: int, rows: int, mode: str, k_bytes: int = K_BYTES) -> tuple:
    """(byte, bit) arrays (rows, K) of every element of the probe's image of a rows x K matrix."""
    k = k_bytes * 8 // bits
    lbo, sbo = strides(mode, k_bytes)
    r, kk = np.meshgrid(np.arange(rows), np.arange(k), indexing="ij")
    return k_major(bits, r, kk, mode, lbo, sbo)


def place(elements: np.ndarray, bits: int, mode: str, decoy: int) -> np.ndarray:
    """(..., rows, K) element bit patterns -> (..., image bytes) uint8 images; bytes no element
    uses hold `decoy`, so a read outside the layout shows in D."""
    el = np.asarray(elements, dtype=np.uint64) & np.uint64((1 << bits) - 1)
    rows, k_bytes = el.shape[-2], el.shape[-1] * bits // 8
    byte, _ = offsets(bits, rows, mode, k_bytes)
    out = np.full(el.shape[:-2] + (image_bytes(rows, mode, k_bytes),), decoy, dtype=np.uint8)
    if bits < 8:  # sub-byte elements: k, k+1, ... fill one byte from its low bits up
        per = 8 // bits
        grouped = el.reshape(el.shape[:-1] + (el.shape[-1] // per, per))
        packed = (grouped << (np.arange(per, dtype=np.uint64) * np.uint64(bits))).sum(axis=-1)
        out[..., byte[:, ::per]] = packed.astype(np.uint8)
        return out
    for width in range(bits // 8):  # the bytes of one element, little-endian
        out[..., byte + width] = ((el >> np.uint64(8 * width)) & np.uint64(0xFF)).astype(np.uint8)
    return out


def gather(image: np.ndarray, bits: int, rows: int, mode: str, lbo: int, sbo: int,
           k_bytes: int = K_BYTES) -> np.ndarray:
    """(..., image bytes) uint8 -> (..., rows, K) element bit patterns, read with the layout the
    (decoded) descriptor names; a byte beyond the image reads as 0."""
    img = np.asarray(image, dtype=np.uint8)
    k = k_bytes * 8 // bits
    r, kk = np.meshgrid(np.arange(rows), np.arange(k), indexing="ij")
    byte, bit = k_major(bits, r, kk, mode, lbo, sbo)
    size = img.shape[-1]
    out = np.zeros(img.shape[:-1] + (rows, k), dtype=np.uint64)
    for width in range(max(1, bits // 8)):
        at = byte + width
        got = np.where(at < size, img[..., np.clip(at, 0, size - 1)], 0).astype(np.uint64)
        out |= got << np.uint64(8 * width)
    if bits < 8:
        out = (out >> bit.astype(np.uint64)) & np.uint64((1 << bits) - 1)
    return out
