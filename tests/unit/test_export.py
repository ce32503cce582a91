"""`checker export` and `checker where`: every export of every fragment of the chapter round-trips (the
Python module imported and run, the C++ header compiled with g++ and run, both over every point
and every cell), CuTe's own published layouts come out, a layout that is not linear or not
strided is refused with the point where it fails, and `where` answers from the spec."""
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, SPECS

from checker.export import derive
from checker.spec.load import load_spec

SHAPES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(SPECS, "m*.yaml")))
# wgmma's D at three of its N (the others are the same map on more columns): 8, 24 (not a power of
# two: no linear layout, an inverse table) and 64. A block-scale factor, held by the lanes its
# selector picks, is not exported (test_block_scale holds export to refusing it).
FRAGMENTS = [(s, f.id) for s in SHAPES for f in load_spec(os.path.join(SPECS, s + ".yaml")).fragments()
             if dict(f.params).get("N", 8) in (8, 24, 64) and f.lanes is None]
LINEAR = [(s, fid) for s, fid in FRAGMENTS if "[N=24]" not in fid]


def _spec(shape):
    return os.path.join(SPECS, shape + ".yaml")


def _truth(shape, fid):
    frag = load_spec(_spec(shape)).fragment(fid)
    return derive.build(frag, 1 if frag.computations else None)


# CuTe's layouts for these instructions, as cutlass include/cute/atom/mma_traits_sm80.hpp and
# mma_traits_sm70.hpp publish them (SM80_16x8x16_F16F16F16F16_TN, SM80_8x8x4_F64F64F64F64_TN,
# SM70_8x8x4_F16F16F16F16_TN, whose thread index is the position among a quad-pair's lanes)
CUTE = [
    ("m16n8k16", "A.f16", "((4,8),(2,2,2)):((32,1),(16,8,128))"),
    ("m16n8k16", "B.f16", "((4,8),(2,2)):((16,1),(8,64))"),
    ("m16n8k16", "C.float", "((4,8),(2,2)):((32,1),(16,8))"),
    ("m8n8k4", "A.f64", "((4,8),1):((8,1),0)"),
    ("m8n8k4", "A.f16.row", "(8,4):(1,8)"),
    ("m16n8k8", "A.f16", "((4,8),(2,2)):((32,1),(16,8))"),  # SM80_16x8x8_F16F16F16F16_TN: SM80_16x8_Row
    ("m16n8k8", "B.f16", "((4,8),2):((16,1),8)"),  # SM80_8x8_Row
    ("m16n8k32", "A.i8", "((4,8),(4,2,2)):((64,1),(16,8,256))"),  # SM89_16x8x32_F32E4M3E4M3F32_TN
    # SM90 GMMA (mma_traits_sm90_gmma.hpp): CLayout_64xN<64>, ALayout_64x16, ALayout_64x8, ALayout_64x32
    ("m64nNk16", "D.float[N=64]", "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))"),
    ("m64nNk16", "A.f16", "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"),
    ("m64nNk8", "A.tf32", "((4,8,4),(2,2)):((64,1,16),(8,256))"),
    ("m64nNk32", "A.i8", "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))"),
]


@pytest.mark.parametrize("shape,fid,published", CUTE)
def test_cute_export_is_cutes_own_layout(run, shape, fid, published):
    r = run("export", _spec(shape), "--fragment", fid, "--to", "cute")
    assert r.code == 0, r.err
    assert f"// CuTe DSL / pycute: {published}" in r.out
    assert "z3 proved it equal" in r.out and "enumeration agrees" in r.out


@pytest.mark.parametrize("shape,fid", FRAGMENTS)
def test_python_export_round_trips(run, tmp_path, shape, fid):
    r = run("export", _spec(shape), "--fragment", fid, "--to", "python")
    assert r.code == 0, r.err
    path = tmp_path / "layout.py"
    path.write_text(r.out)
    spec = importlib.util.spec_from_file_location("layout", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # generated from a committed seed spec, in a test
    m = _truth(shape, fid)
    for t, lane in enumerate(m.lanes):
        for i in range(m.n):
            cell = m.cell(t, i)
            assert (mod.row(lane, i), mod.col(lane, i)) == cell
            assert (mod.lane(*cell), mod.element(*cell)) == (lane, i)


@pytest.mark.parametrize("shape,fid", LINEAR)
def test_triton_bases_reproduce_the_map(run, shape, fid):
    r = run("export", _spec(shape), "--fragment", fid, "--to", "triton")
    assert r.code == 0, r.err
    reg = json.loads(re.search(r"reg_bases=(\[.*\]),", r.out).group(1))
    lane = json.loads(re.search(r"lane_bases=(\[.*\]),", r.out).group(1))
    lane += json.loads(re.search(r"warp_bases=(\[.*\]),", r.out).group(1))  # a warpgroup's thread: lane, then warp
    m = _truth(shape, fid)
    for t in range(len(m.lanes)):
        for i in range(m.n):
            got = [a ^ b for a, b in zip(derive.xor_of(tuple(map(tuple, lane)), t), derive.xor_of(tuple(map(tuple, reg)), i))]
            assert tuple(got) == m.cell(t, i)


# .ci/run sets CHECKER_REQUIRE_CUDA: its machines have g++ and nvcc, so there a missing one fails
REQUIRED = bool(os.environ.get("CHECKER_REQUIRE_CUDA"))


@pytest.mark.skipif(not REQUIRED and shutil.which("g++") is None, reason="no C++ compiler")
def test_cpp_export_compiles_and_round_trips(run, tmp_path):
    """Every fragment's header in one translation unit, -Wall -Werror, run over every point."""
    includes, calls = [], []
    for k, (shape, fid) in enumerate(FRAGMENTS):
        r = run("export", _spec(shape), "--fragment", fid, "--to", "cpp")
        assert r.code == 0, r.err
        (tmp_path / f"f{k}.h").write_text(r.out)
        ns = re.search(r"namespace ptx_fragments \{ namespace (\w+) \{ namespace (\w+) \{", r.out).groups()
        q = f"ptx_fragments::{ns[0]}::{ns[1]}"
        includes.append(f'#include "f{k}.h"')
        m = _truth(shape, fid)
        lanes = ",".join(map(str, m.lanes))
        calls.append(f'  {{ const int lanes[] = {{{lanes}}}; std::printf("F {k}\\n");'
                     f" for (int t = 0; t < {len(m.lanes)}; ++t) for (int i = 0; i < {q}::kElements; ++i) {{"
                     f" const int r = {q}::row(lanes[t], i), c = {q}::col(lanes[t], i);"
                     f' std::printf("%d %d %d %d\\n", r, c, {q}::lane(r, c), {q}::element(r, c)); }} }}')
    main = tmp_path / "main.cpp"
    main.write_text("#include <cstdio>\n" + "\n".join(includes) + "\nint main() {\n" + "\n".join(calls) + "\n}\n")
    subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", str(main), "-o", str(tmp_path / "a.out")],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([str(tmp_path / "a.out")], check=True, capture_output=True, text=True).stdout
    blocks = out.split("F ")[1:]
    assert len(blocks) == len(FRAGMENTS)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:  # the README counts them
        assert f"at N = 8, 24 and 64: {len(FRAGMENTS)} in all) into one program" in " ".join(fh.read().split())
    for (shape, fid), block in zip(FRAGMENTS, blocks):
        m = _truth(shape, fid)
        rows = [tuple(map(int, line.split())) for line in block.splitlines()[1:]]
        want = [(*m.cell(t, i), lane, i) for t, lane in enumerate(m.lanes) for i in range(m.n)]
        assert rows == want, f"{shape} {fid}"


@pytest.mark.skipif(not REQUIRED and shutil.which("nvcc") is None,
                    reason="no nvcc: the CUDA build of the header is not checked")
def test_cpp_export_compiles_as_cuda_device_code(run, tmp_path):
    r = run("export", _spec("m16n8k16"), "--fragment", "A.f16", "--to", "cpp")
    (tmp_path / "a.h").write_text(r.out)
    (tmp_path / "k.cu").write_text(
        '#include "a.h"\nnamespace L = ptx_fragments::m16n8k16::A_f16;\n'
        "__global__ void k(int* out) { const int lane = threadIdx.x % 32;\n"
        "  for (int i = 0; i < L::kElements; ++i) { const int r = L::row(lane, i), c = L::col(lane, i);\n"
        "    out[lane * L::kElements + i] = L::lane(r, c) * 100 + L::element(r, c); } }\n")
    subprocess.run(["nvcc", "-c", "-arch=sm_80", "-Werror", "all-warnings", str(tmp_path / "k.cu"), "-o",
                    str(tmp_path / "k.o")], check=True, capture_output=True, text=True, cwd=tmp_path)


def _skewed(tmp_path):
    """m8n8k4 with A.f64's col rotated per row: a bijection, but not linear over GF(2) (a carry)."""
    text = open(_spec("m8n8k4")).read()
    i = text.index("id: A.f64")
    j = text.index("col =", i)
    k = text.index("\n", j)
    path = tmp_path / "m8n8k4.yaml"
    path.write_text(text[:j] + "col = (%laneid + (%laneid >> 2)) % 4" + text[k:])
    return str(path)


def test_a_nonlinear_layout_is_refused_by_triton_and_cute_and_tabled_by_python(run, tmp_path):
    spec = _skewed(tmp_path)
    assert run("prove", spec).code == 0  # still a bijection: every property holds
    tri = run("export", spec, "--fragment", "A.f64", "--to", "triton")
    assert tri.code == 1 and "is not a linear layout over GF(2)" in tri.err and f"{spec}:" in tri.err
    cute = run("export", spec, "--fragment", "A.f64", "--to", "cute")
    assert cute.code == 1 and "is not a CuTe layout" in cute.err and "Traceback" not in cute.err
    py = run("export", spec, "--fragment", "A.f64", "--to", "python")
    assert py.code == 0 and "_INVERSE = {" in py.out and "not linear over GF(2)" in py.out
    path = tmp_path / "skew.py"
    path.write_text(py.out)
    s = importlib.util.spec_from_file_location("skew", path)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    for lane in range(32):
        assert mod.col(lane, 0) == (lane + (lane >> 2)) % 4
        assert mod.lane(mod.row(lane, 0), mod.col(lane, 0)) == lane
    cpp = run("export", spec, "--fragment", "A.f64", "--to", "cpp")
    assert cpp.code == 0 and "kInverse[8][4]" in cpp.out
    if REQUIRED or shutil.which("g++"):
        (tmp_path / "skew.h").write_text(cpp.out)
        (tmp_path / "m.cpp").write_text(
            '#include <cstdio>\n#include "skew.h"\nnamespace L = ptx_fragments::m8n8k4::A_f64;\n'
            'int main() { for (int l = 0; l < 32; ++l) std::printf("%d %d\\n", L::col(l, 0), '
            "L::lane(L::row(l, 0), L::col(l, 0))); }\n")
        subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "m.cpp", "-o", "m"], cwd=tmp_path,
                       check=True, capture_output=True)
        out = subprocess.run([str(tmp_path / "m")], check=True, capture_output=True, text=True).stdout.split()
        assert out == [str(x) for lane in range(32) for x in ((lane + (lane >> 2)) % 4, lane)]


def test_an_unproved_fragment_is_not_exported(run, tmp_path):
    text = open(_spec("m8n8k32")).read()
    path = tmp_path / "m8n8k32.yaml"
    path.write_text(text.replace("col = (threadID_in_group * 8) + i ", "col = (threadID_in_group * 8) + i + 1", 1))
    r = run("export", str(path), "--fragment", "A.i4", "--to", "cute")
    # the in-range property's own words, at the piece that gives the column (not a witness's repr)
    assert r.code == 1 and f"{path}:28:17: A.i4 is out of range at lane 3 a7: col = 32, outside 0..31; " \
                           "`checker prove` it first" in r.err, r.err


def test_where_answers_from_the_spec(run):
    r = run("where", _spec("m16n8k256"), "--fragment", "A.b1", "--row", "9", "--col", "130", "--format", "json")
    w = json.loads(r.out)
    [h] = w["holders"]
    m = _truth("m16n8k256", "A.b1")
    assert m.cell(h["lane"], h["i"]) == (9, 130) and w["unique"]
    assert h["registers"] == [{"types": ["b1"], "register": h["i"] // 32, "count": 4, "kind": "b32",
                               "bits": [h["i"] % 32, h["i"] % 32]}]
    text = run("where", _spec("m16n8k256"), "--fragment", "A.b1", "--row", "9", "--col", "130").out
    assert f"lane {h['lane']}, element a{h['i']}" in text
    # one .b1 element is one bit of its register: "bit 2", not "bits 2..2"
    assert f"register {h['i'] // 32} of 4 .b32, bit {h['i'] % 32}\n" in text and ".." not in text
    f16 = run("where", _spec("m16n8k16"), "--fragment", "C.float", "--row", "9", "--col", "3").out
    assert "register 1 of 2 .f16x2, bits 16..31" in f16


def test_where_says_when_the_bits_are_a_container(run):
    """m16n8k32's .e3m2/.e2m3/.e2m1 sit in 8-bit containers (container_bits: 8): the bits `where`
    gives are the container's, which it says; the value's place in it is the document's. The
    .s8/.u8 row, whose element is its 8 bits, says nothing of the kind."""
    args = ("where", _spec("m16n8k32"), "--fragment", "A.i8", "--row", "9", "--col", "13")
    [h] = json.loads(run(*args, "--format", "json").out)["holders"]
    rows = {tuple(r["types"]): r for r in h["registers"]}
    assert rows[("s8", "u8")]["bits"] == [8, 15] and "container_bits" not in rows[("s8", "u8")]
    f8f6f4 = rows[("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")]
    assert f8f6f4["bits"] == [8, 15] and f8f6f4["container_bits"] == 8
    text = run(*args).out
    assert ".s8/.u8: register 1 of 4 .b32, bits 8..15\n" in text
    assert (".e2m1: register 1 of 4 .b32, bits 8..15 (each value in a container of 8 bits: 9.7.14.5.14 says "
            "where a 4-bit or 6-bit value sits in it)") in text
    sparse = run("where", _spec("m16n8k64"), "--fragment", "A.sp.i8", "--row", "9", "--col", "13").out
    assert ".e2m1 bits 16..23 (each value in a container of 8 bits: 9.7.14.6.3 says" in sparse


def test_where_in_m8n8k4_names_one_holder_per_computation(run):
    w = json.loads(run("where", _spec("m8n8k4"), "--fragment", "A.f16.row", "--row", "5", "--col", "2",
                       "--format", "json").out)
    assert [h["computation"] for h in w["holders"]] == [1, 2, 3, 4] and w["unique"]


@pytest.mark.parametrize("args", [["--row", "16", "--col", "0"], ["--row", "0", "--col", "-1"]])
def test_where_outside_the_matrix_is_a_usage_error(run, args):
    r = run("where", _spec("m16n8k16"), "--fragment", "A.f16", *args)
    assert r.code == 2 and "--row takes 0..15" in r.err


def test_export_of_an_unknown_fragment_is_a_usage_error(run):
    r = run("export", _spec("m16n8k16"), "--fragment", "A.nope", "--to", "cute")
    assert r.code == 2 and "has no fragment 'A.nope'" in r.err


def _mutated(tmp_path, shape, old, new, after="sections:"):
    """The spec with the first `old` after `after` replaced by `new`."""
    text = open(_spec(shape)).read()
    j = text.index(old, text.index(after))
    path = tmp_path / f"{shape}.yaml"
    path.write_text(text[:j] + new + text[j + len(old):])
    return str(path)


def _module(tmp_path, text):
    path = tmp_path / "mod.py"
    path.write_text(text)
    s = importlib.util.spec_from_file_location("mod", path)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)  # generated from a spec the test wrote
    return mod


def test_an_affine_layout_gets_an_affine_inverse_not_a_table(run, tmp_path):
    """col = 3 - (%laneid % 4) is 3 XOR (%laneid % 4): not linear (lane 0 holds (0, 3)), so no Triton
    bases, but its inverse is GF(2) bases XOR a constant, proved at every point and printed in closed form."""
    spec = _mutated(tmp_path, "m8n8k4", "col =        %laneid % 4", "col =        3 - (%laneid % 4)", "id: A.f64")
    assert run("export", spec, "--fragment", "A.f64", "--to", "triton").code == 1
    py = run("export", spec, "--fragment", "A.f64", "--to", "python")
    assert py.code == 0, py.err
    assert "_INVERSE" not in py.out and "read off the cells with one bit set): z3 proved it equal" in py.out
    assert "    t = (((row >> 0) & 1) * 4) ^ (((row >> 1) & 1) * 8) ^ (((row >> 2) & 1) * 16) ^ " \
           "(((col >> 0) & 1) * 1) ^ (((col >> 1) & 1) * 2) ^ 3" in py.out
    mod = _module(tmp_path, py.out)
    cells = {(mod.row(lane, 0), mod.col(lane, 0)) for lane in range(32)}
    assert cells == {(r, c) for r in range(8) for c in range(4)}
    for lane in range(32):
        assert mod.col(lane, 0) == 3 - lane % 4 and mod.lane(mod.row(lane, 0), mod.col(lane, 0)) == lane
    cpp = run("export", spec, "--fragment", "A.f64", "--to", "cpp")
    assert cpp.code == 0 and "kInverse" not in cpp.out and "PTX_FRAGMENT_HD int lane(" in cpp.out


def test_a_non_power_of_two_map_with_no_gf2_inverse_falls_back_to_the_table(run, tmp_path):
    """wgmma D at N = 24 with each 8-column block rotated by its index: still a bijection, but a carry
    (no GF(2) inverse), so the candidate read off the cells is refuted by both engines, named in the
    header, and the inverse is the enumeration's table, which still round-trips."""
    spec = _mutated(tmp_path, "m64nNk16", "col = ((i >> 2) * 8) + (threadID_in_group * 2) + (i & 0x1)",
                    "col = ((i >> 2) * 8) + (((threadID_in_group * 2) + (i & 0x1) + (i >> 2)) % 8)")
    py = run("export", spec, "--fragment", "D.float[N=24]", "--to", "python")
    assert py.code == 0, py.err
    assert "no GF(2)-affine inverse (the one read off the cells with one bit set is wrong at thread" in py.out
    assert "z3 and the enumeration agree), so the inverse is a table" in py.out and "_INVERSE = {" in py.out
    mod = _module(tmp_path, py.out)
    for t in range(128):
        for i in range(12):
            assert mod.col(t, i) == (i >> 2) * 8 + (t % 4 * 2 + (i & 1) + (i >> 2)) % 8
            assert (mod.lane(mod.row(t, i), mod.col(t, i)), mod.element(mod.row(t, i), mod.col(t, i))) == (t, i)
    cpp = run("export", spec, "--fragment", "D.float[N=24]", "--to", "cpp")
    assert cpp.code == 0 and "kInverse[64][24]" in cpp.out and "no GF(2) inverse fits the map" in cpp.out


def test_a_sparse_exports_header_names_only_functions_it_defines(run):
    # the CuTe and Triton exports of a sparse A sent the reader to firstcol_of/lastcol_of, which
    # only the C++ and Python exports define
    spec = os.path.join(SPECS, "m16n8k32.yaml")
    for target, defines in (("cpp", True), ("python", True), ("cute", False), ("triton", False)):
        r = run("export", spec, "--fragment", "A.sp.f16", "--to", target)
        assert r.code == 0, r.err
        named = "firstcol_of" in r.out
        defined = bool(re.search(r"(def|int)\s+firstcol_of\s*\(", r.out))
        assert named == defines and defined == defines, (target, r.out[:400])
        if not defines:
            assert "`checker where` gives the range of A's columns an element lies in" in r.out
