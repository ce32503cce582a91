"""The domain as data (checker/families.py): a spec with a 128-thread warpgroup domain and a
parametric N loads, proves and tables; the document's element-list notation with named tails
(`d0, d1, d2, d3, …, dX, dY, dZ, dW where X = N/2 - 4 …`) is read at every N; and each of these
can fail, with its place in the file."""
from __future__ import annotations

import json
import os

import pytest
from conftest import CASES

from checker.cli import main
from checker.errors import SpecError
from checker.formula.elements import parse_elements
from checker.spec.load import load_spec
from checker.spec.reading import materialize
from checker.source import plain
from checker.errors import SourceSpan

SPEC = os.path.join(CASES, "families", "m64nNk16.yaml")


def _run(*argv):
    import io
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _variant(tmp_path, old: str, new: str) -> str:
    text = open(SPEC, encoding="utf-8").read()
    assert old in text
    path = tmp_path / "m64nNk16.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return str(path)


def test_a_warpgroup_spec_loads_one_instance_per_n():
    spec = load_spec(SPEC)
    assert spec.family == "wgmma" and spec.n is None and spec.parameters == (("N", (8, 16, 24, 32)),)
    frags = spec.fragments()
    assert [f.id for f in frags] == ["D.f32[N=8]", "D.f32[N=16]", "D.f32[N=24]", "D.f32[N=32]"]
    for f, n in zip(frags, (8, 16, 24, 32)):
        assert (f.threads.count, f.rows, f.cols, f.table[0].count, f.letter) == (128, 64, n, n // 2, "d")
        assert materialize(f).elements[0] == [f"d{j}" for j in range(n // 2)]


def test_it_proves_with_both_engines_and_tables_128_threads():
    code, out, err = _run("prove", SPEC, "--format", "json", "--no-cache")
    assert code == 0, err
    results = json.loads(out)["results"]
    assert {(r["fragment"], r["property"]) for r in results} == {
        (f"D.f32[N={n}]", p) for n in (8, 16, 24, 32)
        for p in ("fragment-shape", "defined", "in-range", "injective", "covers")} | {
        (None, "words"), (None, "warpgroup")}  # the wgmma family's theorems (no mma.sync spec beside it here)
    assert all(r["verdict"] == "PROVED" for r in results)
    code, out, _ = _run("table", SPEC, "--format", "json")
    tables = json.loads(out)
    t = next(t for t in tables if t["id"] == "D.f32[N=16]")
    assert (t["rows"], t["cols"], len(t["entries"])) == (64, 16, 128 * 8)
    assert {e[0] for e in t["entries"]} == set(range(128))
    # thread 37 is lane 5 of warp 1: groupID 1, threadID_in_group 1
    assert [37, 6, 16 + 1 + 8, 8 + 2] in t["entries"]


def test_a_layout_that_forgets_the_warp_is_refuted_across_warps(tmp_path):
    path = _variant(tmp_path, "row = 16 * (%tid / 32) + groupID", "row = groupID")
    code, out, _ = _run("prove", path, "--format", "json", "--no-cache")
    assert code == 1
    bad = next(r for r in json.loads(out)["results"] if r["fragment"] == "D.f32[N=8]" and r["property"] == "injective")
    # the smallest clash, found by both engines alike: thread 0 and thread 32 (lane 0 of warp 1)
    assert bad["verdict"] == "REFUTED" and bad["counterexample"]["lanes"] == [0, 32]
    assert bad["location"].endswith(":29:17")  # the row formula that forgot it


def test_the_family_decides_the_shape_and_the_names_of_threads(tmp_path):
    text = open(SPEC, encoding="utf-8").read().replace("family: wgmma\n", "")
    path = tmp_path / "m64nNk16.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, err = _run("prove", str(path), "--no-cache")
    assert code == 3 and f"{path}:6:8: error: shape 'm64nNk16' is not a mma shape" in out + err
    warp = os.path.join(os.path.dirname(CASES), "..", "specs", "m16n8k16.yaml")
    text = open(warp, encoding="utf-8").read().replace("groupID = %laneid >> 2", "groupID = %tid >> 2", 1)
    path = tmp_path / "m16n8k16.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        materialize(load_spec(str(path)).fragment("A.f16"))
    assert "unknown name '%tid': the threads that hold this fragment are named %laneid" in exc.value.message
    assert (exc.value.span.line, exc.value.span.col) == (28, 21)


def test_the_register_count_is_checked_at_every_n(tmp_path):
    path = _variant(tmp_path, "count: N/2", "count: N/4")
    code, out, _ = _run("prove", path, "--format", "json", "--no-cache")
    assert code == 1
    bad = [r for r in json.loads(out)["results"] if r["property"] == "fragment-shape" and r["verdict"] == "REFUTED"]
    assert len(bad) == 4 and "registers of .f32" in bad[0]["message"]


def _elements(text, **params):
    return parse_elements(plain(text, SourceSpan("f.yaml", 3, 5)), params)


WGMMA = "d0, d1, d2, d3, …, dX, dY, dZ, dW where X = N/2 - 4 Y = N/2 - 3 Z = N/2 - 2 W = N/2 - 1 N = 8*i where i = {1, 2, ... , 32}"


@pytest.mark.parametrize("n", [8, 16, 24, 256])
def test_the_documents_named_tail_reads_at_every_n(n):
    assert _elements(WGMMA, N=n) == [f"d{j}" for j in range(n // 2)]


@pytest.mark.parametrize("text,params,words", [
    (WGMMA, {"N": 264}, "N = 264 is not among the values"),
    (WGMMA.replace("W = N/2 - 1 ", ""), {"N": 16}, "'W', which no 'where' clause defines"),
    (WGMMA.replace("X = N/2 - 4", "X = N/2 - q"), {"N": 64}, "must be a number in N"),
    (WGMMA.replace("Y = N/2 - 3", "Y = N/2 - 1"), {"N": 8}, "do not continue d0, d1, d2, d3"),
    (WGMMA.replace("{1, 2, ... , 32}", "{1, 3, ... , 32}"), {"N": 16}, "not a range of consecutive integers"),
])
def test_a_wrong_named_tail_is_a_located_error(text, params, words):
    with pytest.raises(SpecError) as exc:
        _elements(text, **params)
    assert words in exc.value.message and exc.value.span.file == "f.yaml" and exc.value.span.line == 3
