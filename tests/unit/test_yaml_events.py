"""The YAML loader builds values and nodes from the parser's events, in one pass, instead of
counting the nesting on the events and then composing and converting: it is held to PyYAML's own
composer and constructor, which it replaced. On every YAML file of the repository and on random
texts: what it accepts has PyYAML's value, and every node PyYAML composes has the same mark, style
and tag; what PyYAML cannot compose it refuses as invalid YAML, in PyYAML's words; and the findings
come in the composer's order (the parser's errors, then the composer's, then the count of
documents, then the first refusal in document order)."""
import glob
import os

import pytest
import yaml
from hypothesis import example, given, settings, strategies as st

from checker.errors import SpecError
from checker.spec import yamlload

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = sorted(p for p in glob.glob(os.path.join(ROOT, "**", "*.yaml"), recursive=True)
               if os.sep + ".venv" + os.sep not in p)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _composed(node, path=(), out=None):
    """path -> (line, column, style, tag, value where a scalar) of PyYAML's composed nodes."""
    out = {} if out is None else out
    out[path] = (node.start_mark.line, node.start_mark.column, getattr(node, "style", None) if
                 isinstance(node, yaml.ScalarNode) else None, node.tag,
                 node.value if isinstance(node, yaml.ScalarNode) else None)
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _composed(v, path + (k.value,), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _composed(v, path + (i,), out)
    return out


def _ours(doc) -> dict:
    return {p: (n.start_mark.line, n.start_mark.column, n.style if isinstance(n, yaml.ScalarNode) else None,
                n.tag, n.value if isinstance(n, yaml.ScalarNode) else None) for p, n in doc.nodes.items()}


def _same_as_pyyaml(text: str, tmp_path=None):
    data = text.encode()
    try:
        doc = yamlload.load("x.yaml", data)
    except SpecError as exc:
        if exc.message.startswith("invalid YAML: ") and "unacceptable character" not in exc.message:
            with pytest.raises(yaml.MarkedYAMLError) as theirs:
                list(yaml.parse(text, Loader=_LOADER))  # the parser's errors first: the whole stream
                list(yaml.compose_all(text, Loader=_LOADER))
            e = theirs.value
            mark = e.problem_mark or e.context_mark
            assert exc.message == f"invalid YAML: {e.problem or e.context}"
            assert (exc.span.line, exc.span.col) == (mark.line + 1, mark.column + 1)
        return None
    node = yaml.compose(text, Loader=_LOADER)
    assert doc.value == yaml.load(text, Loader=_LOADER)
    assert _ours(doc) == _composed(node)
    return doc


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_yaml_file_of_the_repository_loads_as_pyyaml_composes_it(path):
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # a bad case: refused before any YAML is read
        with pytest.raises(SpecError, match="not UTF-8"):
            yamlload.load(path, data)
        return
    doc = _same_as_pyyaml(text)
    if doc is not None:  # and every key's mark is the key's
        for p, key in doc.key_nodes.items():
            assert text.splitlines()[key.start_mark.line][key.start_mark.column:].lstrip("'\"").startswith(p[-1])


_WORDS = ["a", "b", "key", "1", "0x1F", "-2", "1.5", "1e3", "true", "no", "null", "~", "''", '"q"', "<<",
          "&x", "*x", "&y", "*y", "!!str", "!!int", "!!map", "!!seq", "!!binary", "!foo", "---", "...",
          "[", "]", "{", "}", ",", ":", ": ", "- ", "? ", "|", ">", "#c", "\n", "\n  ", "\n- ", "\n  - ", " "]


# text, the finding, where (line, col): each one also an example of the random test below
FINDINGS = [
    ("a: &x 1\nb: *x\n", "YAML anchors and aliases are not allowed in specs", (1, 4)),
    ("a: *x\n", "invalid YAML: found undefined alias", (1, 4)),
    ("a: &x 1\nb: &x 2\n", "invalid YAML: second occurrence", (2, 4)),
    ("a: 1\na: 2\n--- b\n", "expected exactly one YAML document, found 2", (1, 1)),
    ("--- &x a\n--- &x b\n", "expected exactly one YAML document, found 2", (1, 1)),
    ("--- &x a\n--- *x\n", "invalid YAML: found undefined alias", (2, 5)),
    ("a: !!binary x\nb: *z\n", "invalid YAML: found undefined alias", (2, 4)),
    ("a: !!binary x\nb: [1\n", "invalid YAML: did not find expected ',' or ']'", (3, 1)),
    ("a: 1\nb: 2\na: 3\n", "duplicate key 'a'", (3, 1)),
    ("? [a]\n: 1\n", "mapping keys must be plain strings", (1, 3)),
    ("1: a\n", "mapping keys must be plain strings", (1, 1)),
    ("<<: {a: 1}\n", "YAML merge keys ('<<') are not allowed in specs", (1, 1)),
    ("- 1\n- !!int x\n", "cannot read scalar 'x' as !!int", (2, 3)),
    ("a: !!int\n", "cannot read scalar '' as !!int", (1, 4)),  # raised IndexError, a traceback, before
    ("a: !!bool\n", "cannot read scalar '' as !!bool", (1, 4)),  # KeyError
    ("a: !!float 1.5x\n", "cannot read scalar '1.5x' as !!float", (1, 4)),
    ("a: !!set {b}\n", "YAML tag 'tag:yaml.org,2002:set' is not allowed", (1, 4)),
    ("a:\n" + "".join("  " * k + "- \n" for k in range(1, 40)), f"YAML nesting deeper than {yamlload.MAX_DEPTH}", None),
]


def _with_examples(test):
    for text, _, _ in FINDINGS:
        test = example(text)(test)
    return example("!!int")(test)  # an empty scalar PyYAML's int constructor indexes: a refusal, not an IndexError


@settings(max_examples=400, deadline=2000)
@given(st.lists(st.sampled_from(_WORDS), max_size=24).map("".join))
@_with_examples
def test_random_texts_load_as_pyyaml_composes_them(text):
    _same_as_pyyaml(text)


@pytest.mark.parametrize("text, message, at", FINDINGS)
def test_the_findings_in_the_composers_order(text, message, at):
    with pytest.raises(SpecError) as got:
        yamlload.load("x.yaml", text.encode())
    assert got.value.message == message
    if at is not None:
        assert (got.value.span.line, got.value.span.col) == at
