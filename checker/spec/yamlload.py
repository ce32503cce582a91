"""Load untrusted YAML into plain values, remembering where every value came from.

Specs arrive in pull requests, so the loader only composes (never constructs objects), refuses
anchors/aliases, non-core tags, duplicate keys and several documents, and bounds size and depth
before PyYAML sees the text.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from checker.errors import SourceSpan, SpecError

MAX_BYTES = 256 * 1024
MAX_DEPTH = 32

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "bool", "null", "float")}


@dataclass
class Document:
    """A loaded YAML file: its plain value and the node behind every JSON path."""

    path: str
    text: str
    value: object
    nodes: dict = field(default_factory=dict)  # path tuple -> yaml node
    key_nodes: dict = field(default_factory=dict)  # path tuple -> the key's node

    def span(self, path: tuple, key: bool = False) -> SourceSpan:
        """Where the value (or its key) at `path` starts; the closest enclosing node otherwise."""
        table = self.key_nodes if key else self.nodes
        while path not in table and path:
            path = path[:-1]
        node = table.get(path) or self.nodes.get(path)
        if node is None:
            return SourceSpan(self.path, 1, 1)
        return SourceSpan(self.path, node.start_mark.line + 1, node.start_mark.column + 1)


def _flow_depth(text: str) -> int:
    """Bracket depth outside quotes: a cheap guard against nesting that would exhaust the stack."""
    depth = best = 0
    quote = None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "\n":
            quote = None
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return best


def load(path: str, data: bytes | None = None) -> Document:
    if data is None:
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise SpecError(SourceSpan(path, 1, 1), f"cannot read file: {exc.strerror}") from None
    where = SourceSpan(path, 1, 1)
    if len(data) > MAX_BYTES:
        raise SpecError(where, f"file is larger than {MAX_BYTES} bytes")
    if b"\x00" in data:
        raise SpecError(where, "file is binary (it contains NUL bytes), expected YAML text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(where, f"file is not UTF-8 text (byte {exc.start})") from None
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        raise SpecError(where, "file is empty, expected a spec mapping")
    if _flow_depth(text) > MAX_DEPTH:
        raise SpecError(where, f"YAML nesting deeper than {MAX_DEPTH}")
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = SourceSpan(path, mark.line + 1, mark.column + 1) if mark else where
        raise SpecError(span, f"invalid YAML: {exc.problem or exc.context}") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise SpecError(where, f"invalid YAML: {type(exc).__name__}") from None
    if len(nodes) != 1:
        raise SpecError(where, f"expected exactly one YAML document, found {len(nodes)}")
    doc = Document(path, text, None)
    doc.value = _convert(doc, nodes[0], (), set(), 0)
    return doc


def _span(doc: Document, node) -> SourceSpan:
    return SourceSpan(doc.path, node.start_mark.line + 1, node.start_mark.column + 1)


def _convert(doc: Document, node, path: tuple, seen: set, depth: int):
    if depth > MAX_DEPTH:
        raise SpecError(_span(doc, node), f"YAML nesting deeper than {MAX_DEPTH}")
    if id(node) in seen:
        raise SpecError(_span(doc, node), "YAML anchors and aliases are not allowed in specs")
    seen.add(id(node))
    doc.nodes[path] = node
    if isinstance(node, yaml.MappingNode):
        if node.tag != _CORE + "map":
            raise SpecError(_span(doc, node), f"YAML tag {node.tag!r} is not allowed")
        out = {}
        for knode, vnode in node.value:
            if isinstance(knode, yaml.ScalarNode) and knode.value == "<<":
                raise SpecError(_span(doc, knode), "YAML merge keys ('<<') are not allowed in specs")
            if not isinstance(knode, yaml.ScalarNode) or knode.tag != _CORE + "str":
                raise SpecError(_span(doc, knode), "mapping keys must be plain strings")
            if knode.value in out:
                raise SpecError(_span(doc, knode), f"duplicate key {knode.value!r}")
            doc.key_nodes[path + (knode.value,)] = knode
            out[knode.value] = _convert(doc, vnode, path + (knode.value,), seen, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        if node.tag != _CORE + "seq":
            raise SpecError(_span(doc, node), f"YAML tag {node.tag!r} is not allowed")
        return [_convert(doc, v, path + (k,), seen, depth + 1) for k, v in enumerate(node.value)]
    if node.tag not in _SCALAR_TAGS:
        raise SpecError(_span(doc, node), f"YAML tag {node.tag!r} is not allowed")
    try:
        return _SCALARS.construct_object(node)
    except (yaml.YAMLError, ValueError, OverflowError):
        raise SpecError(_span(doc, node), f"cannot read scalar {node.value[:40]!r}") from None


_SCALARS = yaml.constructor.SafeConstructor()
