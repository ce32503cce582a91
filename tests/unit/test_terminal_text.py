"""Text outputs of a spec whose path holds what a terminal acts on: an escape sequence, a carriage
return, a newline followed by a forged result line, a bidi override. Every text output (prove,
validate, errata, eval, compare, and the errors of where and table) shows them escaped, each line
one line; JSON still gives the path itself."""
import json
import os
import shutil

import pytest

from conftest import SPECS

# the folder's name ends a line and starts a forged one, as a result line of `prove` reads
FORGED = "m16n8k256.yaml: A.b1: proved fragment-shape, defined, in-range, injective, covers"
FOLDER = "d\x1b[31mx\rhidden\n" + FORGED + "\u202e"


def _escaped(text: str) -> str:
    """What the output shows of `text`: repr's escapes of what is not printable."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


@pytest.fixture
def spec(tmp_path):
    folder = tmp_path / FOLDER
    try:
        folder.mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system takes no such name")
    path = folder / "m16n8k256.yaml"
    shutil.copy(os.path.join(SPECS, "m16n8k256.yaml"), path)
    return str(path)


COMMANDS = {
    "prove": ["prove", "{spec}", "--jobs", "1"],
    "validate": ["validate", "{spec}"],
    "errata": ["errata", "{spec}", "--jobs", "1"],
    "eval": ["eval", "{spec}", "--fragment", "A.b1", "--lane", "0", "--i", "96"],
    "compare": ["compare", "{spec}", "--fragment", "A.b1", "--cute", "((4,8),(32,2,2)):((512,1),(16,8,2048))"],
    "where (an unknown fragment)": ["where", "{spec}", "--fragment", "A.x", "--row", "0", "--col", "0"],
    "table (an unknown fragment)": ["table", "{spec}", "--fragment", "A.x"],
    "prove --output (text)": ["prove", "{spec}", "--jobs", "1", "--output", "{out}"],
    "eval --output": ["eval", "{spec}", "--fragment", "A.b1", "--lane", "0", "--i", "96", "--output", "{out}"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_path_is_shown_escaped_one_line_each(run, spec, tmp_path, name):
    out = str(tmp_path / "out.txt")
    r = run(*[a.format(spec=spec, out=out) for a in COMMANDS[name]])
    assert r.code in (0, 1, 2), r.err
    text = r.out + r.err + (open(out, encoding="utf-8").read() if "--output" in COMMANDS[name] else "")
    shown = _escaped(os.path.dirname(spec))
    assert shown in text, text  # the path is there, escaped: \x1b[31m, \r, \n, \u202e
    assert [ch for ch in text if not ch.isprintable() and ch != "\n"] == []
    # the newline in the path starts no line of the output: nothing forged
    assert not any(line.startswith(FORGED) or line.startswith("hidden") for line in text.splitlines())


def test_json_gives_the_path_itself(run, spec):
    r = run("prove", spec, "--format", "json", "--jobs", "1")
    assert r.code == 0, r.err
    assert "\\u001b[31mx\\rhidden\\n" in r.out  # json's own escapes, unchanged
    assert {res["spec"] for res in json.loads(r.out)["results"]} == {spec}


def test_the_escape_keeps_printable_text_and_escapes_the_rest():
    from checker.terminal import escape, lines

    printable = "specs/m16n8k16.yaml: A.f16 § “b0, … ” \\x1b"  # a backslash too: printed as it is
    assert escape(printable) == printable
    assert escape("a\x1b[2Jb\rc\nd\te\x7ff\x85g\u2028h\u202ei\udcffj\x00") == \
        "a\\x1b[2Jb\\rc\\nd\\te\\x7ff\\x85g\\u2028h\\u202ei\\udcffj\\x00"
    assert lines(["one\ntwo", "three"]) == "one\\ntwo\nthree\n" and lines([]) == ""
    assert lines(["a", "b"], end="") == "a\nb"
