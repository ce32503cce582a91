"""Three answers a first-time user meets while finding the fragment to ask about:

- `Spec.errata` (docs/api.md: "every erratum the spec declares") listed a wgmma spec's errata once
  per value of N: 64 records for the 2 errata of m64nNk16, 224 for the catalogue's 38;
- every `--fragment ID` help says "`checker validate` lists them", and `checker validate` printed
  only how many there are;
- `--as-printed K` on a fragment without errata said "has 0 errata; --as-printed takes 1..0".
"""
import glob
import json
import os

from conftest import SPECS

import checker

M16 = os.path.join(SPECS, "m16n8k16.yaml")
WG16 = os.path.join(SPECS, "m64nNk16.yaml")


def _spec_files():
    return [p for p in sorted(glob.glob(os.path.join(SPECS, "*.yaml")))
            if os.path.basename(p) not in ("relations.yaml", "untranscribed.yaml")]


def test_a_parametric_specs_errata_are_listed_once_each(run):
    errata = checker.load(WG16).errata  # one, on D, which has 32 instances (the .f32 row's list is a merged cell)
    assert len(errata) == 1, [(e.subject, e.where) for e in errata]
    # as `checker errata` names them: the first instance the erratum is confirmed at
    assert {e.subject for e in errata} == {"D.float[N=8]"}
    listed = json.loads(run("errata", SPECS, "--format", "json").out)
    total = sum(len(checker.load(p).errata) for p in _spec_files())
    assert total == len(listed["errata"]) == 31


def test_validate_lists_the_fragment_ids_the_help_of_fragment_points_at(run):
    r = run("where", "--help")
    assert "`checker validate` lists them" in r.out
    r = run("validate", M16)
    assert r.code == 0
    assert r.out == ("specs/m16n8k16.yaml: ok (11 fragments, 1 given only as figures): A.f16, A.f64, B.f16, B.f64, "
                     "C.float, A.i8, B.i8, C.int, A.sp.f16, A.sp.tf32; figures only: B.sp.tf32\n").replace(
                         "specs/m16n8k16.yaml", M16)
    r = run("validate", WG16)
    assert r.out == f"{WG16}: ok (33 fragments): A.f16, D.float[N=...] (N = 8, 16, ..., 256)\n"
    report = json.loads(run("validate", M16, WG16, "--format", "json").out)
    assert report[0]["ids"] == list(checker.load(M16).ids) and report[0]["figures_only_ids"] == ["B.sp.tf32"]
    assert len(report[1]["ids"]) == 33 and report[1]["ids"][1] == "D.float[N=8]"


def test_as_printed_on_a_fragment_without_errata_says_so(run):
    r = run("eval", M16, "--fragment", "A.f16", "--lane", "0", "--i", "1", "--as-printed", "1")
    assert r.code == 2
    assert "1..0" not in r.err and "0 errata" not in r.err
    assert "A.f16 has no erratum: its printed text is the reading; --as-printed asks about a fragment with one" in r.err
    r = run("where", os.path.join(SPECS, "m16n8k256.yaml"), "--fragment", "A.b1", "--row", "0", "--col", "0",
            "--as-printed", "2")
    assert r.code == 2 and "A.b1 has 1 erratum; --as-printed takes 1" in r.err


def test_a_spec_path_without_its_yaml_or_misspelt_is_answered_with_the_file(run, monkeypatch):
    monkeypatch.chdir(os.path.dirname(SPECS))
    for given, meant in (("specs/m16n8k16", "specs/m16n8k16.yaml"), ("m16n8k16", "specs/m16n8k16.yaml"),
                         ("specs/m16n8k1.yaml", "specs/m16n8k16.yaml"), ("m16n8k16.yaml", "specs/m16n8k16.yaml")):
        r = run("where", given, "--fragment", "A.f16", "--row", "9", "--col", "3")
        assert r.code == 2 and f"no such file or folder: {given}; did you mean {meant}?" in r.err, r.err
    r = run("where", "specs/zzz.yaml", "--fragment", "A.f16", "--row", "9", "--col", "3")
    assert r.code == 2 and r.err.rstrip().endswith("no such file or folder: specs/zzz.yaml"), r.err


def test_an_option_for_n_is_answered_with_the_id_that_names_it(run):
    for argv in (("export", WG16, "--fragment", "D.float", "--to", "cute", "--N", "64"),
                 ("where", WG16, "--fragment", "D.float", "--n=64", "--row", "0", "--col", "0")):
        r = run(*argv)
        assert r.code == 2 and "a value of N is part of the fragment's id, as in --fragment 'D.float[N=64]'" in r.err
    r = run("prove", SPECS, "--N", "64")  # no --fragment there: the usual answer
    assert r.code == 2 and "unknown option --N (checker prove --help lists the options)" in r.err
