"""The wgmma register fragments (specs/m64nNk*.yaml): each figure's reading equals every published
encoding it names, at every N, by a small evaluation of each here -- CuTe's TV layouts
(checker/references/data/cute-gmma.yaml) and Mosaic GPU's tiled layouts -- which can fail; the
readings' provenance is pinned; the family theorems hold and can fail; table and where speak of
128 threads."""
from __future__ import annotations

import json
import os
import re

import pytest
import yaml
from conftest import ROOT, SPECS

from checker.formula.evaluate import cells
from checker.spec.load import load_spec
from checker.spec.reading import materialize

WGMMA = {k: os.path.join(SPECS, f"m64nNk{k}.yaml") for k in (8, 16, 32, 256)}
CUTE = os.path.join(ROOT, "checker", "references", "data", "cute-gmma.yaml")
ALL = list(range(8, 257, 8))
S32 = [8, 16, 24, 32] + list(range(48, 257, 16))


def _run(*argv):
    import io

    from checker.cli import main
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _spec(k):
    return load_spec(WGMMA[k])


def _reading_map(fragment) -> dict:
    """(thread, i) -> (row, col) of a spec fragment's reading, over all its threads."""
    r = materialize(fragment)
    points = [(t, i) for t in range(fragment.threads.count) for i in range(r.n)]
    rows, cols = cells(r.layout, points)
    return dict(zip(points, zip(rows, cols)))


# --- CuTe: a TV layout evaluated here -------------------------------------------------------------

def _nested(text: str):
    """`Shape <Shape <  _4,_8, _4>,Shape < _2,_2,Int<2>>>` -> ((4, 8, 4), (2, 2, 2))."""
    text = re.sub(r"Int<(\d+)>", r"\1", text).replace("_", "")
    text = re.sub(r"(Shape|Stride)\s*<", "(", text).replace(">", ")")
    return _tuple(text.replace(" ", ""))


def _tuple(text: str):
    stack = [[]]
    for tok in re.findall(r"\d+|[(),]", text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = tuple(stack.pop())
            stack[-1].append(done)
        elif tok != ",":
            stack[-1].append(int(tok))
    return stack[0][0]


def cute_layout(text: str):
    """CuTe's `Layout<Shape<...>, Stride<...>>` as (shape, stride), each ((thread modes), (value modes))."""
    body = text.strip()
    assert body.startswith("Layout<") and body.endswith(">")
    inner = body[len("Layout<"):-1]
    depth, cut = 0, None
    for k, ch in enumerate(inner):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            cut = k
            break
    return _nested(inner[:cut]), _nested(inner[cut + 1:])


def _flat(x):
    return [y for z in x for y in _flat(z)] if isinstance(x, tuple) else [x]


def cute_index(shape, stride, t: int, v: int) -> int:
    """The index CuTe's layout gives (thread t, value v): each mode's coordinate colexicographic."""
    out = 0
    for mode, coord in ((0, t), (1, v)):
        for size, step in zip(_flat(shape[mode]), _flat(stride[mode])):
            out += (coord % size) * step
            coord //= size
    return out


def cute_map(entry) -> dict:
    shape, stride = cute_layout(entry["encoding"]["layout"])
    rows, _ = entry["encoding"]["tile"]
    threads, values = (len(range(_size(m))) for m in shape)
    return {(t, v): divmod(cute_index(shape, stride, t, v), rows)[::-1] for t in range(threads) for v in range(values)}


def _size(mode) -> int:
    out = 1
    for x in _flat(mode):
        out *= x
    return out


def _entries():
    data = yaml.safe_load(open(CUTE, encoding="utf-8"))
    return data, data["entries"]


def _fragment(entry):
    spec = load_spec(os.path.join(SPECS, entry["fragment"]["spec"] + ".yaml"))
    params = entry["fragment"].get("params", {})
    fid = entry["fragment"]["id"] + "".join(f"[{k}={v}]" for k, v in params.items())
    return spec.fragment(fid)


def test_every_cute_gmma_entry_names_a_fragment_of_the_specs():
    data, entries = _entries()
    assert data["library"] == "CuTe" and re.fullmatch(r"[0-9a-f]{40}", data["commit"])
    named = [(e["fragment"]["spec"], _fragment(e).id) for e in entries]
    # the three A layouts; CLayout_64xN at every N of the D of k8, k16 and k32, whose readings cite it
    assert len(set(named)) == len(entries) == 3 + 3 * 32
    assert len({e["name"] for e in entries}) == len(entries)  # one entry per name
    for k in (8, 16, 32):
        a = next(f for f in _spec(k).fragments() if f.operand == "A")
        assert (f"m64nNk{k}", a.id) in named
    assert not any(s.library == "CuTe" for s in _spec(256).fragment("A.b1").figure_reading.sources)


@pytest.mark.parametrize("name", sorted({e["name"].split("<")[0] for e in _entries()[1]}))
def test_the_readings_equal_cute(name):
    """The three register-source A layouts, and CLayout_64xN at every N of the D of k8, k16 and k32."""
    for e in (e for e in _entries()[1] if e["name"].split("<")[0] == name):
        f = _fragment(e)
        assert cute_map(e) == _reading_map(f), (e["name"], f.id)


@pytest.mark.parametrize("k", [8, 32, 256])
def test_every_d_equals_cute_clayout_at_every_n(k):
    """The D of the other K is the same template, CLayout_64xN<N> (line 434), which their readings
    cite: evaluated here at each of their N. m64nNk256's D is that template too, its reading's
    extrapolation: CuTe has no .b1 GMMA, so it is not cited there."""
    template = next(e for e in _entries()[1] if e["name"] == "CLayout_64xN<8>")
    for f in _spec(k).fragments():
        if f.operand == "D":
            n = dict(f.params)["N"]
            layout = template["encoding"]["layout"].replace("Int<1>", f"Int<{n // 8}>")
            entry = dict(template, encoding=dict(template["encoding"], layout=layout, tile=[64, n]))
            assert cute_map(entry) == _reading_map(f), f.id
            cited = any(s.library == "CuTe" and s.line == template["line"] for s in f.figure_reading.sources)
            assert cited == (k != 256), f.id


def test_the_cute_evaluation_can_fail():
    """A stride changed by one place, or the wrong alias for an N, is found, at the first thread
    it moves."""
    data, entries = _entries()
    e = next(x for x in entries if x["name"] == "CLayout_64xN<64>" and x["fragment"]["spec"] == "m64nNk16")
    ours = _reading_map(_fragment(e))
    wrong = dict(e, encoding=dict(e["encoding"], layout=e["encoding"]["layout"].replace("_64,_8,", "_8,_64,")))
    bad = sorted(p for p, cell in cute_map(wrong).items() if ours[p] != cell)
    assert bad[0] == (0, 1)  # d1 of thread 0: column 1 in the figure, row 8 with the strides swapped
    short = dict(e, encoding=dict(e["encoding"], layout=e["encoding"]["layout"].replace("Int<8>", "Int<4>")))
    assert cute_map(short) != ours


# --- Mosaic GPU: a tiled layout evaluated here ------------------------------------------------------

def tiled(shape, tiling, warp_dim, lane_dims, vector_dim):
    """Mosaic GPU's TiledLayout (jax/experimental/mosaic/gpu/fragmented_array.py) at every element of
    an array of `shape`: (thread, register element) -> (row, col). Each tile splits the trailing
    dimensions; the warp and lane dimensions pick the thread (lanes row-major in the order given),
    the vector dimension the place in a register, and the remaining dimensions, row-major, the
    register, as `registers.flat` lists them."""
    out = {}
    rows, cols = shape
    for r in range(rows):
        for c in range(cols):
            idx, sizes = [r, c], list(shape)
            for tile in tiling:
                k = len(tile)
                head_i, tail_i = idx[:-k], idx[-k:]
                head_s, tail_s = sizes[:-k], sizes[-k:]
                idx = head_i + [i // t for i, t in zip(tail_i, tile)] + [i % t for i, t in zip(tail_i, tile)]
                sizes = head_s + [s // t for s, t in zip(tail_s, tile)] + list(tile)
            n = len(idx)
            warp = idx[warp_dim % n]
            lane = 0
            for d in lane_dims:
                lane = lane * sizes[d % n] + idx[d % n]
            special = {warp_dim % n, vector_dim % n, *(d % n for d in lane_dims)}
            reg = 0
            for d in range(n):
                if d not in special:
                    reg = reg * sizes[d] + idx[d]
            element = reg * sizes[vector_dim % n] + idx[vector_dim % n]
            out[(32 * warp + lane, element)] = (r, c)
    return out


WGMMA_LAYOUT = (((64, 8), (16, 8), (8, 8), (2,)), -7, (-3, -2), -1)  # fragmented_array.py:836
WGMMA_LAYOUT_ACC_32BIT = (((64, 8), (16, 8), (8, 8), (2,), (1,)), -8, (-4, -3), -1)  # :850
WGMMA_LAYOUT_8BIT = (((64, 16), (16, 16), (8, 16), (4,)), -7, (-3, -2), -1)  # :869


@pytest.mark.parametrize("k", [8, 16, 32, 256])
def test_the_d_readings_equal_mosaic_gpu_at_every_n(k):
    layout = WGMMA_LAYOUT if k == 16 else WGMMA_LAYOUT_ACC_32BIT  # .f16 and 32-bit accumulators
    for f in _spec(k).fragments():
        if f.operand == "D":
            assert tiled((64, f.cols), *layout) == {p: cell for p, cell in _reading_map(f).items()}, f.id
    if k == 16:  # both hold: one figure for .f16 and .f32
        f = _spec(16).fragment("D.float[N=64]")
        assert tiled((64, 64), *WGMMA_LAYOUT_ACC_32BIT) == _reading_map(f)


@pytest.mark.parametrize("k,fid,layout", [(16, "A.f16", WGMMA_LAYOUT), (32, "A.i8", WGMMA_LAYOUT_8BIT)])
def test_the_a_readings_equal_mosaic_gpu(k, fid, layout):
    f = _spec(k).fragment(fid)
    assert tiled((64, k), *layout) == _reading_map(f)


def test_the_mosaic_gpu_evaluation_can_fail():
    """Mosaic GPU's 8-bit layout for upcasting (WGMMA_LAYOUT_UPCAST_2X, line 888: lanes swapped
    in pairs) is not the figure's A, and the 16-bit layout is not the 8-bit A."""
    f = _spec(32).fragment("A.i8")
    upcast = (((64, 16), (16, 16), (8, 16), (8,), (4,)), -8, (-4, -2, -3), -1)
    assert tiled((64, 32), *upcast) != _reading_map(f)
    assert tiled((64, 32), *WGMMA_LAYOUT) != _reading_map(f)


# --- provenance ---------------------------------------------------------------------------------

def test_every_fragment_is_a_reading_with_pinned_sources():
    data, _ = _entries()
    for k in (8, 16, 32, 256):
        for f in _spec(k).fragments():
            fr = f.figure_reading
            assert fr is not None and fr.figure in f.figures and f.formula is not None
            for s in fr.sources:
                assert re.fullmatch(r"[0-9a-f]{40}", s.commit) and s.line > 0 and s.name
                if s.reference == "cute-gmma":
                    assert (s.repo, s.commit, s.path) == (data["repo"], data["commit"], data["path"])
            libraries = {s.library for s in fr.sources}
            if k == 256:
                # no library issues a .b1 wgmma: neither its A nor its D has a source
                assert fr.standing == "extrapolated" and not fr.sources, f.id
            else:
                assert fr.standing == "agreed" and "CuTe" in libraries
                assert ("JAX" in libraries) == (f.id != "A.tf32")  # Mosaic GPU takes no 32-bit A in registers


def test_a_reading_is_checked_when_loaded(tmp_path):
    text = open(WGMMA[8], encoding="utf-8").read()
    path = tmp_path / "m64nNk8.yaml"
    path.write_text(text.replace("      figure: Figure 150", "      figure: Figure 151", 1), encoding="utf-8")
    code, out, err = _run("validate", str(path))
    assert code == 3 and "Figure 151 is not one of the fragment's figures (Figure 150)" in out + err
    start = text.index("    reading:\n      figure: Figure 150")
    end = text.index("      note:", start)
    agreed = text[:start] + "    reading:\n      figure: Figure 150\n      standing: agreed\n      sources: []\n" + text[end:]
    path.write_text(agreed, encoding="utf-8")
    code, out, err = _run("validate", str(path))
    assert code == 3 and "an agreed reading names the sources that agree on it" in out + err
    path.write_text(text.replace("    reading:\n      figure: Figure 150", "    readings:\n      figure: Figure 150"))
    code, out, err = _run("validate", str(path))
    assert code == 3 and "m64nNk8.yaml:" in out + err


# --- the tables: N per type -----------------------------------------------------------------------

def test_the_values_of_n_per_type_are_the_tables():
    """k32's .s32 exists at N = 8, 16, 24, 32, 48, ..., 256 (its Miscellaneous cell), .f32 and
    .f16 at every multiple of 8; k256 (.s32 only) has instances at its values only (9.7.15.2)."""
    k32 = _spec(32)
    assert k32.parameters == (("N", tuple(ALL)),)
    d = {f.id: f for f in k32.fragments()}
    assert d["D.s32.float[N=40]"].types_here() == ("f32", "f16")
    assert d["D.s32.float[N=48]"].types_here() == ("s32", "f32", "f16")
    assert [row.values for row in d["D.s32.float[N=8]"].table] == [tuple(S32), tuple(ALL), tuple(ALL)]
    k256 = _spec(256)
    assert k256.parameters == (("N", tuple(S32)),)
    assert [f.id for f in k256.fragments()] == ["A.b1"] + [f"D.s32[N={n}]" for n in S32]
    assert [(f.id, f.rows, f.cols, f.table[0].count) for f in _spec(16).fragments()][:2] == [
        ("A.f16", 64, 16, 4), ("D.float[N=8]", 64, 8, 2)]


def test_a_value_of_n_no_row_gives_is_a_located_error(tmp_path):
    text = open(WGMMA[256], encoding="utf-8").read()
    path = tmp_path / "m64nNk256.yaml"
    path.write_text(text.replace("  - {from: 48, to: 256, step: 16}", "  - {from: 40, to: 256, step: 8}"))
    code, out, err = _run("validate", str(path))
    assert code == 3 and "N = 40 is a value of the shape's parameter, but no row of D.s32's table gives it" in out + err


# --- theorems -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def proved():
    code, out, err = _run("prove", *WGMMA.values(), "--format", "json", "--no-cache")
    assert code == 0, err
    return json.loads(out)["results"]


def test_every_instance_proves_and_the_family_theorems_hold(proved):
    frag = [r for r in proved if r["subject"] is None and r["spec"] in WGMMA.values() and not r["erratum"]]
    assert len({(r["spec"], r["fragment"]) for r in frag}) == 118 and all(r["verdict"] == "PROVED" for r in frag)
    theorems = {(os.path.basename(r["spec"]), r["subject"].split(":")[0], r["verdict"], r["declared"])
                for r in proved if r["property"] == "warpgroup" and r["spec"] in WGMMA.values()}  # the scope adds the .sp specs
    want = {(f"m64nNk{k}.yaml", t, "PROVED", False) for k in (8, 16, 32, 256) for t in ("warp-rows", "mma-tiles", "a-stacked")}
    want |= {(f"m64nNk{k}.yaml", "d-to-a-reuse", "PROVED", False) for k in (8, 16, 32)}
    want |= {("m64nNk8.yaml", "d-to-a-reuse", "REFUTED", True)}  # into the .tf32 A: refuted, as declared
    assert theorems == want
    reuse = next(r for r in proved if r["subject"] == "d-to-a-reuse: D.float[N=256] to m64nNk16/A.f16")
    assert "a_i = d(8j + i)" in reuse["message"] and "a0..a3 only" in reuse["message"]
    tf32 = next(r for r in proved if r["subject"] == "d-to-a-reuse: D.f32[N=256] to m64nNk8/A.tf32")
    # the smallest counterexample: thread 0's a1 is A[8][0] (groupID + 8), its d1 is D[0][1]
    assert tf32["counterexample"]["point"] == {"lane": 0, "j": 0, "i": 1}
    assert tf32["counterexample"]["left"]["cell"] == [8, 0] and tf32["counterexample"]["right"]["cell"] == [0, 1]


def test_a_figure_read_wrong_fails_the_theorems_that_tie_it_to_mma_sync(tmp_path):
    """D read with the two 8-column halves of each 16 swapped in odd warps (a plausible misreading
    of a figure) is a bijection wherever N is a multiple of 16, so those instances prove; it
    leaves the matrix where N is an odd multiple of 8 (each of those instances asked on its own
    finds its witness), and mma-tiles and d-to-a-reuse catch it at every N."""
    for name in ("m16n8k16.yaml", "m64nNk16.yaml"):
        text = open(os.path.join(SPECS, name), encoding="utf-8").read()
        if name == "m64nNk16.yaml":
            old = "col = ((i >> 2) * 8) + (threadID_in_group * 2) + (i & 0x1)"
            assert old in text
            text = text.replace(old, "col = (((i >> 2) ^ (%tid / 32 % 2)) * 8) + (threadID_in_group * 2) + (i & 0x1)")
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, _ = _run("prove", str(tmp_path / "m64nNk16.yaml"), "--format", "json", "--no-cache")
    results = [r for r in json.loads(out)["results"] if not r["erratum"]]
    assert code == 1
    instances = {(r["fragment"], r["property"]) for r in results if r["subject"] is None and r["verdict"] != "PROVED"}
    assert instances == {(f"D.float[N={n}]", p) for n in range(8, 257, 16) for p in ("in-range", "covers")}
    bad = next(r for r in results if r["fragment"] == "D.float[N=8]" and r["property"] == "in-range")
    assert bad["counterexample"]["lanes"] == [32]  # warp 1's first thread: d0 at column 8 of an 8-column D
    theorems = {r["subject"].split(":")[0] for r in results if r["subject"] and r["verdict"] != "PROVED"}
    assert theorems == {"mma-tiles", "d-to-a-reuse"}
    tiles = next(r for r in results if (r["subject"] or "").startswith("mma-tiles"))
    assert tiles["counterexample"]["point"] == {"lane": 32, "i": 0}


# --- table and where --------------------------------------------------------------------------

def test_table_gives_one_object_per_n_with_128_threads():
    code, out, _ = _run("table", WGMMA[32], "--format", "json")
    assert code == 0
    tables = {t["id"]: t for t in json.loads(out)}
    assert len(tables) == 1 + 32
    d = tables["D.s32.float[N=40]"]
    assert (d["rows"], d["cols"], len(d["entries"])) == (64, 40, 128 * 20)
    assert d["types"] == ["f32", "f16"] and tables["D.s32.float[N=48]"]["types"] == ["s32", "f32", "f16"]
    assert {e[0] for e in d["entries"]} == set(range(128))
    # thread 70 = lane 6 of warp 2: groupID 1, threadID_in_group 2; d5 is row 16*2 + 1 + 0, col 8 + 4 + 1
    assert [70, 5, 33, 13] in d["entries"]


def test_where_names_warp_lane_register_and_bits():
    code, out, err = _run("where", WGMMA[16], "--fragment", "D.float[N=64]", "--row", "41", "--col", "18",
                          "--format", "json")
    assert code == 0, err
    found = json.loads(out)
    holder = found["holders"][0]
    # row 41 = warp 2 (rows 32..47), groupID 1 with +8; col 18 = block 2, threadID_in_group 1, even
    assert (holder["thread"], holder["warp"], holder["lane"], holder["i"]) == (69, 2, 5, 10)
    regs = {t: r for r in holder["registers"] for t in r["types"]}
    assert regs["f32"]["register"] == 10 and regs["f16"]["register"] == 5 and regs["f16"]["bits"] == [0, 15]
