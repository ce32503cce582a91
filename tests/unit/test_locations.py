"""Every character of a spec's text at its own line and column, whatever the YAML style that holds
it (checker/source.py, checker/positions.py): a plain scalar over several lines, a single- or
double-quoted one (escapes, escaped line breaks, folds), a folded block (`>`, `>2-`). An error on a
later line of such a scalar, or after an escape, is reported by `prove` and `verbatim` at the
character that is wrong; where a scalar's text cannot be read back to its value, every character
is placed at the scalar's start, never elsewhere; a byte that is not UTF-8 at its line and column.
The fixture is tests/cases/verbatim/ (one section of the document and its spec)."""
import json
import os
import re

import pytest
import yaml

from conftest import CASES

from checker import source
from checker.spec import yamlload

HERE = os.path.join(CASES, "verbatim")
DOC = os.path.join(HERE, "document")
SPEC = os.path.join(HERE, "m16n8k256.yaml")
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # libyaml's line breaks: its marks count lines by them

# C.s32's formula and A.b1's Fragment cell as the fixture writes them (a literal block, one line)
FORMULA = """        formula: |
          groupID           = %laneid >> 2
          threadID_in_group = %laneid % 4

          row =        groupID                         for ci where i < 2
                     groupID + 8                       for ci where i >= 2

          col =  (threadID_in_group * 2) + (i & 0x1)    for ci where i = {0, 1, 2, 3}
"""
CELL = ("fragment: A vector expression containing four `.b32` registers, with each register containing "
        "thirty two `.b1` elements from the matrix A.")
STYLES = ["plain", "single", "double", "double-one-line", "folded", "folded-indicator"]


def _written(lines: list, style: str, ind: str, keep: bool) -> str:
    """The lines as one YAML scalar of `style` whose lines are indented `ind`: each on a line of its
    own, the breaks between them kept in the value (`keep`: a formula) or folded into spaces (a
    cell). The quoted styles spell some characters as escapes before the line's error."""
    lines = [ln.strip() for ln in lines]
    if style == "double-one-line":  # `\n` escapes, and the cell's backquotes as `\u0060`
        return json.dumps("\n".join(lines) if keep else " ".join(lines)).replace("`", "\\u0060")
    if style == "double":
        sep = "\\n\\\n" + ind if keep else "\n" + ind  # an escaped newline and line break, or a fold
        return '"' + sep.join(("\\x20\\u0020" + ln if n and ln else ln.replace(" ", "\\x20", 2))
                              for n, ln in enumerate(lines)) + '"'
    text, gap = lines[0], 0
    for n, ln in enumerate(lines[1:]):
        if not ln:
            gap += 1
            continue
        more = "  " if style == "folded-indicator" else ""  # more indented: its breaks are kept
        text += "\n" * (gap + 1 + keep) + ind + more + ln
        gap = 0
    quote = "'" if style == "single" else ""
    head = {"folded": ">\n" + ind, "folded-indicator": ">2-\n" + ind}.get(style, quote)
    return head + text + quote


def _spec(tmp_path, style: str, formula: str | None = None, cell: str | None = None) -> str:
    """The fixture spec with C.s32's formula or A.b1's cell edited, then written in `style`."""
    text = open(SPEC, encoding="utf-8").read()
    assert text.count(FORMULA) == 1 and text.count(CELL) == 1
    if formula is not None:
        lines = [ln[10:] for ln in FORMULA.splitlines()[1:]]
        value = "\n".join(lines).replace("groupID + 8", formula)
        text = text.replace(FORMULA, "        formula: " + _written(value.split("\n"), style, " " * 10, True) + "\n")
    if cell is not None:
        value = CELL[len("fragment: "):].replace("thirty two", cell)
        first, rest = value.split(" with each ")
        text = text.replace(CELL, "fragment: " + _written([first, "with each " + rest], style, " " * 14, False))
    path = tmp_path / "m16n8k256.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _at(path: str, needle: str, offset: int = 0) -> str:
    """path:line:col of the needle's character `offset`, counted in the written file."""
    text = open(path, encoding="utf-8").read()
    assert text.count(needle) == 1, needle
    at = text.index(needle) + offset
    return f"{path}:{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


@pytest.mark.parametrize("style", STYLES)
def test_prove_locates_a_formula_error_on_a_later_line_at_its_character(run, tmp_path, style):
    path = _spec(tmp_path, style, formula="groupID $ 8")
    r = run("prove", path)
    assert r.code != 0 and "Traceback" not in r.out + r.err
    assert f"{_at(path, 'groupID $ 8', 8)}: error: C.s32: cannot parse formula: unexpected character '$'" in r.out, r.out
    # a piece that proves wrong: its counterexample names the piece where it starts
    path = _spec(tmp_path, style, formula="groupID + 4")
    r = run("prove", path)
    assert r.code == 1 and "C.s32 injective refuted" in r.out, r.out
    assert f"lane 0 c2: row piece 2 at {_at(path, 'groupID + 4')} gives 4" in r.out, r.out


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("edit, text, col, field", [({"formula": "groupID + 4"}, "groupID + 4", 10, "C.s32 formula"),
                                                   ({"cell": "thirty-two"}, "thirty-two", 6, "A.b1 row 1 fragment")],
                         ids=["formula", "cell"])
def test_verbatim_locates_an_error_on_a_later_line_at_its_character(run, tmp_path, style, edit, text, col, field):
    path = _spec(tmp_path, style, **edit)
    r = run("verbatim", path, "--document", DOC)
    assert r.code == 1 and "1 spec: 18 verbatim fields checked, 17 found" in r.out, r.out
    assert f"{_at(path, text, col)}: error: {field}: not in the document" in r.out, r.out


# scalars whose characters do not stand where a one-line reading puts them
TRICKY = (
    "plain: first line\n  second  line   with  spaces   \n   \n  third, after a blank line\n"
    "flow: [a plain item\n    over two lines, b]\n"
    "single: 'it''s on\n  two lines, ''quoted''\n\n  and a paragraph'\n"
    'double: "tab\\there \\"q\\" back\\\\slash \\x41\\u00e9\\U0001F600 \\/\n'
    '  folded   \\\n  joined\\n\\\n  \\ escaped space\n\n  paragraph\\tend"\n'
    'separators: "line\u2028separator, paragraph\u2029separator"\n'
    "folded: >\n  one\n  two\n\n    more indented\n  three\n\n\n"
    "folded_strip: >-2\n    leading spaces kept\n  text\n"
    "folded_keep: >+\n  kept\n\n"
    "literal: |\n  a\n\n   b\n"
    "tagged: !!str a plain scalar\n  with a tag\n"
)


def _escape(text: str, at: int) -> str | None:
    """The value of the escape at `at` of a double-quoted scalar's text."""
    m = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S).match(text, at)
    return yaml.safe_load('"' + m.group(0) + '"') if m else None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_every_character_of_a_scalar_is_placed_where_the_file_holds_it(newline):
    """The exact-mapping property: each character of a value stands at its reported line and column,
    an escape's at its backslash, a folded break's (a space or a newline) at the line break, and the
    positions only increase."""
    text = TRICKY.replace("\n", newline)
    doc = yamlload.load("m8n8k32.yaml", text.encode("utf-8"))
    lines = _BREAK.split(text)
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]
    scalars = [(path, node) for path, node in doc.nodes.items() if isinstance(node.value, str)]
    assert len(scalars) == 11
    for path, node in scalars:
        got = source.from_node(node, doc.text, doc.path)
        places = got.origins[:len(got.text)]
        assert list(places) == sorted(set(places)), (path, places)
        for ch, (line, col) in zip(got.text, places):
            held = lines[line - 1][col - 1:col]
            offset = starts[line - 1] + col - 1
            if held == "\\" and node.style == '"':
                assert _escape(text, offset) == ch, (path, ch, line, col)
            elif held != ch:  # a fold: the break at the end of its line, a space or the break it reads as
                brk = _BREAK.match(text, offset)
                assert held == "" and brk and ch in (" ", brk[0] if brk[0] in "\u2028\u2029" else "\n"), \
                    (path, ch, line, col)


def test_a_scalar_that_does_not_read_back_is_placed_at_its_start(run, tmp_path):
    """A tag, then a comment, then the text: the text between the scalar's marks is not its value
    read as a plain scalar, so every character is at the scalar's start (the tag), not one
    elsewhere; `prove` reports an error in it there."""
    doc = yamlload.load("m8n8k32.yaml", b"formula: !!str # a comment\n  groupID\n  + 8\n")
    got = source.from_node(doc.nodes[("formula",)], doc.text, doc.path)
    assert got.text == "groupID + 8" and set(got.origins) == {(1, 10)}
    lines = [ln[10:] for ln in FORMULA.replace("+ 8", "$ 8").splitlines()[1:]]
    text = open(SPEC, encoding="utf-8").read().replace(
        FORMULA, "        formula: !!str # C.s32\n" + " " * 10 + _written(lines, "plain", " " * 10, True) + "\n")
    path = tmp_path / "m16n8k256.yaml"
    path.write_text(text, encoding="utf-8")
    r = run("prove", str(path))
    assert f"{_at(str(path), '!!str # C.s32')}: error: C.s32: cannot parse formula: unexpected character '$'" in r.out, r.out


def test_a_byte_that_is_not_utf8_is_located_at_its_line_and_column(run, tmp_path):
    path = tmp_path / "m8n8k32.yaml"
    path.write_bytes(b"schema: ptx-fragment-checker/1\nnotes: \"caf\xc3\xa9 \xff\"\n")
    for command in ("validate", "prove"):
        r = run(command, str(path))
        assert r.code == 3 and "Traceback" not in r.out + r.err
        # the column counts characters, as every other column does: `é` is one
        assert f"{path}:2:14: error: file is not UTF-8 text (byte 45)" in r.out + r.err, r.out + r.err
