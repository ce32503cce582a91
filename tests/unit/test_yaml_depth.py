"""The nesting limit says the same thing whichever libyaml finds a file too deep: 0.2.5 hands
the events to check_depth, 0.2.6 (PyYAML 6.0.4's wheels) stops at 1000 levels in its own
scanner, which reads ahead inside a flow collection."""
import pytest
import yaml

from checker.errors import SpecError
from checker.spec import yamlload


class _Stops:
    """A parser that meets libyaml 0.2.6's limit, or another scanner error, at line 4 column 1013."""

    def __init__(self, problem):
        self.problem = problem

    def __call__(self, text):
        return self

    def get_event(self):
        mark = yaml.Mark("m8n8k32.yaml", 0, 3, 1012, None, None)
        raise yaml.scanner.ScannerError("while increasing flow level", mark, self.problem, mark)

    def dispose(self):
        pass


def test_libyaml_limit_reads_as_ours(monkeypatch):
    monkeypatch.setattr(yamlload, "_Loader", _Stops("exceeded maximum nesting depth"))
    with pytest.raises(SpecError) as got:
        yamlload.check_depth("notes: [[[", "m8n8k32.yaml")
    assert got.value.message == f"YAML nesting deeper than {yamlload.MAX_DEPTH}"
    assert (got.value.span.line, got.value.span.col) == (4, 1013)


def test_other_scanner_errors_pass_through(monkeypatch):
    monkeypatch.setattr(yamlload, "_Loader", _Stops("found character '\\t' that cannot start any token"))
    with pytest.raises(yaml.scanner.ScannerError):
        yamlload.check_depth("a: b", "m8n8k32.yaml")


def test_real_deep_flow_is_refused_at_its_line():
    text = "notes: [it's, " + "[" * 2000 + "]" * 2000 + "]\n"
    with pytest.raises(SpecError) as got:
        yamlload.check_depth(text, "m8n8k32.yaml")
    assert got.value.message == f"YAML nesting deeper than {yamlload.MAX_DEPTH}"
    assert got.value.span.line == 1
