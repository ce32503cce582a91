"""A fragment id that names no fragment: the message leads with what was likely meant (a
parametric fragment's instance, the fragment that holds a type, a close spelling) and lists each
fragment once, its parameter values in one run."""
import os

import pytest

from conftest import SPECS


def _spec(name):
    return os.path.join(SPECS, f"{name}.yaml")


@pytest.mark.parametrize("command", [["where", "--row", "1", "--col", "1"], ["export", "--to", "cute"],
                                     ["eval", "--lane", "0", "--i", "0"], ["table"]])
def test_a_parametric_fragment_without_its_value_is_named_once_with_an_instance(run, command):
    r = run(command[0], _spec("m64nNk16"), "--fragment", "D.float", *command[1:])
    assert r.code == 2
    assert "has no fragment 'D.float'. D.float is one fragment per value of N; name one, as in 'D.float[N=128]'" in r.err
    assert "It has A.f16, D.float[N=...] (N = 8, 16, ..., 256)." in r.err
    assert "D.float[N=16]" not in r.err  # the 32 instances are one entry, not 32


def test_an_instance_the_spec_lacks_says_so(run):
    r = run("where", _spec("m64nNk16"), "--fragment", "D.float[N=12]", "--row", "1", "--col", "1")
    assert r.code == 2 and "D.float has no instance at N=12; name one, as in 'D.float[N=128]'" in r.err


def test_a_type_name_is_answered_with_the_fragments_that_hold_it(run):
    r = run("where", _spec("m64nNk16"), "--fragment", "D.f32", "--row", "1", "--col", "1")
    assert r.code == 2 and ".f32 is held by D.float; name a value of N, as in 'D.float[N=128]'." in r.err
    r = run("export", _spec("m16n8k16"), "--fragment", "C.f32", "--to", "cute")
    assert r.code == 2 and ".f32 is held by C.float and C.int." in r.err
    # the suggestion works: the instance it names is one the spec has
    r = run("where", _spec("m64nNk16"), "--fragment", "D.float[N=128]", "--row", "40", "--col", "100")
    assert r.code == 0 and "thread 66 (warp 2, lane 2), element d50" in r.out


def test_an_instance_whose_bracket_is_left_open_is_named_as_typed(run):
    """`D.float[N=64` was answered "did you mean 'D.float[N=128]'?": the round value, not the
    instance typed."""
    r = run("where", _spec("m64nNk16"), "--fragment", "D.float[N=64", "--row", "1", "--col", "1")
    assert r.code == 2 and "The bracket is not closed: did you mean 'D.float[N=64]'?" in r.err, r.err
    assert "N=128" not in r.err
    r = run("where", _spec("m64nNk16"), "--fragment", "D.float[N=12", "--row", "1", "--col", "1")
    assert r.code == 2 and "bracket" not in r.err  # no such instance, closed or not: as before


def test_an_instance_whose_value_is_spelled_otherwise_is_named_as_the_spec_writes_it(run):
    """`D.float[N=0008]` was answered "D.float has no instance at N=8; name one, as in
    'D.float[N=8]'": the message contradicted itself."""
    for typed in ("D.float[N=0008]", "D.float[N=08]"):
        r = run("where", _spec("m64nNk16"), "--fragment", typed, "--row", "1", "--col", "1")
        assert r.code == 2 and "The value is written as a plain number: did you mean 'D.float[N=8]'?" in r.err, r.err
        assert "no instance" not in r.err
    r = run("where", _spec("m64nNk16"), "--fragment", "D.float[N=0012]", "--row", "1", "--col", "1")
    assert r.code == 2 and "no instance at N=12" in r.err and "plain number" not in r.err  # N=12 is no instance

def test_a_misspelling_gets_the_closest_id_and_nothing_else_guesses(run):
    r = run("eval", _spec("m16n8k16"), "--fragment", "A.f61", "--lane", "0", "--i", "0")
    assert r.code == 2 and "Did you mean 'A.f64'?" in r.err
    r = run("eval", _spec("m16n8k16"), "--fragment", "Z.z", "--lane", "0", "--i", "0")
    assert r.code == 2 and r.err.strip().endswith(
        "has no fragment 'Z.z'. It has A.f16, A.f64, B.f16, B.f64, C.float, A.i8, B.i8, C.int, A.sp.f16, A.sp.tf32.")


def test_the_api_takes_a_parametric_fragment_by_its_name_and_value():
    import checker

    spec = checker.load(_spec("m64nNk16"))
    ids = {spec.fragment("D.float", N=64).id, spec.fragment("D.float[N=64]").id, spec.fragment("D.float[N=64]", N=64).id}
    assert ids == {"D.float[N=64]"}
    assert spec.fragment("D.float", N=64).holders(40, 60) == spec.fragment("D.float[N=64]").holders(40, 60) != []
    with pytest.raises(checker.LayoutError, match=r"D.float is one fragment per value of N; name one, as in "
                                                  r"fragment\('D.float', N=128\)"):
        spec.fragment("D.float")
    with pytest.raises(checker.LayoutError, match=r"\.f32 is held by D.float; name a value of N, as in "
                                                  r"fragment\('D.float', N=64\)"):
        spec.fragment("D.f32", N=64)
    with pytest.raises(checker.LayoutError, match=r"D.float has no instance at N=12"):
        spec.fragment("D.float", N=12)
    with pytest.raises(checker.LayoutError, match=r"name two instances"):
        spec.fragment("D.float[N=8]", N=16)


def test_a_hostile_id_is_taken_apart_in_bounded_time_and_echoed_cut_short(run):
    # a pattern over the whole id backtracked quadratically here: 80 KB of brackets took 12 s
    fid = "[N=1]" * 200_000 + "x"
    r = run("where", _spec("m64nNk16"), "--fragment", fid, "--row", "1", "--col", "1")
    assert r.code == 2 and "has no fragment '[N=1][N=1]" in r.err and len(r.err) < 400
    r = run("where", _spec("m64nNk16"), "--fragment", "D.float" + "[N=64]" * 50_000, "--row", "1", "--col", "1")
    assert r.code == 2 and len(r.err) < 400
