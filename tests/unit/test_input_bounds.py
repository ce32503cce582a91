"""Hostile inputs that are small on disk but were costly to reject: each is refused with work
bounded by a limit, not by the input's size (docs/threat-model.md). Small inputs here; the
assertions show the bound (the message naming it, or how many errors were ever built)."""
import gzip

import pytest

from checker.errors import SpecError


@pytest.fixture
def built(monkeypatch):
    """How many jsonschema errors were constructed: the explanation's cost."""
    from jsonschema.exceptions import ValidationError

    count = [0]
    init = ValidationError.__init__

    def counting(self, *args, **kwargs):
        count[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(ValidationError, "__init__", counting)
    return count


def _gz(tmp_path, name, raw: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(gzip.compress(raw))
    return str(path)


def test_a_dump_of_many_values_is_refused_before_it_is_parsed(tmp_path):
    from checker.probe import dump, wgmma_dump

    raw = b'{"format":"ptx-fragment-checker/probe-dump","version":1,"patterns":[' + b"0," * 20000 + b"0]}"
    with pytest.raises(SpecError, match="more than 16384 JSON values"):
        dump.read(_gz(tmp_path, "m8n8k32.x.dump.json.gz", raw))
    raw = b'{"format":"ptx-fragment-checker/wgmma-dump","version":1,"blocks":[' + b"{}," * 20000 + b"{}]}"
    with pytest.raises(SpecError, match="more than 16384 JSON values"):
        wgmma_dump.read(_gz(tmp_path, "m64n8k256.x.wgmma.json.gz", raw))


def test_an_invalid_dump_is_explained_from_a_bounded_few_errors(tmp_path, built):
    from checker.probe import dump
    from checker.spec.validation import MAX_EXPLAINED

    raw = b'{"format":"ptx-fragment-checker/probe-dump","version":1,"patterns":[' + b"0," * 5000 + b"0]}"
    with pytest.raises(SpecError, match=r"at the top: '\w+' is a required property"):
        dump.read(_gz(tmp_path, "m8n8k32.x.dump.json.gz", raw))
    assert built[0] <= MAX_EXPLAINED


@pytest.mark.parametrize("body", ["sections: [" + "{}, " * 3000 + "{}]",
                                  "parameters: {N: [" + "{}, " * 3000 + "{}]}"])
def test_an_invalid_spec_is_explained_from_a_bounded_few_errors(tmp_path, run, built, body):
    """A long list of wrong items (under a oneOf too, whose branches jsonschema explains in full)."""
    path = tmp_path / "m16n8k16.yaml"
    path.write_text("schema: ptx-fragment-checker/1\nshape: m16n8k16\n" + body + "\n")
    r = run("validate", str(path))
    assert r.code == 3 and ":1:1: error:" in r.out + r.err
    assert built[0] < 500, built[0]


# -- input errors that were tracebacks -----------------------------------------------------------

def test_a_reference_layout_that_is_a_list_is_a_located_error(run, tmp_path):
    from conftest import ROOT, SPECS

    src = open(f"{ROOT}/checker/references/data/cutlass-mma_traits_sm75.yaml").read()
    printed = '"Layout<Shape <Shape < _4,_8>,Shape < _2,_2>>, Stride<Stride<_32,_1>,Stride<_16,_8>>>"'
    assert printed in src
    path = tmp_path / "cutlass-mma_traits_sm75.yaml"
    path.write_text(src.replace(printed, "[1, 2]", 1))
    line = src[:src.index(printed)].count("\n") + 1
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 3 and f"{path}:{line}:" in r.err and "expected a string, found a list" in r.err


def test_from_node_refuses_a_node_that_is_not_text():
    import yaml

    from checker.source import from_node

    node = yaml.compose("a: [1, 2]\n").value[0][1]
    with pytest.raises(SpecError, match=r"f\.yaml:1:4: error: expected text"):
        from_node(node, "a: [1, 2]\n", "f.yaml")


@pytest.mark.parametrize("dtype", [[], {}, None, "u16"])
def test_an_array_whose_dtype_is_not_a_name_is_a_malformed_dump(dtype):
    from checker.probe.dump import decode_array

    with pytest.raises(SpecError, match=r"d\.gz:1:1: error: at arrays\.image: expected \{dtype: u8 \| u32"):
        decode_array("d.gz", "image", {"dtype": dtype, "shape": [1], "data": "AA=="})


def test_triton_json_nesting_is_counted_before_it_is_parsed(run, tmp_path):
    from conftest import SPECS

    deep = tmp_path / "deep.json"
    deep.write_text('{"lane_bases": ' + "[" * 100000 + "]" * 100000 + "}")
    r = run("compare", f"{SPECS}/m16n8k16.yaml", "--fragment", "A.f16", "--triton", str(deep))
    assert r.code == 3 and f"{deep}:1:47: error: JSON nested more than 32 deep" in r.err
    # brackets inside a string are not nesting; the export's `name=[...]` lines are counted too
    ok = tmp_path / "ok.json"
    ok.write_text('{"shape": "' + "[" * 40 + '", "lane": [[0, 1]], "register": [[1, 0]]}')
    assert "nested" not in run("compare", f"{SPECS}/m16n8k16.yaml", "--fragment", "A.f16", "--triton", str(ok)).err
    text = tmp_path / "bases.py"
    text.write_text("layout = dict(\n  lane_bases=" + "[" * 50 + "]" * 50 + ",\n)\n")
    r = run("compare", f"{SPECS}/m16n8k16.yaml", "--fragment", "A.f16", "--triton", str(text))
    assert r.code == 3 and f"{text}:2:" in r.err and "nested more than 32 deep" in r.err


@pytest.mark.parametrize("name, body, says", [
    # 50,000 escaped quotes in a string left open: every quote had been scanned to the end (38 s
    # here; the 4 MB a file may hold, hours)
    ("open.json", '{"' + '\\"' * 50000, ":1:2: error: not JSON: Unterminated string"),
    ("open.txt", "lane_bases=[\"" + '\\"' * 50000, ":1:13: error: lane_bases: not a list of [row, col] bases"),
    # 60,000 keys: the text had been searched once for each (12 s) before the first was refused
    ("keys.json", "{" + ",".join(f'"k{i}": 0' for i in range(60000)) + "}", ":1:2: error: unknown key 'k0'"),
])
def test_a_triton_file_is_refused_in_time_bounded_by_its_size(run, tmp_path, name, body, says):
    import time

    from conftest import SPECS

    path = tmp_path / name
    path.write_text(body)
    t0 = time.process_time()
    r = run("compare", f"{SPECS}/m16n8k16.yaml", "--fragment", "A.f16", "--triton", str(path))
    assert r.code == 3 and f"{path}{says}" in r.err, r.err
    assert time.process_time() - t0 < 4, "linear in the file's size: well under a second"


@pytest.mark.parametrize("body, at", [
    ('{"lane": [[' + "9" * 5000 + ", 0]]}", ":1:12:"),
    ('reg_bases=[[1, 0]]\nlane_bases=[[0, -' + "1" * 5000 + "]]\n", ":2:17:"),
])
def test_a_number_too_long_for_json_is_located_at_it(run, tmp_path, body, at):
    """json refuses an integer of more than 4300 digits with a ValueError that has no position: it
    was said at 1:1 (and in the export's form, at the line's list)."""
    from conftest import SPECS

    path = tmp_path / "bases.json"
    path.write_text(body)
    r = run("compare", f"{SPECS}/m16n8k16.yaml", "--fragment", "A.f16", "--triton", str(path))
    assert r.code == 3 and f"{path}{at} error: a number of more than 32 digits" in r.err, r.err


@pytest.mark.parametrize("body, at", [
    ('{\n  "lane": [[0, 1]],\n  "r\u00e9gister": [[1, 0]]\n}\n', ":3:3:"),  # written as itself: was said at 1:1
    ('{"lane": [[0, 1]], "r\\u00e9gister": 1}', ":1:20:"),  # escaped, as json.dumps writes it (found before too)
])
def test_an_unknown_key_of_a_triton_file_is_located_as_it_is_written(run, tmp_path, body, at):
    from conftest import SPECS

    path = tmp_path / "bases.json"
    path.write_text(body, encoding="utf-8")
    r = run("compare", f"{SPECS}/m16n8k16.yaml", "--fragment", "A.f16", "--triton", str(path))
    assert r.code == 3 and f"{path}{at} error: unknown key 'régister'" in r.err, r.err
