"""`checker export` of the wgmma accumulator at every N: CuTe takes every N (its CLayout_64xN is
((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) for any multiple of 8, N = 24 included), proved equal
to the spec by both engines and, independently, by `checker compare --cute`; Triton's linear
layouts need power-of-two dimensions, so an N that is not one is refused with exit 2, located, with
the instances Triton can take."""
import importlib.util
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import SPECS

from checker.export import derive
from checker.spec.load import load_spec


def _spec(shape):
    return os.path.join(SPECS, shape + ".yaml")


def _ns(shape, fid):
    return [dict(f.params)["N"] for f in load_spec(_spec(shape)).fragments() if f.id.startswith(fid + "[")]


def _cute_of(n):
    # CUTLASS include/cute/atom/mma_traits_sm90_gmma.hpp, CLayout_64xN<N> (Int<N/8> written out; at
    # N = 8 the size-1 mode is dropped, the same map)
    return ("((4,8,4),(2,2)):((128,1,16),(64,8))" if n == 8
            else f"((4,8,4),(2,2,{n // 8})):((128,1,16),(64,8,512))")


def test_radix_and_coalescing():
    assert derive.radix(12) == (2, 2, 3) and derive.radix(124) == (2, 2, 31) and derive.radix(1) == ()
    assert derive.radix(128) == (2,) * 7
    assert derive._modes([(2, 64), (2, 8), (2, 512), (3, 1024)]) == ((2, 64), (2, 8), (6, 512))
    assert derive.cute_eval(((2, 64), (2, 8), (3, 512)), 11) == 64 + 8 + 2 * 512


@pytest.mark.parametrize("n", _ns("m64nNk16", "D.float"))
def test_cute_export_of_the_accumulator_at_every_n_is_cutes_clayout(run, n):
    r = run("export", _spec("m64nNk16"), "--fragment", f"D.float[N={n}]", "--to", "cute")
    assert r.code == 0, r.err
    assert f"// CuTe DSL / pycute: {_cute_of(n)}" in r.out
    assert "z3 proved it equal at all 128 x" in r.out and "enumeration agrees" in r.out


@pytest.mark.parametrize("shape,fid,n", [("m64nNk8", "D.f32", 40), ("m64nNk32", "D.s32.float", 24),
                                         ("m64nNk256", "D.s32", 48), ("m64nNk256", "D.s32", 208)])
def test_cute_export_at_odd_multiples_is_compared_equal_independently(run, shape, fid, n):
    """The exported layout goes back through `checker compare --cute` (the candidate path, not the
    export's), and its modes, evaluated in Python, give every cell of the spec's map."""
    r = run("export", _spec(shape), "--fragment", f"{fid}[N={n}]", "--to", "cute")
    assert r.code == 0, r.err
    layout = r.out.split("// CuTe DSL / pycute: ")[1].strip()
    assert layout == _cute_of(n)
    c = run("compare", _spec(shape), "--fragment", f"{fid}[N={n}]", "--cute", layout)
    assert c.code == 0 and "equal" in c.out, c.out + c.err
    m = derive.build(load_spec(_spec(shape)).fragment(f"{fid}[N={n}]"))
    modes = derive.cute(m)
    for t in range(len(m.lanes)):
        for i in range(m.n):
            assert derive.cute_eval(modes.thread, t) + derive.cute_eval(modes.value, i) == \
                derive.index_of(m, *m.cell(t, i))


def test_a_wrong_odd_mode_is_refuted_by_compare(run):
    """The candidate path sees a misplaced odd mode: stride 256 instead of 512 at N = 24."""
    c = run("compare", _spec("m64nNk16"), "--fragment", "D.float[N=24]", "--cute",
            "((4,8,4),(2,2,3)):((128,1,16),(64,8,256))")
    assert c.code == 1 and "differs" in c.out


@pytest.mark.parametrize("n", [24, 40, 248])
def test_triton_export_at_a_non_power_of_two_n_is_refused_with_the_reason(run, n):
    r = run("export", _spec("m64nNk16"), "--fragment", f"D.float[N={n}]", "--to", "triton")
    assert r.code == 2 and r.out == ""
    assert "Traceback" not in r.err
    assert "specs/m64nNk16.yaml:" in r.err and f"D.float[N={n}]" in r.err
    assert "need power-of-two dimensions" in r.err and f"a 64x{n} matrix with {n // 2} elements" in r.err
    assert "D.float[N=8], D.float[N=16], D.float[N=32], D.float[N=64], D.float[N=128], D.float[N=256]" in r.err
    assert "--to cute, cpp and python take it" in r.err


def test_triton_export_at_a_power_of_two_n_still_writes_bases(run):
    r = run("export", _spec("m64nNk16"), "--fragment", "D.float[N=64]", "--to", "triton")
    assert r.code == 0 and "reg_bases=[[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]]" in r.out
    assert "warp_bases=[[16, 0], [32, 0]]" in r.out


# every N: at the 26 that are not powers of two the map has no Triton bases, but its inverse is still
# GF(2) bases over the bits of (row, col); the export reads them off the cells and proves them
NS = _ns("m64nNk16", "D.float")


def _inverse_proved(text, n):
    return (f"inverse (GF(2) bases of row and col, read off the cells with one bit set): z3 proved it equal at all "
            f"128 x {n // 2} points" in text) if n & (n - 1) else ("inverse (GF(2) bases of row and col): z3 proved" in text)


@pytest.mark.parametrize("n", NS)
def test_python_export_of_the_accumulator_at_every_n_inverts_in_closed_form(run, tmp_path, n):
    r = run("export", _spec("m64nNk16"), "--fragment", f"D.float[N={n}]", "--to", "python")
    assert r.code == 0, r.err
    assert "_INVERSE" not in r.out and _inverse_proved(r.out, n)
    mod = _module(tmp_path, r.out)
    entries = json.loads(run("table", _spec("m64nNk16"), "--fragment", f"D.float[N={n}]", "--format", "json")
                         .out)[0]["entries"]
    assert len(entries) == 128 * n // 2
    for t, i, row, col in entries:
        assert (mod.row(t, i), mod.col(t, i)) == (row, col)
        assert (mod.lane(row, col), mod.element(row, col)) == (t, i)


REQUIRED = bool(os.environ.get("CHECKER_REQUIRE_CUDA"))


def _module(tmp_path, text):
    path = tmp_path / "d.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("d", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # generated from a committed seed spec, in a test
    return mod


def _headers(run, tmp_path):
    """Every N's header, and the namespace of each."""
    out = []
    for n in NS:
        r = run("export", _spec("m64nNk16"), "--fragment", f"D.float[N={n}]", "--to", "cpp")
        assert r.code == 0, r.err
        assert "kInverse" not in r.out and "PTX_FRAGMENT_HD int lane(" in r.out and _inverse_proved(r.out, n)
        (tmp_path / f"d{n}.h").write_text(r.out)
        out.append((n, "ptx_fragments::m64nNk16::" + re.search(r"namespace (D_float_N_\d+) \{", r.out).group(1)))
    return out


@pytest.mark.skipif(not REQUIRED and shutil.which("g++") is None, reason="no C++ compiler")
def test_cpp_export_of_the_accumulator_at_every_n_round_trips_against_the_table(run, tmp_path):
    """Every N's header in one program, run on the host over `checker table`'s entries."""
    headers = _headers(run, tmp_path)
    body = [f'#include "d{n}.h"' for n, _ in headers] + ["#include <cstdio>", "int main() {"]
    for n, q in headers:
        body.append(f'  std::printf("N {n}\\n"); for (int t = 0; t < 128; ++t) for (int i = 0; i < {q}::kElements; ++i) {{'
                    f" const int r = {q}::row(t, i), c = {q}::col(t, i);"
                    f' std::printf("%d %d %d %d %d %d\\n", t, i, r, c, {q}::lane(r, c), {q}::element(r, c)); }}')
    (tmp_path / "main.cpp").write_text("\n".join(body + ["}", ""]))
    subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "main.cpp", "-o", "a.out"],
                   cwd=tmp_path, check=True, capture_output=True, text=True)
    out = subprocess.run([str(tmp_path / "a.out")], check=True, capture_output=True, text=True).stdout
    blocks = out.split("N ")[1:]
    assert [int(b.split("\n", 1)[0]) for b in blocks] == NS
    for n, block in zip(NS, blocks):
        entries = json.loads(run("table", _spec("m64nNk16"), "--fragment", f"D.float[N={n}]", "--format", "json")
                             .out)[0]["entries"]
        got = [tuple(map(int, line.split())) for line in block.splitlines()[1:]]
        assert got == [(t, i, row, col, t, i) for t, i, row, col in entries], f"N={n}"


@pytest.mark.skipif(not REQUIRED and shutil.which("nvcc") is None,
                    reason="no nvcc: the CUDA build of the header is not checked")
def test_cpp_export_of_the_accumulator_at_every_n_is_device_code(run, tmp_path):
    """lane() and element() called from a __global__ function at every N (the table the header had at
    N = 24 was host code: nvcc refuses to call its lane() from a __global__ function)."""
    headers = _headers(run, tmp_path)
    body = [f'#include "d{n}.h"' for n, _ in headers]
    body.append("__global__ void k(int* out) { const int tid = threadIdx.x % 128;")
    for n, q in headers:
        body.append(f"  for (int i = 0; i < {q}::kElements; ++i) {{ const int r = {q}::row(tid, i), c = {q}::col(tid, i);"
                    f" out[tid] += {q}::lane(r, c) * 1000 + {q}::element(r, c); }}")
    (tmp_path / "k.cu").write_text("\n".join(body + ["}", ""]))
    subprocess.run(["nvcc", "-c", "-arch=sm_90a", "-Werror", "all-warnings", "k.cu", "-o", "k.o"],
                   cwd=tmp_path, check=True, capture_output=True, text=True)


def test_a_warpgroup_export_takes_the_thread_of_the_warpgroup_not_laneid(run, tmp_path):
    """The thread argument is `tid`, 0..127, as the spec's formulas name it (%tid; %laneid is tid % 32),
    and every function's doc says so: named `laneid`, it was passed %laneid, and every warp got warp 0's rows."""
    py = run("export", _spec("m64nNk16"), "--fragment", "D.float[N=64]", "--to", "python").out
    assert "def row(tid, i):" in py and "def col(tid, i):" in py and "laneid, i" not in py
    assert '"""The row of element di of warpgroup thread `tid` (0..127, not %laneid)."""' in py
    assert "    laneid = (tid % 32)\n    groupID = (laneid >> 2)\n" in py and "    warpID = (tid // 32)\n" in py
    assert "is the thread's index in the warpgroup,\n# 0..127 (the figures' T0..T127)" in py
    assert "threadIdx.x % 128 in a 1-D block" in py and "It is not %laneid (that is tid % 32)" in py
    assert '"""The thread of the warpgroup (its index tid, 0..127, as row and col take it; not %laneid) that holds' in py
    mod = _module(tmp_path, py)
    for warp in range(4):  # the rows of warp w of the warpgroup are 16w..16w+15
        assert {mod.row(t, i) // 16 for t in range(32 * warp, 32 * warp + 32) for i in range(32)} == {warp}
        assert {mod.lane(16 * warp + r, c) // 32 for r in range(16) for c in range(64)} == {warp}
    cpp = run("export", _spec("m64nNk16"), "--fragment", "D.float[N=24]", "--to", "cpp").out
    assert "PTX_FRAGMENT_HD int row([[maybe_unused]] int tid, [[maybe_unused]] int i) {" in cpp
    assert "  [[maybe_unused]] const int laneid = floor_mod(tid, 32);" in cpp and "int laneid," not in cpp
    assert "// the col of element di of warpgroup thread `tid` (0..127, not %laneid)" in cpp
    assert "// It is not %laneid (that is tid % 32)" in cpp and "0 <= row < 64, 0 <= col < 24." in cpp
    sparse = run("export", _spec("m64nNk16.sp"), "--fragment", "A.sp.tf32", "--to", "cpp").out
    assert "const int firstcol = firstcol_of(tid, i);" in sparse and "int tid, [[maybe_unused]] int i" in sparse
    tri = run("export", _spec("m64nNk16"), "--fragment", "D.float[N=64]", "--to", "triton").out
    assert "in dims register (the element index i), lane and warp" in tri
    assert "lane is %laneid = tid % 32, warp the warp of the warpgroup, tid / 32" in tri


def test_a_warp_export_still_takes_laneid(run):
    """A warp's thread index is %laneid: its exports name it as they always have."""
    py = run("export", _spec("m16n8k16"), "--fragment", "C.float", "--to", "python").out
    assert "def row(laneid, i):" in py and '"""The row of element ci of lane `laneid`."""' in py
    assert "tid" not in py and "warpgroup" not in py and '"""The lane that holds cell (row, col)."""' in py
    cpp = run("export", _spec("m16n8k16"), "--fragment", "C.float", "--to", "cpp").out
    assert "PTX_FRAGMENT_HD int row([[maybe_unused]] int laneid, [[maybe_unused]] int i) {" in cpp
    assert "tid" not in cpp and "warpgroup" not in cpp
    tri = run("export", _spec("m16n8k16"), "--fragment", "C.float", "--to", "triton").out
    assert "in dims register (the element index i) and lane, out dims" in tri and "tid" not in tri


@pytest.mark.parametrize("target,n,types", [
    (target, n, types) for n, types in ((40, ".f32, .f16"), (136, ".f32, .f16"), (48, ".s32, .f32, .f16"))
    for target in ("cute", "triton", "cpp", "python") if target != "triton" or not n & (n - 1)])  # Triton: N a power of two
def test_export_header_names_the_types_this_n_has(run, target, n, types):
    """m64nNk32's Miscellaneous Information cell gives .s32 only at N = 8, 16, 24, 32, 48, 64, ...,
    256: the export's header names the types of the instance, as `checker table` and `checker
    where` do, not every type of the fragment (N = 40 and 136 have no .s32)."""
    r = run("export", _spec("m64nNk32"), "--fragment", f"D.s32.float[N={n}]", "--to", target)
    assert r.code == 0, r.err
    line = next(x for x in r.out.splitlines() if "D.s32.float[N=" in x and "types " in x)
    assert line.endswith(f"types {types}"), line
