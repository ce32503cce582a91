"""Exports of hostile input: the text an export pastes into comments and docstrings (the spec's
path, the command line) cannot break out of them, and formula names that are keywords or macros
in the target language are renamed, consistently, so that what was proved compiles."""
import keyword
import os
import shutil
import subprocess
import sys

import pytest

from conftest import SPECS

from checker.export import safe

TARGETS = ("python", "cpp", "cute", "triton")
# every line terminator some language or editor knows, and controls, a bidi override, a NUL
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def _copy_to(folder):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "m16n8k256.yaml")
    shutil.copy(os.path.join(SPECS, "m16n8k256.yaml"), path)
    return path


def _python_runs_clean(path, tmp_path):
    """The module compiles and runs without printing anything (the payload would print)."""
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", (r.stdout, r.stderr)


@pytest.mark.parametrize("brk", BREAKS)
def test_a_path_with_a_line_break_stays_in_the_comment(run, tmp_path, brk):
    folder = str(tmp_path / f"inj{brk}print('INJECTED'){brk}#")
    spec = _copy_to(folder)
    for to in TARGETS:
        r = run("export", spec, "--fragment", "C.s32", "--to", to)
        assert r.code == 0, r.err
        assert "INJECTED" in r.out and (brk == "\n" or brk not in r.out), to  # said, escaped
        # splitlines breaks at every one of them: the payload is on comment lines only
        assert all(line.startswith(("#", "//")) for line in r.out.splitlines() if "INJECTED" in line), to
        if to in ("python", "triton"):
            out = tmp_path / f"out_{to}.py"
            out.write_text(r.out, encoding="utf-8")
            _python_runs_clean(out, tmp_path)


@pytest.mark.skipif(not os.environ.get("CHECKER_REQUIRE_CUDA") and shutil.which("g++") is None,
                    reason="no C++ compiler (.ci/run sets CHECKER_REQUIRE_CUDA: there a missing one fails)")
def test_a_cpp_comment_cannot_be_continued_onto_the_next_line(run, tmp_path):
    """A // line that ends in a backslash (or ??/ with trigraphs on) splices the next line into the
    comment: the header's lines never end so, whatever the path."""
    assert safe.comment("//", "a\\") == "// a\\x5c" and safe.comment("//", "a\\  ") == "// a\\x5c  "
    assert safe.comment("//", "a??/") == "// a??\\x2f" and safe.comment("#", "a\\") == "# a\\\\"
    assert safe.comment("//", "a\\b") == "// a\\\\b"
    folder = str(tmp_path / "x\\")
    spec = _copy_to(folder)
    r = run("export", spec, "--fragment", "C.s32", "--to", "cpp")
    assert r.code == 0, r.err
    (tmp_path / "h.h").write_text(r.out)
    (tmp_path / "m.cpp").write_text('#include "h.h"\nint main() { return ptx_fragments::m16n8k256::C_s32::row(0, 0); }\n')
    for std in ("-std=c++17", "-std=c++11"):  # c++11: trigraphs on
        subprocess.run(["g++", std, "-Wall", "-Werror", str(tmp_path / "m.cpp"), "-o", str(tmp_path / "a.out")],
                       check=True, capture_output=True, text=True, timeout=120)


def test_text_escapes_what_is_not_printable_and_the_quote_of_a_docstring():
    for brk in BREAKS + ["\x00", "\x01", "\x7f", "\u202e", "\udcff", "\t"]:
        assert len(safe.text("a" + brk + "b").splitlines()) == 1 and brk not in safe.text("a" + brk + "b")
    assert safe.text("é ü ×") == "é ü ×"  # printable text stays as it is
    doc = safe.docstring('x"""\\N{y}\n')
    assert eval(compile(doc, "d", "eval")) == 'x"""\\N{y}\n'  # one line that reads back as the text


# formula names that are keywords or macros in the one language or the other, a name C++ reserves
# to the implementation, names the exported code uses, and `class_`, which the renamed `class`
# must not take
HOSTILE = ["class", "class_", "unsigned", "int", "template", "lambda", "None", "not", "or", "NULL", "linux",
           "__FILE__", "_Pragma", "laneid", "PTX_FRAGMENT_HD", "floor_div", "typeof", "match"]


def _keyword_spec(tmp_path):
    text = open(os.path.join(SPECS, "m16n8k256.yaml")).read()
    old = "          groupID           = %laneid >> 2\n          threadID_in_group = %laneid % 4\n\n          row =        groupID"
    assert old in text
    chain, prev = [], "%laneid >> 2"
    for name in HOSTILE:
        chain.append(f"          {name} = {prev}\n")
        prev = name
    new = "".join(chain) + f"          groupID           = {prev}\n          threadID_in_group = %laneid % 4\n\n          row =        groupID"
    path = tmp_path / "kw" / "m16n8k256.yaml"
    path.parent.mkdir()
    path.write_text(text.replace(old, new))
    return str(path)


def test_keyword_names_are_renamed_and_the_python_export_compiles_and_agrees(run, tmp_path):
    spec = _keyword_spec(tmp_path)
    assert run("prove", spec).code == 0
    r = run("export", spec, "--fragment", "C.s32", "--to", "python")
    assert r.code == 0, r.err
    compile(r.out, "kw.py", "exec")
    # `class` takes a name no other uses, `class_` (legal) stays, and so do Python's legal names
    assert "    class_2 = (laneid >> 2)\n    class_ = class_2\n" in r.out and "    laneid_ = _Pragma\n" in r.out
    assert "    int = " in r.out and "    match = " in r.out and "    linux = " in r.out  # legal in Python
    namespace = {}
    exec(compile(r.out, "kw.py", "exec"), namespace)
    plain = run("export", os.path.join(SPECS, "m16n8k256.yaml"), "--fragment", "C.s32", "--to", "python")
    want = {}
    exec(compile(plain.out, "plain.py", "exec"), want)
    for lane in range(32):
        for i in range(4):
            assert (namespace["row"](lane, i), namespace["col"](lane, i)) == (want["row"](lane, i), want["col"](lane, i))


@pytest.mark.skipif(not os.environ.get("CHECKER_REQUIRE_CUDA") and shutil.which("g++") is None,
                    reason="no C++ compiler (.ci/run sets CHECKER_REQUIRE_CUDA: there a missing one fails)")
def test_keyword_names_are_renamed_and_the_cpp_export_compiles_and_agrees(run, tmp_path):
    spec = _keyword_spec(tmp_path)
    r = run("export", spec, "--fragment", "C.s32", "--to", "cpp")
    assert r.code == 0, r.err
    assert "const int class_2 = (laneid >> 2);" in r.out and "const int v_FILE_ = linux_;" in r.out
    (tmp_path / "kw.h").write_text(r.out)
    plain = run("export", os.path.join(SPECS, "m16n8k256.yaml"), "--fragment", "C.s32", "--to", "cpp")
    (tmp_path / "plain.h").write_text(plain.out.replace("namespace m16n8k256", "namespace plain"))
    (tmp_path / "m.cpp").write_text(
        '#include <cstddef>\n#include <cstdio>\n#include <cassert>\n#include <climits>\n#include "kw.h"\n#include "plain.h"\n'
        "namespace K = ptx_fragments::m16n8k256::C_s32; namespace P = ptx_fragments::plain::C_s32;\n"
        "int main() {\n  for (int t = 0; t < 32; ++t) { for (int i = 0; i < 4; ++i) {\n"
        "    if (K::row(t, i) != P::row(t, i) || K::col(t, i) != P::col(t, i)) return 1; } }\n  return 0;\n}\n")
    for std in ("-std=c++20", "-std=gnu++17"):  # gnu++: linux and unix are macros
        subprocess.run(["g++", std, "-Wall", "-Wextra", "-Werror", str(tmp_path / "m.cpp"), "-o", str(tmp_path / "a.out")],
                       check=True, capture_output=True, text=True, timeout=120)
        assert subprocess.run([str(tmp_path / "a.out")], timeout=60).returncode == 0


def test_the_fixed_keyword_list_holds_every_keyword_of_this_python():
    assert set(keyword.kwlist) <= safe.PYTHON_KEYWORDS


def test_renaming_is_consistent_and_takes_no_name_in_use():
    names = safe.Names(["class", "class_", "class_2", "x", "__y"], "cpp", ["x_of"])
    assert names("x") == "x" and names("class_") == "class_" and names("class") == "class_3"
    assert names("__y") == "v_y" and names.functions["x_of"] == "x_of"
    assert safe.Names(["x_of"], "python", ["x_of"]).functions["x_of"] == "x_of_"  # the document's name wins
    assert safe.identifier("16x", "cpp") == "n16x" and safe.identifier("class", "cpp") == "class_"
    assert safe.identifier("ü.ä", "cpp") == "___" or safe.identifier("ü.ä", "cpp").isascii()
    # a wgmma instance's closing bracket left a trailing underscore in its namespace
    assert safe.identifier("D.float[N=64]", "cpp") == "D_float_N_64" and safe.identifier("A.sp.f16", "cpp") == "A_sp_f16"


def test_a_map_that_is_not_a_bijection_is_refused_at_its_piece_in_words(run, tmp_path):
    """A spec edit that makes A.f16 hold A[0][0] twice is not exported to any target; the refusal
    says which two points clash, at the piece the prover's message blames, as `prove` says it (it
    printed the witness's Python repr, `Pair(lane=0, ...)`, at the fragment's line)."""
    path = tmp_path / "m16n8k8.yaml"
    text = open(os.path.join(SPECS, "m16n8k8.yaml"), encoding="utf-8").read()
    line = "col =  threadID_in_group * 2 + (i & 0x1)    for ai     where i = {0,..,3}"
    assert text.count(line) == 1
    path.write_text(text.replace(line, line.replace("0x1", "0x0")), encoding="utf-8")
    for to in TARGETS:
        r = run("export", str(path), "--fragment", "A.f16", "--to", to)
        assert r.code == 1 and r.out == "", (to, r.out)
        assert (f"{path}:29:18: A.f16 is not injective: lane 0 a0 and lane 0 a1 both hold A[0][0]; "
                "`checker prove` it first") in r.err, r.err
        assert "Pair(" not in r.err
