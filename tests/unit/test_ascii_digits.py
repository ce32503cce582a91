"""A number is written in ASCII digits wherever the checker reads one: Python's int() and
str.isdigit() also take Arabic-Indic '٨' and fullwidth '８' as 8, which the formula grammar
refuses; the CuTe parser, the CSV table and the integer options refuse them too, located."""
import os

import pytest

from conftest import SPECS

M16 = os.path.join(SPECS, "m16n8k16.yaml")
LAYOUT = "((4,{}),(2,2,2)):((32,1),(16,8,128))"


@pytest.mark.parametrize("digit", ["٨", "８", "𝟖"])
def test_cute_layout_takes_ascii_digits_only(run, digit):
    assert run("compare", M16, "--fragment", "A.f16", "--cute", LAYOUT.format(8)).code == 0
    r = run("compare", M16, "--fragment", "A.f16", "--cute", LAYOUT.format(digit))
    assert r.code == 3, r.out + r.err
    assert f"--cute:1:5: error: CuTe layout: expected an integer or '(', found {digit!r}" in r.err, r.err


@pytest.mark.parametrize("digit", ["٠", "０"])
def test_csv_table_takes_ascii_digits_only(run, tmp_path, digit):
    table = tmp_path / "t.csv"
    table.write_text(f"thread,i,row,col\n0,{digit},0,0\n", encoding="utf-8")
    r = run("compare", M16, "--fragment", "A.f16", "--table", str(table))
    assert r.code == 3 and f"{table}:2:3: error: i: expected an integer in 0..65535, found {digit!r}" in r.err, r.err


@pytest.mark.parametrize("argv,option,value", [
    (["table", os.path.join(SPECS, "m16n8k256.yaml")], "--band", "٣"),
    (["where", M16, "--fragment", "A.f16", "--col", "1"], "--row", "０"),
    (["eval", M16, "--fragment", "A.f16", "--i", "0"], "--lane", "٣"),
    (["simulate", M16], "--seed", "٣"),
    (["prove", M16], "--jobs", "２"),
    (["compare", os.path.join(SPECS, "m8n8k4.yaml"), "--fragment", "C.f32", "--cute", LAYOUT.format(8)],
     "--computation", "١"),
    (["where", os.path.join(SPECS, "m16n8k256.yaml"), "--fragment", "A.b1", "--row", "8", "--col", "0"],
     "--as-printed", "١"),
], ids=["band", "row", "lane", "seed", "jobs", "computation", "as-printed"])
def test_integer_options_take_ascii_digits_only(run, argv, option, value):
    """argparse's type=int took them; a usage error (exit 2) names the option and what it found."""
    r = run(*argv, option, value)
    assert r.code == 2, r.out + r.err
    assert option in r.err and repr(value) in r.err, r.err


@pytest.mark.parametrize("digits", [31, 5000])
def test_an_integer_option_too_long_says_so(run, digits):
    """31 ASCII digits were answered "expected an integer in ASCII digits 0-9", which they are."""
    r = run("where", M16, "--fragment", "A.f16", "--col", "1", "--row", "9" * digits)
    assert r.code == 2 and "--row" in r.err and "ASCII" not in r.err, r.err
    assert f"has {digits} digits; no option here takes a number of more than 30" in r.err, r.err
    r = run("where", M16, "--fragment", "A.f16", "--col", "1", "--row", "-" + "9" * 30)
    assert r.code == 2 and "digits" not in r.err, r.err  # 30 digits are read, and the row is out of range


def test_no_option_of_any_command_is_parsed_by_int():
    """`where --as-printed` kept argparse's type=int after the others moved to `integer`, and
    answered `--as-printed ١` as erratum 1: every option of every command is looked at here."""
    import argparse

    from checker.cli import _parser

    def actions(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from actions(sub)
            else:
                yield parser.prog, action

    assert [f"{prog} {a.option_strings}" for prog, a in actions(_parser()) if a.type is int] == []


def test_other_numbers_read_from_the_command_line_take_ascii_digits_only(run):
    """--arch sm_٩٠ was assembled for sm_90; a fragment's [N=٦٤] was read as N = 64."""
    r = run("probe", M16, "--compile-only", "--arch", "sm_٩٠")
    assert r.code == 2 and "--arch takes targets like sm_80,sm_90, not 'sm_٩٠'" in r.err, r.err
    r = run("where", os.path.join(SPECS, "m64nNk16.yaml"), "--fragment", "D.float[N=٦٤]", "--row", "0", "--col", "0")
    assert r.code == 2 and "has no fragment 'D.float[N=٦٤]'" in r.err and "no instance at N=64" not in r.err, r.err


def test_a_set_in_an_element_list_takes_ascii_digits_only(run, tmp_path):
    """`N = 8*i where i = {1, 2, ... , ٣٢}` in a wgmma Elements cell: refused at the set, as the
    formula grammar refuses the digit."""
    lines = open(os.path.join(SPECS, "m64nNk16.yaml"), encoding="utf-8").read().split("\n")
    at = next(k for k, ln in enumerate(lines) if "i = {1, 2, ... , 32}" in ln)
    lines[at] = lines[at].replace("i = {1, 2, ... , 32}", "i = {1, 2, ... , ٣٢}")
    spec = tmp_path / "m64nNk16.yaml"
    spec.write_text("\n".join(lines), encoding="utf-8")
    r = run("validate", str(spec))
    assert r.code == 3 and r.err.startswith(f"{spec}:{at + 1}:") and "found {1, 2, ... , ٣٢}" in r.err, r.err
