"""What `checker validate` refuses, it refuses located, and so does every command that loads the
spec: the meaning checks that sit between the JSON Schema and a proof."""
import os

import pytest

from conftest import CASES, ROOT


def _case(name: str) -> str:
    folder = os.path.join(CASES, "bad", name)
    return os.path.join(folder, next(n for n in sorted(os.listdir(folder)) if n.endswith(".yaml")))


@pytest.mark.parametrize("name,element", [("formula-unknown-element", "c5"),
                                          ("formula-huge-element", "c99999999999999999999")])
def test_validate_refuses_an_element_the_fragment_does_not_have(run, name, element):
    """`for c5` in a fragment of c0, c1: the piece would apply nowhere and the layout prove
    without it; validate names the element, at its own column, with the fragment's."""
    path = _case(name)
    r = run("validate", path)
    assert r.code == 3, r.out + r.err
    assert r.err.startswith(f"{path}:24:31: error: {element} is not an element of this fragment: "
                            "expected one of c0..c1 (the fragment's elements)"), r.err


RELATION = """schema: ptx-fragment-checker/relations/1
relations:
  - id: a
    statement: s
    rests_on: ["x"]
    expect: holds
    for: {j: [0, 1], i: [0, 3]}
    left:  {fragment: m16n8k16/A.f16, element: "4 * j + i"}
    right: {fragment: m16n8k16/C.float, element: "i", col: "col / j"}
"""


def test_a_relation_whose_divisor_can_be_zero_is_refused_where_it_is_written(run, tmp_path):
    """`col / j` with j over 0..1: refused when the file is loaded, at the divisor, as a formula's
    is; the engines never meet the division (it was a ZeroDivisionError in a worker, taking the
    spec beside it down with it)."""
    import shutil

    shutil.copy(os.path.join(ROOT, "specs", "m16n8k16.yaml"), tmp_path)
    rel = tmp_path / "relations.yaml"
    rel.write_text(RELATION)
    r = run("validate", str(rel))
    assert r.code == 3 and r.err == f"{rel}:9:67: error: the divisor can be zero\n", r.out + r.err
    for target in (rel, tmp_path / "m16n8k16.yaml"):
        r = run("prove", "--jobs", "1", str(target))
        assert r.code == 3 and f"{rel}:9:67: error: the divisor can be zero" in r.out + r.err, r.out + r.err
        assert "ZeroDivisionError" not in r.out + r.err


def test_a_composition_whose_divisor_can_be_zero_is_a_located_result(run, tmp_path):
    """The same of an ldmatrix spec's composition (`row / i`, i over 0..7): a result located at
    the divisor, where the engines met the division by zero."""
    import shutil

    for name in ("m16n8k16.yaml", "ldmatrix.m8n8.yaml"):
        shutil.copy(os.path.join(ROOT, "specs", name), tmp_path)
    spec = tmp_path / "ldmatrix.m8n8.yaml"
    text = spec.read_text()
    assert text.count('col: "col + 8 * (row / 16)"') >= 1
    spec.write_text(text.replace('col: "col + 8 * (row / 16)"', 'col: "col + 8 * (row / i)"', 1))
    line = next(k for k, ln in enumerate(spec.read_text().splitlines(), 1) if "(row / i)" in ln)
    r = run("prove", "--jobs", "1", str(spec))
    assert r.code == 3, r.out + r.err
    located = [ln for ln in (r.out + r.err).splitlines() if ln.startswith(f"{spec}:{line}:28: error:")]
    assert located and "the divisor can be zero" in located[0], r.out + r.err
    assert "ZeroDivisionError" not in r.out + r.err


COMMANDS = [["where", "--fragment", "A.b1", "--row", "3", "--col", "5"],
            ["eval", "--fragment", "A.b1", "--lane", "0", "--i", "0"],
            ["export", "--fragment", "B.b1", "--to", "cute"],
            ["table", "--fragment", "A.b1"], ["table"], ["simulate"],
            ["compare", "--fragment", "A.b1", "--cute", "((4,8),(2,2,2)):((32,1),(16,8,128))"],
            ["probe", "--compile-only"], ["probe", "--emit-ptx", "{tmp}/emit"], ["probe", "--synthetic", "--out", "{tmp}/dumps"],
            ["crosscheck", "--dumps", os.path.join(ROOT, "reports", "synthetic")], ["mutate"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:3]) for a in COMMANDS])
def test_every_command_that_loads_a_spec_refuses_what_validate_refuses(run, tmp_path, argv):
    """C.s32's element list `c0, c1, cX, c3`: validate refuses it; a command that reads another
    fragment (A.b1, B.b1) or none (simulate's list, probe --compile-only) exited 0 on it."""
    spec = tmp_path / "m16n8k256.yaml"
    text = open(os.path.join(ROOT, "specs", "m16n8k256.yaml")).read()
    spec.write_text(text.replace("            elements: c0, c1, c2, c3", "            elements: c0, c1, cX, c3", 1))
    line = next(k for k, ln in enumerate(spec.read_text().splitlines(), 1) if "cX" in ln)
    want = f"{spec}:{line}:31: error: element cX names 'X', which no 'where' clause defines"
    assert run("validate", str(spec)).err.startswith(want)
    r = run(argv[0], str(spec), *(a.format(tmp=tmp_path) for a in argv[1:]))
    out = r.out + r.err
    # prove's wording (mutate proves the spec first) names the fragment after the location
    said = [ln for ln in out.splitlines() if ln.startswith(f"{spec}:{line}:31: error: ")
            and ln.endswith("element cX names 'X', which no 'where' clause defines")]
    assert r.code == 3 and said, out


def test_probe_compile_only_refuses_a_formula_dividing_by_zero(run):
    path = _case("formula-division-by-zero")
    r = run("probe", path, "--compile-only")
    assert r.code == 3 and f"{path}:23:" in r.out + r.err and "divisor can be zero" in r.out + r.err, r.out + r.err


@pytest.mark.parametrize("named,why", [
    ("m16n8k64/Zz", "m16n8k64/Zz: expected a fragment of m16n8k64 (A.i4, B.i4, C.s32, A.sp.i8, A.sp.i4), "
                    "found none named 'Zz'"),
    ("m16n8k64/A.i4", "m16n8k64/A.i4: expected a fragment of operand C, found operand A")])
def test_a_same_as_name_that_is_no_fragment_of_its_operand_is_a_spec_error(run, tmp_path, named, why):
    """The spec's own list of the fragments a "same as" sentence means: a name that resolves to
    no fragment (or to one of another operand) was a refuted theorem (exit 1), never a spec error."""
    import shutil

    shutil.copy(os.path.join(ROOT, "specs", "m16n8k64.yaml"), tmp_path)
    spec = tmp_path / "m16n8k128.yaml"
    text = open(os.path.join(ROOT, "specs", "m16n8k128.yaml")).read()
    assert "fragments: [m16n8k64/C.s32]" in text
    spec.write_text(text.replace("fragments: [m16n8k64/C.s32]", f"fragments: [{named}]"))
    line = next(k for k, ln in enumerate(spec.read_text().splitlines(), 1) if named in ln)
    want = f"{spec}:{line}:17: error: {why}"
    r = run("validate", str(spec))
    assert r.code == 3 and r.err == want + "\n", r.err
    r = run("where", str(spec), "--fragment", "A.b1", "--row", "0", "--col", "0")
    assert r.code == 3 and want in r.out + r.err
    r = run("prove", "--jobs", "1", str(spec))
    assert r.code == 3 and f"{spec}:{line}:17: error: " in r.out and why in r.out, r.out


def test_a_control_character_is_located_at_itself(run, tmp_path):
    """libyaml's ReaderError has no mark (it was '1:1: invalid YAML: ReaderError'); the character
    it names is found in the text, past characters of several UTF-8 bytes (its `position` counts
    bytes)."""
    spec = tmp_path / "m16n8k256.yaml"
    lines = open(os.path.join(ROOT, "specs", "m16n8k256.yaml")).read().split("\n")
    lines.insert(5, 'notes: "ééé \U0001F600\x1b"')
    spec.write_text("\n".join(lines))
    r = run("validate", str(spec))
    assert r.code == 3 and r.err.startswith(f"{spec}:6:14: error: invalid YAML: unacceptable character #x001B: "
                                            "control characters are not allowed"), r.err


def _refused(tmp_path, case):
    """(spec file, validate's located line) of a spec validate refuses but whose other fragments
    read: a "same as" name that is no fragment, or an element list naming an undefined element."""
    import shutil

    if case == "same-as":
        shutil.copy(os.path.join(ROOT, "specs", "m16n8k64.yaml"), tmp_path)
        spec, old, new, col = tmp_path / "m16n8k128.yaml", "fragments: [m16n8k64/C.s32]", "fragments: [m16n8k64/Zz]", 17
        why = ("m16n8k64/Zz: expected a fragment of m16n8k64 (A.i4, B.i4, C.s32, A.sp.i8, A.sp.i4), "
               "found none named 'Zz'")
    else:
        spec, old, new, col = (tmp_path / "m16n8k256.yaml", "            elements: c0, c1, c2, c3",
                               "            elements: c0, c1, cX, c3", 31)
        why = "element cX names 'X', which no 'where' clause defines"
    text = open(os.path.join(ROOT, "specs", spec.name)).read()
    assert text.count(old) == 1
    spec.write_text(text.replace(old, new))
    line = next(k for k, ln in enumerate(spec.read_text().splitlines(), 1) if new.strip() in ln)
    return spec, f"{spec}:{line}:{col}: error: {why}"


GATED = [["conformance", "{spec}"], ["report", "{spec}", "--out", "{tmp}/out"],
         ["report", "{spec}", "--check", "--out", "{tmp}/out"],
         ["diff", "{good}", "{spec}"], ["diff", "{spec}", "{good}"]]


@pytest.mark.parametrize("case", ["same-as", "element"])
@pytest.mark.parametrize("argv", GATED, ids=[" ".join(a[:3:2] if a[0] == "report" else a[:1]) + (
    " old" if a[1] == "{spec}" and a[0] == "diff" else "") for a in GATED])
def test_conformance_report_and_diff_refuse_what_validate_refuses(run, tmp_path, argv, case):
    """conformance read only the fragments its reference entries name (exit 0 on a spec whose
    "same as" name is no fragment); report drew its pages from the spec and said only "1 failing
    results"; diff computed the entries of either version and exited 1. Each now says validate's
    located error and exits 3, and report writes nothing. An old version diff refuses is listed
    with that error, and the edit that mends it passes (exit 0): the gate must let a fix in."""
    spec, want = _refused(tmp_path, case)
    assert run("validate", str(spec)).err == want + "\n"
    good = os.path.join(ROOT, "specs", spec.name)
    r = run(*(a.format(spec=spec, good=good, tmp=tmp_path) for a in argv))
    if argv == ["diff", "{spec}", "{good}"]:
        assert r.code == 0 and f"old version: {want}" in r.out, r.out + r.err
        return
    assert r.code == 3, r.out + r.err
    assert want in (r.out + r.err).splitlines(), r.out + r.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", ["same-as", "element"])
def test_the_api_refuses_what_validate_refuses(tmp_path, case):
    """checker.load read a fragment only when asked for it: a spec validate refuses loaded, and
    its good fragments answered. It raises checker.SpecError, located as validate says it."""
    import checker

    spec, want = _refused(tmp_path, case)
    with pytest.raises(checker.SpecError) as caught:
        checker.load(spec)
    assert isinstance(caught.value, checker.CheckerError) and str(caught.value) == want
    assert str(caught.value.span) == want.split(": error: ")[0]
    with pytest.raises(checker.SpecError):
        checker.load(str(spec), as_printed=True)
