"""The wgmma shared-memory layouts and matrix descriptor (checker/probe/wgmma_smem.py) against the
examples PTX ISA 9.2 prints in 9.7.15.5.1.2 (Figures 166-170: "Exact layout" and the encoded LBO /
SBO of each) and 9.7.15.5.1.2.2 (the descriptor's fields)."""
import itertools

import numpy as np
import pytest

from checker.probe import wgmma_smem as sm


def cute(shape, stride, coord):
    """Evaluate a CuTe layout at a hierarchical coordinate (nested tuples of the same shape)."""
    if isinstance(shape, int):
        return coord * stride
    return sum(cute(s, d, c) for s, d, c in zip(shape, stride, coord))


def coords(shape):
    if isinstance(shape, int):
        return list(range(shape))
    return list(itertools.product(*(coords(s) for s in shape)))


def flat(shape, coord):
    """The 1-D index of a mode's coordinate, first sub-mode fastest (CuTe's colexicographic order)."""
    if isinstance(shape, int):
        return coord
    out, scale = 0, 1
    for s, c in zip(shape, coord):
        out += c * scale
        scale *= s
    return out


def _sizes(shape):
    return [shape] if isinstance(shape, int) else [x for s in shape for x in _sizes(s)]


# (figure, major, mode, element bits, shape, stride, LBO bytes, SBO bytes, encoded LBO, encoded SBO)
EXAMPLES = [
    ("Figure 166", "K", "none", 32, ((8, 2), (4, 4)), ((4, 32), (1, 64)), 64 * 4, 32 * 4, 16, 8),
    ("Figure 168", "MN", "none", 16, ((8, 1, 2), (8, 2)), ((1, 8, 64), (8, 128)), 128 * 2, 64 * 2, 16, 8),
    ("Figure 169", "MN", "32B", 16, ((8, 2, 2), (8, 2)), ((1, 8, 128), (16, 256)), 128 * 2, 256 * 2, 16, 32),
    ("Figure 170", "MN", "64B", 16, ((8, 4, 2), (8, 2)), ((1, 8, 256), (32, 512)), 256 * 2, 512 * 2, 32, 64),
]


@pytest.mark.parametrize("fig,major,mode,bits,shape,stride,lbo,sbo,enc_lbo,enc_sbo", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_the_canonical_layouts_are_the_documents_examples(fig, major, mode, bits, shape, stride, lbo, sbo, enc_lbo, enc_sbo):
    assert (sm.encode(lbo), sm.encode(sbo)) == (enc_lbo, enc_sbo)
    seen = 0
    for row_c in coords(shape[0]):
        for col_c in coords(shape[1]):
            elem = cute(shape, stride, (row_c, col_c))
            r, c = flat(shape[0], row_c), flat(shape[1], col_c)
            f = sm.k_major if major == "K" else sm.mn_major
            byte, bit = f(bits, r, c, mode, lbo, sbo)
            # the example's offsets are elements; Swizzle<b,4,3> acts on the byte address
            assert (int(byte), int(bit)) == (int(sm.swizzle(elem * bits // 8, mode)), 0), (fig, r, c)
            seen += 1
    assert seen == int(np.prod(_sizes(shape)))


def test_the_32B_k_major_tf32_example_is_not_one_to_one():
    """Figure 167: Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4)), SBO 64 tf32 (encoded 16). Rows are 32
    bytes (8 tf32) but K runs to 16 tf32: k = 8 of row 0 and k = 0 of row 1 share offset 8. Where K
    fits the swizzle row (k < 8) the layout is the module's; past it the module refuses."""
    shape, stride = ((8, 2), (4, 4)), ((8, 64), (1, 4))
    assert cute(shape, stride, ((0, 0), (0, 2))) == cute(shape, stride, ((1, 0), (0, 0))) == 8
    assert sm.encode(64 * 4) == 16
    for r in range(16):
        for k in range(8):
            elem = cute(shape, stride, ((r % 8, r // 8), (k % 4, k // 4)))
            assert int(sm.k_major(32, r, k, "32B", 16, 64 * 4)[0]) == int(sm.swizzle(elem * 4, "32B"))
    with pytest.raises(ValueError, match="a swizzle row holds 2"):
        sm.k_major(32, 0, 8, "32B", 16, 256)


@pytest.mark.parametrize("mode", sm.SWIZZLES)
def test_a_swizzle_permutes_the_chunks_of_each_row_of_its_atom(mode):
    w = sm.chunks(mode)
    atom = 8 * 16 * w  # Table 38: 8 rows of w 16-byte chunks (K-major)
    addr = np.arange(4 * atom)
    got = sm.swizzle(addr, mode)
    assert sorted(got.tolist()) == addr.tolist()
    assert ((got // (16 * w)) == (addr // (16 * w))).all()  # a byte stays in its row
    assert ((got % 16) == (addr % 16)).all()  # and at its place in its chunk
    if mode != "none":  # row r of the atom: chunk c goes to c ^ (r % w) (the rows of 128 bytes)
        r, c = 7, 0
        row_start = r * 16 * w
        assert got[row_start + 16 * c] == row_start + 16 * ((c ^ ((row_start >> 7) & (w - 1))))


def test_the_descriptor_fields():
    d = sm.descriptor(0x1400, 16, 1024, "128B")
    assert d >> 62 == 1 and (d >> 16) & 0x3FFF == 1 and (d >> 32) & 0x3FFF == 64 and d & 0x3FFF == 0x140
    assert {m: sm.descriptor(0, 16, 256, m) >> 62 for m in sm.SWIZZLES} == {"none": 0, "32B": 3, "64B": 2, "128B": 1}
    for mode in sm.SWIZZLES:
        back = sm.decode(sm.descriptor(0x2C00, 128, 512, mode, 5))
        assert back == {"start": 0x2C00, "lbo": 128, "sbo": 512, "base_offset": 5, "swizzle": mode}
    # base offset: 0 on the pattern's boundary, else (start >> 7) & 7
    assert sm.base_offset(0x800, "128B") == 0 and sm.base_offset(0x880, "128B") == 1
    assert sm.base_offset(0x300, "64B") == 6 and sm.base_offset(0x300, "none") == 0
    assert sm.encode(0x4_0010) == 1  # (x & 0x3FFFF) >> 4: bits past 17 dropped


@pytest.mark.parametrize("bits", [1, 8, 16, 32])
@pytest.mark.parametrize("mode", sm.SWIZZLES)
def test_an_image_reads_back_through_its_descriptor(bits, mode):
    k = 256 // bits
    rng = np.random.default_rng(bits)
    el = rng.integers(0, 1 << bits, size=(2, 24, k), dtype=np.uint64)
    img = sm.place(el, bits, mode, 0x40)
    assert img.shape == (2, sm.image_bytes(24, mode))
    lbo, sbo = sm.strides(mode)
    assert (sm.gather(img, bits, 24, mode, lbo, sbo) == el).all()
    # 32 bytes of K in rows of 16w: the rest are decoys, and another mode reads other bytes
    byte, _ = sm.offsets(bits, 24, mode)
    assert len(np.unique(byte)) * max(bits, 8) // 8 == 24 * 32
    unused = np.setdiff1d(np.arange(img.shape[1]), (byte[..., None] + np.arange(max(1, bits // 8))).ravel())
    assert len(unused) == img.shape[1] - 24 * 32 and (img[:, unused] == 0x40).all()
    if mode != "none":
        other = sm.gather(img, bits, 24, "none", *sm.strides("none"))
        assert not (other == el).all()
