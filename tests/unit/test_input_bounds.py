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
