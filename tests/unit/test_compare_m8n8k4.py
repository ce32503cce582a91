"""checker compare and checker export on mma.m8n8k4 .f16, whose fragments four MMA computations
hold: export numbers a layout's threads by their position among computation 1's lanes (CuTe's
SM70 quad-pair numbering), compare by the lane unless --computation says otherwise. Whatever the
kind of input, compare names the numbering that proves a differing layout equal, and the export's
header names its computation and how to read it back."""
import json
import os

import pytest

from checker.spec.load import load_spec
from conftest import SPECS

M884 = os.path.join(SPECS, "m8n8k4.yaml")
K16 = os.path.join(SPECS, "m16n8k16.yaml")


def frag(shape, fid):
    return load_spec(os.path.join(SPECS, shape + ".yaml")).fragment(fid)


def _quad_pair_inputs(tmp_path, run) -> dict:
    """m8n8k4 C.f32 as export writes it (computation 1's lanes, numbered 0..7), as every kind."""
    exported = tmp_path / "c32.py"
    r = run("export", M884, "--fragment", "C.f32", "--to", "triton", "--output", str(exported))
    assert r.code == 0, r.err
    cute_text = run("export", M884, "--fragment", "C.f32", "--to", "cute").out
    m = frag("m8n8k4", "C.f32")
    from checker.export import derive

    built = derive.build(m, 1)
    csv = tmp_path / "c32.csv"
    csv.write_text("".join(f"{t},{i},{built.rows[t][i]},{built.cols[t][i]}\n" for t in range(8) for i in range(8)))
    mod = tmp_path / "c32mod.py"
    mod.write_text(f"CELLS = {[[built.cell(t, i) for i in range(8)] for t in range(8)]!r}\n"
                   "def cell(t, i):\n    return CELLS[t][i] if t < 8 else None\n")
    return {"--triton": str(exported), "--cute": cute_text.rsplit("pycute: ", 1)[1].strip(),
            "--table": str(csv), "--python": f"{mod}:cell"}


def test_every_kind_read_back_from_an_export_names_the_computation_that_proves_it(run, tmp_path):
    """The QA round trip: export C.f32, compare it without --computation. Each kind of input says
    the same: it differs as the lane numbers threads, and is equal with --computation all."""
    for option, value in _quad_pair_inputs(tmp_path, run).items():
        r = run("compare", M884, "--fragment", "C.f32", option, value)
        assert r.code == 1 and "differs from the spec at 224 of 256 points" in r.out, (option, r.out)
        assert "equal with --computation all (so with each of 1..4)" in r.out, option
        js = json.loads(run("compare", M884, "--fragment", "C.f32", option, value, "--format", "json").out)
        assert js["equal_with"] == ["all"], option
        for computation in ("1", "all"):
            ok = run("compare", M884, "--fragment", "C.f32", option, value, "--computation", computation)
            assert ok.code == 0 and "equal with" not in ok.out, (option, computation)


def test_a_lane_numbered_layout_compared_per_computation_names_no_computation(run, tmp_path):
    import checker

    csv = tmp_path / "warp.csv"
    csv.write_text("".join(f"{t},{i},{r},{c}\n" for t, i, r, c in checker.load(M884).fragment("C.f32").entries()))
    r = run("compare", M884, "--fragment", "C.f32", "--table", str(csv), "--computation", "1")
    assert r.code == 1 and "equal without --computation: the thread index is then the lane" in r.out
    js = json.loads(run("compare", M884, "--fragment", "C.f32", "--table", str(csv), "--computation", "1",
                        "--format", "json").out)
    assert js["equal_with"] == [None]
    assert run("compare", M884, "--fragment", "C.f32", "--table", str(csv)).code == 0


def test_a_layout_no_numbering_proves_says_so(run):
    r = run("compare", M884, "--fragment", "C.f32", "--cute", "(8,8):(1,8)")
    assert r.code == 1 and "equal with" not in r.out
    assert ("no other thread numbering makes it equal either (--computation 1, --computation 2, --computation 3, "
            "--computation 4, --computation all)") in r.out
    assert json.loads(run("compare", M884, "--fragment", "C.f32", "--cute", "(8,8):(1,8)",
                          "--format", "json").out)["equal_with"] == []
    # a fragment held by the whole warp has no other numbering: nothing is said
    assert "numbering" not in run("compare", K16, "--fragment", "A.f16", "--cute", "(32,8):(1,32)").out


def test_one_computation_is_named_with_its_lanes():
    """No m8n8k4 fragment numbers one computation's quad-pair differently from another's, so a
    candidate equal under one is equal under all; the line for one is still checked."""
    from checker.compare import hint

    lines = hint(frag("m8n8k4", "C.f32"), None, [2], False)
    assert lines == ["equal with --computation 2: MMA computation 2's lanes (4, 5, 6, 7, 20, 21, 22, 23), the "
                     "thread index being the position among them"]
    assert "what `checker export` writes" in hint(frag("m8n8k4", "C.f32"), None, [1], False)[0]


@pytest.mark.parametrize("to", ["cute", "triton", "cpp", "python"])
def test_the_export_header_names_its_computation_and_how_to_read_it_back(run, to):
    default = run("export", M884, "--fragment", "C.f32", "--to", to).out
    assert ("(MMA computation 1 of 4: lanes 0, 1, 2, 3, 16, 17, 18, 19; the default, no --computation given; "
            "--computation 1..4 picks one)") in default.splitlines()[0 if to != "python" else 1]
    chosen = run("export", M884, "--fragment", "C.f32", "--to", to, "--computation", "2").out
    assert "(MMA computation 2 of 4: lanes 4, 5, 6, 7, 20, 21, 22, 23; --computation 2)" in chosen
    if to in ("cute", "triton"):  # their thread index is the position: compare must be told
        assert "`checker compare` reads it back with --computation 1 (without it" in default
        assert "reads it back with --computation 2" in chosen
    assert "MMA computation" not in run("export", K16, "--fragment", "A.f16", "--to", to).out
