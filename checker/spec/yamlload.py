"""Load untrusted YAML into plain values, remembering where every value came from.

Specs arrive in pull requests, so the loader only composes (never constructs objects), refuses
anchors/aliases, non-core tags, duplicate keys and several documents, and bounds size and depth
before PyYAML composes the text: a regular file of at most MAX_BYTES (checker.bounded), nesting
counted on the parser's flat event stream (check_depth). Nothing else composes untrusted YAML.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from checker.bounded import shown
from checker.errors import SourceSpan, SpecError
from checker.recording import read_regular  # checker.bounded's, recorded for the cache

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
        return _at(self.path, node.start_mark)


_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def check_depth(text: str, path: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before anything composes the text into nodes.

    libyaml's composer recurses once per level of nesting, and a 200 KB file (`- - - - ... x`,
    or `[[[[...` anywhere a bracket is not what it seems) overflows the C stack. Its parser does
    not recurse: it hands out a flat stream of events, so counting the collections opened and
    closed there is exact (quotes, block and flow styles, comments are the parser's business)
    and stops at the first level too deep, having read only that far."""
    loader = _Loader(text)
    depth = 0
    try:
        while True:
            try:
                event = loader.get_event()
            except yaml.MarkedYAMLError as exc:
                # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1000 levels itself: in a flow
                # collection its scanner reads ahead, so that limit is met before the 33rd level
                # reaches this loop. The same finding, in the same words, wherever it is made.
                if "nesting depth" not in (exc.problem or ""):
                    raise
                raise SpecError(_at(path, exc.problem_mark or exc.context_mark),
                                f"YAML nesting deeper than {MAX_DEPTH}") from None
            if event is None:
                return
            if isinstance(event, _OPEN):
                depth += 1
                if depth > MAX_DEPTH:
                    raise SpecError(_at(path, event.start_mark), f"YAML nesting deeper than {MAX_DEPTH}")
            elif isinstance(event, _CLOSE):
                depth -= 1
    finally:
        loader.dispose()


def load(path: str, data: bytes | None = None) -> Document:
    if data is None:
        data = read_regular(path, MAX_BYTES)  # a regular file, at most MAX_BYTES: before anything else
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
    try:
        check_depth(text, path)  # before composing: the composer recurses
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        raise SpecError(_at(path, exc.problem_mark or exc.context_mark),
                        f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow: no mark, but which one
        raise SpecError(_unacceptable(path, text, exc), f"invalid YAML: unacceptable character "
                        f"#x{exc.character:04X}: {exc.reason}", "remove it, or write it as an escape in a "
                        "double-quoted string") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise SpecError(where, f"invalid YAML: {type(exc).__name__}") from None
    if len(nodes) != 1:
        raise SpecError(where, f"expected exactly one YAML document, found {len(nodes)}")
    doc = Document(path, text, None)
    doc.value = _convert(doc, nodes[0], (), set(), 0)
    return doc


def _unacceptable(path: str, text: str, exc) -> SourceSpan:
    """Where the character a ReaderError names stands. The reader stops at its first one, so that
    is the first occurrence in the text (libyaml's `position` counts UTF-8 bytes, PyYAML's
    characters: the character itself is the one reliable clue)."""
    off = text.find(chr(exc.character)) if isinstance(exc.character, int) else -1
    if off < 0:
        return SourceSpan(path, 1, 1)
    line_start = text.rfind("\n", 0, off) + 1
    return SourceSpan(path, text.count("\n", 0, off) + 1, off - line_start + 1)


def _at(path: str, mark) -> SourceSpan:
    """A YAML mark (0-based) as a place in the file; its start where there is none."""
    return SourceSpan(path, mark.line + 1, mark.column + 1) if mark else SourceSpan(path, 1, 1)


def _span(doc: Document, node) -> SourceSpan:
    return _at(doc.path, node.start_mark)


def _convert(doc: Document, node, path: tuple, seen: set, depth: int):
    if depth > MAX_DEPTH:
        raise SpecError(_span(doc, node), f"YAML nesting deeper than {MAX_DEPTH}")
    if id(node) in seen:
        raise SpecError(_span(doc, node), "YAML anchors and aliases are not allowed in specs")
    seen.add(id(node))
    doc.nodes[path] = node
    if isinstance(node, yaml.MappingNode):
        if node.tag != _CORE + "map":
            raise SpecError(_span(doc, node), f"YAML tag {shown(node.tag)} is not allowed")
        out = {}
        for knode, vnode in node.value:
            if isinstance(knode, yaml.ScalarNode) and knode.value == "<<":
                raise SpecError(_span(doc, knode), "YAML merge keys ('<<') are not allowed in specs")
            if not isinstance(knode, yaml.ScalarNode) or knode.tag != _CORE + "str":
                raise SpecError(_span(doc, knode), "mapping keys must be plain strings")
            if knode.value in out:
                raise SpecError(_span(doc, knode), f"duplicate key {shown(knode.value)}")
            doc.key_nodes[path + (knode.value,)] = knode
            out[knode.value] = _convert(doc, vnode, path + (knode.value,), seen, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        if node.tag != _CORE + "seq":
            raise SpecError(_span(doc, node), f"YAML tag {shown(node.tag)} is not allowed")
        return [_convert(doc, v, path + (k,), seen, depth + 1) for k, v in enumerate(node.value)]
    if node.tag not in _SCALAR_TAGS:
        raise SpecError(_span(doc, node), f"YAML tag {shown(node.tag)} is not allowed")
    try:
        return _SCALARS.construct_object(node)
    except (yaml.YAMLError, ValueError, OverflowError):
        raise SpecError(_span(doc, node), f"cannot read scalar {shown(node.value, 40)}") from None


_SCALARS = yaml.constructor.SafeConstructor()
