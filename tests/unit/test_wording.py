"""The document's words (checker.theorems.wording): each check seen passing and failing, the
errata of titles and "same as" sentences confirmed and, once removed, failing at their line."""
import json
import os
import shutil

import pytest
import yaml

from conftest import SPECS

from checker.spec.load import load_spec
from checker.theorems import wording


class Row:
    def __init__(self, kind="b32", count=4, per_register=None, out_of=None):
        self.kind, self.count, self.per_register, self.out_of = kind, count, per_register, out_of


def test_types_named_passes_and_fails():
    assert wording.types_named("fragment layout for matrix A with .u8 / .s8 type.", ("u8", "s8")) is None
    assert "not .e4m3" in wording.types_named("with .u8 / .s8 type.", ("u8", "s8", "e4m3"))
    assert "says integer" in wording.types_named("with integer type", ("u8", "e4m3"))
    assert "says floating point" in wording.types_named("with floating point type", ("f16", "s8"))
    assert wording.types_named("with `.f16x2`/`.f32` type", ("f16", "f32"), kinds=("f16x2", "f32")) is None
    assert ".b16" in wording.types_named("for `.f16`/`.b16` formats", ("f16", "bf16"), exact=False)
    assert wording.types_named("for `.f16`/`.bf16` formats", ("f16", "bf16", "f32"), exact=False) is None
    assert wording.types_named("Matrix Fragments for mma.m16n8k32", ("u8",)) is None  # names none: no claim


def test_register_words_passes_and_fails():
    cell = "A vector expression containing four `.b32` registers, each containing four `.tf32` elements from matrix B."
    assert "do not fit" in wording.register_words(cell, Row())
    assert wording.register_words(cell.replace("four `.tf32`", "one `.tf32`"), Row()) is None
    assert "hold 4" in wording.register_words(
        "two .b32 registers, with each register containing two .u8 elements", Row("b32", 2, 4))
    assert wording.register_words("containing four .f32 registers, containing four .f32 elements", Row("f32", 4)) is None
    assert "hold 4" in wording.register_words("four .f32 registers, containing two .f32 elements", Row("f32", 4))
    # a typed register holds its type: the row's types edited (wgmma D's .s32 and .f32 rows swapped)
    row = Row("s32", 4)
    row.types, row.types_span = ("f32",), "m64nNk32.yaml:84:14"
    said = wording.register_words("N/2 number of `.s32` registers.", row)
    assert said == "has .s32 registers, which hold .s32 elements, where the table row gives types: .f32"
    assert said.span == "m64nNk32.yaml:84:14"
    row.types = ("s32",)
    assert wording.register_words("N/2 number of `.s32` registers.", row, (("N", 8),)) is None
    row = Row("f16x2", 4, 2)
    row.types = ("f16", "bf16")
    assert wording.register_words("four `.f16x2` registers", row) is None
    row.types = ("f16", "tf32")
    assert "which hold .bf16 or .f16 elements" in wording.register_words("four `.f16x2` registers", row)


def test_register_kind_passes_and_fails():
    cell = "A vector expression containing four .f16x2 registers, with each register containing two .f16 elements"
    assert wording.register_kind(cell, Row("f16x2")) is None
    assert wording.register_kind(cell, Row("f32")) == "names .f16x2 registers, where the table gives kind: f32"
    assert wording.register_kind("containing a single `.b32` register, containing four `.u8`", Row("b32", 1)) is None
    assert "names .b32 registers" in wording.register_kind("a single `.b32` register", Row("f64", 1))
    assert wording.register_kind("N/2 number of `.f32` registers.", Row("f32")) is None
    movement = "a brace-enclosed vector expression consisting of 1, 2, or 4 32-bit registers"
    assert wording.register_kind(movement, Row("b32")) is None
    assert wording.register_kind(movement, Row("f64")) == "names 32-bit registers, where the table gives kind: f64 (64 bits)"
    # a cell that names no register kind claims none
    assert wording.register_kind("A vector expression of two registers", Row("f64")) is None
    # register-words answers with the kind's place in the file, where the edit is
    row = Row("f32")
    row.kind_span = "m16n8k16.yaml:23:41"
    assert wording.register_words(cell, row).span == "m16n8k16.yaml:23:41"


def test_a_register_kind_the_fragment_cell_does_not_name_is_refuted_at_its_line(tmp_path, run):
    """m16n8k16 A.f16's `kind: f16x2` edited to f32 under "four .f16x2 registers": every layout
    property still holds (2 x 16 bits fit a .f32 too); the words refute it, at the kind."""
    for sibling in os.listdir(SPECS):  # the scope reads the specs beside it
        if sibling.endswith(".yaml"):
            (tmp_path / sibling).write_text(open(os.path.join(SPECS, sibling), encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / "m16n8k16.yaml"
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[22] == "            registers: {count: 4, kind: f16x2, per_register: 2}\n"
    assert r"four .f16x2 registers" in lines[21]
    lines[22] = lines[22].replace("kind: f16x2", "kind: f32")
    out.write_text("".join(lines), encoding="utf-8")
    r = run("prove", str(out), "--format", "json")
    bad = [x for x in json.loads(r.out)["results"] if x["verdict"] != "PROVED" and not x["erratum"] and not x["declared"]]
    assert r.code == 1
    assert [(x["fragment"], x["property"], x["location"]) for x in bad] == [("A.f16", "register-words", f"{out}:23:41")]
    assert bad[0]["message"].startswith("the Fragment cell of A.f16 (table row 1) names .f16x2 registers, where the "
                                        "table gives kind: f32: “A vector expression containing four .f16x2 registers")


def test_register_count_passes_and_fails():
    cell = "A vector expression containing four .f16x2 registers, with each register containing two .f16 elements"
    assert wording.register_count(cell, Row("f16x2", 4)) is None
    assert wording.register_count(cell, Row("f16x2", 2)) == "says four .f16x2 registers, where the table gives count: 2"
    assert wording.register_count("of a single `.b32` register, containing four `.u8`", Row("b32", 1)) is None
    assert "says a single .b32 registers" in wording.register_count("of a single `.b32` register", Row("b32", 2))
    assert wording.register_count("containing of two `.s32` registers.", Row("s32", 2)) is None
    # wgmma: the count at the instance's N
    wg = "containing N/4 number of `.f16x2` registers"
    assert wording.register_count(wg, Row("f16x2", 16), (("N", 64),)) is None
    assert wording.register_count(wg, Row("f16x2", 32), (("N", 64),)) == \
        "says N/4 (at N = 64: 16) .f16x2 registers, where the table gives count: 32"
    assert "no parameter N" in wording.register_count(wg, Row("f16x2", 2))
    assert wording.register_count(wg.replace("N/4", "N/0"), Row("f16x2", 16), (("N", 64),)) == \
        "says N/0 .f16x2 registers, where the table gives count: 16"
    # the place: the cell where `count:` registers hold the whole fragment, else the count
    at_count = Row("f16x2", 2, 2)
    at_count.count_span = "x.yaml:23:32"
    assert not hasattr(wording.register_count(cell, at_count, holds=(32, 128)), "span")
    why = wording.register_count(cell, at_count, holds=(32, 256))
    assert why.span == "x.yaml:23:32" and why.endswith("2 x 2 elements x 32 threads hold 128 of the fragment's 256")
    # the choices of ldmatrix's .num, or a cell naming no number, claim no count
    assert wording.register_count("consisting of 1, 2, or 4 32-bit registers", Row("b32", 2)) is None
    assert wording.register_count("A vector expression of registers", Row("b32", 2)) is None
    # register-words says it, with the count's place
    row = Row("f16x2", 2)
    row.count_span = "m16n8k16.yaml:23:32"
    assert wording.register_words(cell, row) == \
        "says four .f16x2 registers, where the table gives count: 2 (at m16n8k16.yaml:23:32)"
    # a total in the singular is a total too
    assert "says two elements in all" in wording.register_words(
        "of a single `.b32` register, containing two `.tf32` element", Row("b32", 1))
    assert wording.register_words("a single `.f64` register, containing single `.f64` element", Row("f64", 1)) is None


class TypedRow(Row):
    def __init__(self, types, types_span=None, **kw):
        super().__init__(**kw)
        self.types, self.types_span = types, types_span


def test_cell_types_passes_and_fails():
    cell = "containing two .b32 registers, with each register containing four .u8 / .s8 elements from the matrix A."
    both = ("u8", "s8", "e4m3", "e5m2")
    assert wording.cell_types(cell, TypedRow(("s8", "u8"))) is None
    # register kinds are not element types; a cell that names no type claims none
    assert wording.cell_types("containing four .f32 registers containing four .f32 elements", TypedRow(("f32",))) is None
    assert wording.cell_types("A vector expression of four `.f32` registers.", TypedRow(("f64",))) is None
    assert wording.cell_types(cell, TypedRow(("u8",))) == "names .s8, .u8, where the table row gives types: .u8"
    # a type outside the caption's: the cell is the edit, refuted at the cell, the types' place named
    why = wording.cell_types(cell.replace(".s8", ".bf16"), TypedRow(("u8", "s8"), "x.yaml:167:20"), both)
    assert why == "names .bf16, .u8, where the table row gives types: .s8, .u8 (at x.yaml:167:20)"
    assert not hasattr(why, "span")
    # another row's types (its cell names them): the cell is the edit
    why = wording.cell_types(cell.replace(".u8 / .s8", ".e4m3 / .e5m2"), TypedRow(("u8", "s8"), "x.yaml:167:20"),
                             both, {"e4m3", "e5m2"})
    assert not hasattr(why, "span")
    # the caption's types, no other row's cell's: the row's types are the edit, refuted at `types:`
    why = wording.cell_types(cell, TypedRow(("u8", "e4m3"), "x.yaml:167:20"), both, {"e4m3", "e5m2"} - {"e4m3"})
    assert why == "names .s8, .u8, where the table row gives types: .e4m3, .u8" and why.span == "x.yaml:167:20"


@pytest.mark.parametrize("name, edits, want", ids=["count", "type", "singular-total", "types-swapped", "wgmma-count", "count-and-list"],
                         argvalues=[
    # "four .f16x2 registers" made "two": the count, per register and element list still agree
    ("m16n8k16.yaml", [(22, "containing four .f16x2", "containing two .f16x2")],
     [("A.f16", "register-words", 22, 23, "the Fragment cell of A.f16 (table row 1) says two .f16x2 registers, "
       "where the table gives count: 4 (at {out}:23:32)")]),
    # ".f16 / .bf16 elements" made ".u8 / .bf16": two .u8 fit a .f16x2 register as well
    ("m16n8k16.yaml", [(22, "two .f16 / .bf16", "two .u8 / .bf16")],
     [("A.f16", "types-named", 22, 23, "the Fragment cell of A.f16 (table row 1) names .bf16, .u8, where the "
       "table row gives types: .bf16, .f16 (at {out}:21:20)")]),
    ("m16n8k4.yaml", [(57, "containing a single `.tf32` element", "containing two `.tf32` element")],
     [("B.tf32", "register-words", 57, 17, "the Fragment cell of B.tf32 (table row 1) says two elements in all; "
       "1 x .b32 registers hold 1")]),
    # the two rows' types swapped under their cells: every width, count and caption still agrees
    ("m16n8k16.yaml", [(167, "[u8, s8]", "[e4m3, e5m2]"), (171, "[e4m3, e5m2]", "[u8, s8]")],
     [("A.i8", "types-named", 167, 20, "the Fragment cell of A.i8 (table row 1) names .s8, .u8, where the table "
       "row gives types: .e4m3, .e5m2"),
      ("A.i8", "types-named", 171, 20, "the Fragment cell of A.i8 (table row 2) names .e4m3, .e5m2, where the "
       "table row gives types: .s8, .u8")]),
    ("m64nNk16.yaml", [(67, "N/4 number of", "N/2 number of")],
     [("D.float[N=8]", "register-words", 67, 17, "the Fragment cell of D.float (table row 1) says N/2 "
       "(at N = 8: 4) .f16x2 registers, where the table gives count: 2 (at {out}:68:26)")]),
    # the count cut with the element list (covers fails too): the count is the edit, refuted there
    ("m8n8k32.yaml", [(52, "count: 2", "count: 1"), (53, "c0, c1", "c0")],
     [("C.s32", "register-words", 52, 32, "the Fragment cell of C.s32 (table row 1) says two .s32 registers, "
       "where the table gives count: 1: 1 x 1 elements x 32 threads hold 32 of the fragment's 64")]),
])
def test_a_fragment_cell_and_its_table_edited_apart_are_refuted_at_the_edit(tmp_path, run, name, edits, want):
    """An edit of the Fragment cell's register count or element types, or of a row's types, that
    every layout property and theorem accepts: the words refute it, at the edited line."""
    for sibling in os.listdir(SPECS):  # the scope reads the specs beside it
        if sibling.endswith(".yaml"):
            (tmp_path / sibling).write_text(open(os.path.join(SPECS, sibling), encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / name
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    for line, old, new in edits:
        assert lines[line - 1].count(old) == 1
        lines[line - 1] = lines[line - 1].replace(old, new)
    out.write_text("".join(lines), encoding="utf-8")
    r = run("prove", str(out), "--format", "json")
    bad = [x for x in json.loads(r.out)["results"] if x["verdict"] != "PROVED" and not x["erratum"] and not x["declared"]]
    assert r.code == 1
    # every other property and theorem holds, but where the element list is cut too: covers, and the
    # theorem and relations that read the fragment
    assert all(x["property"] in ("covers", "dimensions", "relation") and len(edits) == 2 and "c0" in edits[1][2]
               for x in bad if x["property"] not in wording.WORD_CHECKS)
    bad = [x for x in bad if x["property"] in wording.WORD_CHECKS]
    assert [(x["fragment"], x["property"], x["location"]) for x in bad] == \
        [(fid, check, f"{out}:{line}:{col}") for fid, check, line, col, _ in want]
    for x, (*_, message) in zip(bad, want):
        assert x["message"].startswith(message.format(out=out) + ": “"), x["message"]
        assert "fragment: " + x["counterexample"]["text"] in out.read_text(encoding="utf-8").replace('"', "")


class Frag:
    def __init__(self, operand, types):
        self.operand, self.types = operand, types


def test_same_as_types_passes_and_fails():
    text = "the same as in case of Matrix Fragments for mma.m16n8k16 with floating point type for `.f16`/`.bf16` formats."
    everywhere = ("f16", "bf16", "f64", "f32", "u8", "s8", "e4m3", "e5m2", "s32")
    section = ("f16", "bf16", "f64", "f32")
    b16 = ("m16n8k16/B.f16", "at 280", Frag("B", ("f16", "bf16")), section, ("f16", "bf16", "f64"), everywhere)
    b64 = ("m16n8k16/B.f64", "at 280", Frag("B", ("f64",)), section, ("f16", "bf16", "f64"), everywhere)
    c = ("m16n8k16/C.float", "at 281", Frag("C", ("f64", "f32", "f16")), section, ("f16", "bf16", "f64"), everywhere)
    c_int = ("m16n8k16/C.int", "at 281", Frag("C", ("s32", "f32", "f16")), ("u8", "s8", "s32", "f32", "f16"),
             ("u8", "s8"), everywhere)
    assert wording.same_as_types(text, [b16, c]) is None
    why = wording.same_as_types(text, [b64, c])
    assert why == "names .bf16, .f16, but m16n8k16/B.f64 has .f64" and why.span == "at 280"
    why = wording.same_as_types(text, [b16, c_int])
    assert why == "names .bf16, .f16, but the multiplicands of the section of m16n8k16/C.int have .s8, .u8"
    assert why.span == "at 281"
    # a type the spec has nowhere is the sentence's words (the printed `.b16`), at the sentence
    why = wording.same_as_types(text.replace(".bf16", ".b16"), [b16, c])
    assert why == "names .b16, which its tables do not have" and not hasattr(why, "span")
    assert wording.same_as_types("the same as in case of mma.m16n8k32.", [b64, c_int]) is None  # names no type


# An accumulator of another section (m16n8k32's sentence made to name m16n8k16/C.int) no longer
# reaches this check: loading refuses a name outside the section the sentence names
# (test_field_edits.py); same_as_types' accumulator branch is held above.
@pytest.mark.parametrize("name, line, old, new, at, message", ids=["multiplicand"], argvalues=[
    ("m16n8k16.yaml", 280, "m16n8k16/B.f16", "m16n8k16/B.f64", 19,
     "the \"same as\" sentence names .bf16, .f16, but m16n8k16/B.f64 has .f64"),
])
def test_a_same_as_name_its_sentence_contradicts_is_refuted_at_the_name(tmp_path, run, name, line, old, new, at,
                                                                          message):
    for sibling in os.listdir(SPECS):  # "same as" reads the specs beside it
        if sibling.endswith(".yaml"):
            (tmp_path / sibling).write_text(open(os.path.join(SPECS, sibling), encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / name
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[line - 1] and "fragments:" in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    out.write_text("".join(lines), encoding="utf-8")
    r = run("prove", str(out), "--format", "json")
    bad = [x for x in json.loads(r.out)["results"] if x["verdict"] != "PROVED" and not x["erratum"] and not x["declared"]]
    assert r.code == 1
    assert [(x["property"], x["location"]) for x in bad] == [("types-named", f"{out}:{line}:{at}")]
    assert bad[0]["message"].startswith(message + ": “")


def test_wording_passes_and_fails():
    assert wording.wording("for accumulator matrix C/D.") is None
    assert "matrix" in wording.wording("for accumulator matrix matrix C/D.")
    assert "comma" in wording.wording("b0, b1, … , b30, b31")


def _without(data, holder_path):
    node = data
    for key in holder_path:
        node = node[key]
    del node["errata"]
    return data


@pytest.mark.parametrize("name,holder,check,line_key", [
    ("m16n8k128.yaml", ["sections", 1], "types-named", "title"),
    ("m16n8k64.yaml", ["sections", 1], "types-named", "title"),
    ("m16n8k16.yaml", ["sections", 1], "types-named", "title"),
    ("m16n8k16.yaml", ["sections", 2, "same_as", 0], "types-named", "printed"),
    ("m16n8k32.yaml", ["sections", 1, "same_as", 0], "types-named", "printed"),
])
def test_errata_of_titles_and_sentences_confirm_and_the_printed_words_alone_fail(tmp_path, run, name, holder,
                                                                                 check, line_key):
    data = yaml.safe_load(open(os.path.join(SPECS, name)))
    # with the erratum: confirmed, nothing fails
    r = run("prove", os.path.join(SPECS, name), "--format", "json")
    got = json.loads(r.out)["results"]
    assert r.code == 0
    assert any(x["erratum"] and x["property"] == check and x["fragment"] is None for x in got)
    # without it: the printed words fail, at the title or sentence
    for sibling in os.listdir(SPECS):  # "same as" reads the specs beside it
        if sibling.endswith(".yaml"):
            (tmp_path / sibling).write_text(open(os.path.join(SPECS, sibling), encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / name
    out.write_text(yaml.safe_dump(_without(data, holder), sort_keys=False, allow_unicode=True))
    r = run("prove", str(out), "--format", "json")
    bad = [x for x in json.loads(r.out)["results"] if x["verdict"] != "PROVED" and not x["erratum"]
           and x["spec"] == str(out)]
    assert r.code == 1
    assert [x["property"] for x in bad] == [check]
    assert bad[0]["location"].startswith(str(out) + ":")
    line = int(bad[0]["location"].split(":")[-2])
    assert line_key + ":" in out.read_text().splitlines()[line - 1]


def test_an_erratum_of_words_that_does_not_fail_as_declared_is_an_error(tmp_path, run):
    data = yaml.safe_load(open(os.path.join(SPECS, "m16n8k64.yaml")))
    data["sections"][1]["errata"][0]["breaks"] = ["wording"]
    out = tmp_path / "m16n8k64.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    r = run("prove", str(out))
    assert r.code == 1
    # each undeclared break says what it finds, as a refutation does
    assert "erratum not confirmed as declared: the printed text also breaks types-named: the title of 9.7.14.6.2.6 " \
           "names .e4m3, .e5m2, .s8, .u8 but not .e2m1, .e2m3, .e3m2; the printed text does not break wording" in r.out


@pytest.mark.parametrize("change,message", [
    (lambda row: row.update(elements="c0, c1, c2, c3"), "printed: \"\" stands for an Elements cell"),
    (lambda row: row["errata"][0].update(printed="x"), "this Elements cell is empty"),
])
def test_an_empty_cell_and_its_erratum_must_match(tmp_path, run, change, message):
    data = yaml.safe_load(open(os.path.join(SPECS, "m16n8k8.yaml")))
    row = next(fr for fr in data["sections"][0]["fragments"] if fr["id"] == "C.float")["table"][1]
    change(row)
    out = tmp_path / "m16n8k8.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    r = run("prove", str(out))
    assert r.code == 3
    assert message in r.out + r.err


def test_every_word_check_is_seen_failing_on_the_document():
    """Each of the four checks fails somewhere on the printed document (a confirmed erratum):
    none is a check that cannot fail."""
    from checker.theorems.same_as import referee

    seen = set()
    for name in sorted(os.listdir(SPECS)):
        if name.startswith("m") and name.endswith(".yaml"):
            spec = load_spec(os.path.join(SPECS, name))
            seen |= {r.property for r in wording.check(spec, referee(spec.path, {})) if r.erratum}
    assert seen == set(wording.WORD_CHECKS)


def test_a_same_as_sentence_whose_fragments_are_not_loaded_is_not_held_to_no_types(tmp_path, run):
    """m16n8k32 copied alone (or beside an m16n8k16 that does not load): its sentence "... mma.m16n8k16
    with floating point type for `.f16`/`.bf16` formats" was refuted for naming types "its tables do
    not have" (the tables were not at hand), and the .b16 erratum confirmed by that same emptiness."""
    import shutil

    shutil.copy(os.path.join(SPECS, "m16n8k32.yaml"), tmp_path / "m16n8k32.yaml")
    r = run("prove", str(tmp_path / "m16n8k32.yaml"), "--no-cache", "--format", "json")
    sentence = [x for x in json.loads(r.out)["results"] if x["location"].endswith(":165:14")
                or x["location"].endswith(":168:7")]
    assert [(x["property"], x["verdict"]) for x in sentence] == [("types-named", "UNKNOWN")], sentence
    assert "cannot be asked: m16n8k16/C.float is not loaded (the same-as theorem says why)" in sentence[0]["message"]
    assert r.code == 1  # the same-as theorem refutes the missing spec; nothing is confirmed by its absence
    r = run("prove", os.path.join(SPECS, "m16n8k32.yaml"), "--no-cache", "--format", "json")
    beside = {(x["property"], x["verdict"], x["erratum"]) for x in json.loads(r.out)["results"]
              if x["location"].endswith("m16n8k32.yaml:168:7")}
    assert beside == {("types-named", "REFUTED", True)}, beside  # with its spec beside, the erratum holds


def _frag(data, fid):
    return next(fr for sec in data["sections"] for fr in sec.get("fragments", []) if fr["id"] == fid)


def _drop(errata: list, field: str) -> list:
    assert any(e.get("field") == field for e in errata)
    return [e for e in errata if e.get("field") != field]


@pytest.mark.parametrize("name,drop,check,line_has", [
    # a stated sentence: "16 4-bit vectors" in a .b32 register
    ("m64nNk64.sp.yaml", lambda d: d["sections"][0].pop("errata"), "register-words",
     "Metadata operand is a `.b32` register containing 16 4-bit vectors"),
    # a sparse A's Elements note and a wgmma Miscellaneous Information cell: "… ," and "... ,"
    ("m64nNk64.sp.yaml", lambda d: _frag(d, "A.sp.i8")["table"][0].pop("errata"), "wording", "elements_note:"),
    ("m64nNk32.yaml", lambda d: _frag(d, "D.s32.float")["table"][1].update(
        errata=_drop(_frag(d, "D.s32.float")["table"][1]["errata"], "miscellaneous")), "wording", "miscellaneous:"),
])
def test_stated_sentences_and_the_other_cells_of_a_row_are_read_too(tmp_path, run, name, drop, check, line_has):
    """The word checks read titles, captions, Fragment and Elements cells and "same as" sentences
    only: "16 4-bit vectors" in one .b32 register (64 bits in 32), and the space before a comma in
    a Miscellaneous cell and a sparse Elements note, passed unread. Each is now an erratum that
    confirms; without it, the printed words fail at their line."""
    r = run("prove", os.path.join(SPECS, name), "--format", "json")
    assert r.code == 0
    assert any(x["erratum"] and x["property"] == check for x in json.loads(r.out)["results"])
    for sibling in os.listdir(SPECS):
        if sibling.endswith(".yaml"):
            shutil.copy(os.path.join(SPECS, sibling), tmp_path / sibling)
    data = yaml.safe_load(open(os.path.join(SPECS, name), encoding="utf-8"))
    drop(data)
    out = tmp_path / name
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    r = run("prove", str(out), "--format", "json")
    bad = [x for x in json.loads(r.out)["results"] if x["verdict"] != "PROVED" and not x["erratum"]
           and x["spec"] == str(out)]
    assert r.code == 1 and {x["property"] for x in bad} == {check}, [(x["property"], x["message"]) for x in bad]
    line = int(bad[0]["location"].split(":")[-2])
    assert line_has in out.read_text(encoding="utf-8").splitlines()[line - 1]


def test_an_erratum_of_a_stated_sentence_names_one_sentence(tmp_path, run):
    data = yaml.safe_load(open(os.path.join(SPECS, "m64nNk64.sp.yaml"), encoding="utf-8"))
    data["sections"][0]["errata"][0]["printed"] = "matrix A"  # in several of the section's sentences
    out = tmp_path / "m64nNk64.sp.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    r = run("prove", str(out))
    assert r.code == 3 and "quotes a text found in exactly one of the section's stated sentences; " \
                           "'matrix A' is in 4" in r.out + r.err, r.out + r.err


def test_vector_words_passes_and_fails():
    from checker.theorems.register_words import vector_words

    assert vector_words("Metadata operand is a `.b32` register containing eight 4-bit vectors each ...") is None
    assert vector_words("Metadata operand is a `.b32` register containing 16 2-bit vectors each ...") is None
    assert "16 4-bit vectors (64 bits) in a .b32 register of 32 bits" in vector_words(
        "a `.b32` register containing 16 4-bit vectors")
    assert vector_words("Figure 180 shows the mapping of the metadata bits") is None


def test_an_erratum_of_a_stated_sentence_is_said_to_be_of_that_sentence(run):
    """The errata list, its JSON and the report called the m64nNk64.sp metadata sentence's erratum
    one of the section's title: every section erratum was a title's."""
    r = run("errata", os.path.join(SPECS, "m64nNk64.sp.yaml"), "--format", "json")
    [e] = [e for e in json.loads(r.out)["errata"] if e["printed"] == "16 4-bit vectors"]
    assert "stated sentence 4" in json.dumps(e) and "title" not in json.dumps(e).replace("subtitle", ""), e
