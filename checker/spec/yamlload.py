"""Load untrusted YAML into plain values, remembering where every value came from.

Specs arrive in pull requests, so the loader never constructs objects (only the core scalars:
strings, integers, booleans, null, floats), refuses anchors/aliases, non-core tags, duplicate keys
and several documents, and bounds size and depth: a regular file of at most MAX_BYTES
(checker.bounded), nesting counted on the parser's flat event stream. The values and their nodes
are built from that stream in one pass (_Builder), with the findings PyYAML's composer would make,
in its order: counting the nesting on the events, then composing, then converting the nodes took
89 ms for the 41 spec and reference files a catalogue proof reads, this pass 59-64 ms (medians of 12).
Nothing else reads untrusted YAML.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from checker.bounded import shown
from checker.errors import SourceSpan, SpecError
from checker.recording import read_regular  # checker.bounded's, recorded for the cache
from checker import positions

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


def _events(text: str, path: str):
    """The parser's flat stream of events, refused at the first level of nesting deeper than
    MAX_DEPTH. libyaml's composer recurses once per level of nesting, and a 200 KB file
    (`- - - - ... x`, or `[[[[...` anywhere a bracket is not what it seems) overflows the C stack;
    its parser does not recurse, so nothing here composes: the values are built from these events,
    and the nesting is counted on them (quotes, block and flow styles, comments are the parser's
    business)."""
    loader = _Loader(text)
    depth = 0
    try:
        while True:
            try:
                event = loader.get_event()
            except yaml.MarkedYAMLError as exc:
                # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1000 levels itself: in a flow
                # collection its scanner reads ahead, so that limit is met before the 33rd level
                # reaches the count. The same finding, in the same words, wherever it is made.
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
            yield event
    finally:
        loader.dispose()


def check_depth(text: str, path: str) -> None:
    """The nesting bound alone, without building anything: read as far as the first level too deep."""
    for _ in _events(text, path):
        pass


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
        before = data[:exc.start].decode("utf-8")  # all that precedes the first bad byte decodes
        raise SpecError(SourceSpan(path, *positions.place(before, len(before))),
                        f"file is not UTF-8 text (byte {exc.start})") from None
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        raise SpecError(where, "file is empty, expected a spec mapping")
    doc = Document(path, text, None)
    try:
        doc.value = _Builder(doc).build()
    except yaml.MarkedYAMLError as exc:
        raise SpecError(_at(path, exc.problem_mark or exc.context_mark),
                        f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow: no mark, but which one
        raise SpecError(_unacceptable(path, text, exc), f"invalid YAML: unacceptable character "
                        f"#x{exc.character:04X}: {exc.reason}", "remove it, or write it as an escape in a "
                        "double-quoted string") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise SpecError(where, f"invalid YAML: {type(exc).__name__}") from None
    return doc


class _Builder:
    """A document's plain values and nodes, built in one pass over the parser's events, with
    PyYAML's composer's findings in its order: the parser's errors (and the nesting limit,
    _events') where they stand in the stream; then the composer's (an undefined alias, an anchor defined twice);
    then the count of documents; then the first thing a spec may not say (a tag, an alias, a
    key that is not a plain string or is given twice, a scalar that does not read), in document
    order. Nodes are PyYAML's, so a node's mark, style and tag are what composing gives; a key's
    node is its event (its mark is all that is read of it)."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.anchors: dict = {}  # name -> the mark of the node that defines it
        self.composer = None  # the composer's first error
        self.refusal = None  # the first SpecError
        self.root = None
        # open collections: [value, path, node, is a mapping, the key awaiting its value or None];
        # None for one that is only read (after a refusal, or in a second document)
        self.stack: list = []

    def build(self):
        documents = 0
        stack, nodes = self.stack, self.doc.nodes
        building = False
        for event in _events(self.doc.text, self.doc.path):
            kind = type(event)
            if kind is yaml.ScalarEvent:
                if not building:
                    self.anchor(event)
                    continue
                frame = stack[-1] if stack else None
                if event.anchor is not None or event.tag is not None or frame is None:
                    building = self.node(event, kind, frame)
                elif frame[3] and frame[4] is None:
                    building = self.key(event, frame)
                else:
                    # the common case, inline: a string in a mapping or a sequence
                    tag = _resolve(event.value, event.implicit)
                    at = frame[1] + ((frame[4],) if frame[3] else (len(frame[0]),))
                    node = nodes[at] = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
                    if tag is not _STR:
                        building = self.scalar(event, tag, node, frame)
                    elif frame[3]:
                        frame[0][frame[4]] = event.value
                        frame[4] = None
                    else:
                        frame[0].append(event.value)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                if building:
                    building = self.node(event, kind, stack[-1] if stack else None)
                else:
                    self.anchor(event)
                    stack.append(None)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                frame = stack.pop()
                if frame is not None:
                    frame[2].end_mark = event.end_mark
            elif kind is yaml.AliasEvent:
                if building:
                    building = self.node(event, kind, stack[-1] if stack else None)
                else:
                    self.anchor(event)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                building = documents == 1 and self.refusal is None
                self.anchors = {}  # as the composer's: an anchor names a node of its own document
        if self.composer is not None:
            raise self.composer
        if documents != 1:
            raise SpecError(SourceSpan(self.doc.path, 1, 1), f"expected exactly one YAML document, found {documents}")
        if self.refusal is not None:
            raise self.refusal
        return self.root

    def anchor(self, event) -> bool:
        """Whether the event is an alias PyYAML would compose (its anchor defined before it); the
        composer's error where not."""
        if type(event) is yaml.AliasEvent:
            if event.anchor not in self.anchors:
                self.composed(yaml.composer.ComposerError(None, None, "found undefined alias", event.start_mark))
                return False
            return True
        if event.anchor is not None:
            if event.anchor in self.anchors:
                self.composed(yaml.composer.ComposerError("found duplicate anchor; first occurrence",
                                                          self.anchors[event.anchor], "second occurrence",
                                                          event.start_mark))
            else:
                self.anchors[event.anchor] = event.start_mark
        return False

    def composed(self, error):
        if self.composer is None:
            self.composer = error

    def refuse(self, mark, message: str) -> bool:
        """Records the first refusal; False: nothing more is built (the rest is only read)."""
        if self.refusal is None:
            self.refusal = SpecError(_at(self.doc.path, mark), message)
        return False

    def node(self, event, kind, frame) -> bool:
        """Any node: the root, an item, a mapping's key or value, with an anchor or a tag or not.
        False where it is refused."""
        if self.anchor(event):
            # the node its anchor names (an alias reads as that node met a second time)
            return self.refuse(self.anchors[event.anchor], "YAML anchors and aliases are not allowed in specs")
        if kind is yaml.AliasEvent:
            return self.refuse(event.start_mark, "YAML anchors and aliases are not allowed in specs")
        if frame is not None and frame[3] and frame[4] is None:
            if kind is not yaml.ScalarEvent:
                self.stack.append(None)
                return self.refuse(event.start_mark, "mapping keys must be plain strings")
            return self.key(event, frame)
        path = () if frame is None else frame[1] + ((frame[4],) if frame[3] else (len(frame[0]),))
        tag = event.tag
        if kind is yaml.ScalarEvent:
            tag = _resolve(event.value, event.implicit) if tag is None or tag == "!" else tag
            node = self.doc.nodes[path] = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                                          event.style)
            return self.scalar(event, tag, node, frame)
        mapping = kind is yaml.MappingStartEvent
        default = _CORE + ("map" if mapping else "seq")
        tag = default if tag is None or tag == "!" else tag
        node = self.doc.nodes[path] = (yaml.MappingNode if mapping else yaml.SequenceNode)(
            tag, [], event.start_mark, None, event.flow_style)
        if tag != default:
            self.stack.append(None)
            return self.refuse(event.start_mark, f"YAML tag {shown(tag)} is not allowed")
        value = {} if mapping else []
        self.place(frame, value)
        self.stack.append([value, path, node, mapping, None])
        return True

    def scalar(self, event, tag, node, frame) -> bool:
        if tag not in _SCALAR_TAGS:
            return self.refuse(event.start_mark, f"YAML tag {shown(tag)} is not allowed")
        if tag == _STR:
            value = event.value
        else:
            try:
                value = _SCALARS.yaml_constructors[tag](_SCALARS, node)
            except (yaml.YAMLError, ValueError, OverflowError, IndexError, KeyError):
                # `!!int` or `!!bool` on an empty scalar: PyYAML's constructors index its text
                # what the tag asked for, or the message says what was found but not what was expected
                return self.refuse(event.start_mark, f"cannot read scalar {shown(event.value, 40)} as "
                                   f"{tag.replace('tag:yaml.org,2002:', '!!')}")
        self.place(frame, value)
        return True

    def key(self, event, frame) -> bool:
        """A mapping's key: a plain string, not `<<`, given once."""
        tag = event.tag
        tag = _resolve(event.value, event.implicit) if tag is None or tag == "!" else tag
        if event.value == "<<":
            return self.refuse(event.start_mark, "YAML merge keys ('<<') are not allowed in specs")
        if tag != _STR:
            return self.refuse(event.start_mark, "mapping keys must be plain strings")
        if event.value in frame[0]:
            return self.refuse(event.start_mark, f"duplicate key {shown(event.value)}")
        self.doc.key_nodes[frame[1] + (event.value,)] = event
        frame[4] = event.value
        return True

    def place(self, frame, value):
        if frame is None:
            self.root = value
        elif frame[3]:
            frame[0][frame[4]] = value
            frame[4] = None
        else:
            frame[0].append(value)


_RESOLVER = yaml.resolver.Resolver()
_STR = _RESOLVER.DEFAULT_SCALAR_TAG  # the very object the resolver returns, so `is` finds it
_FIRST = frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k is not None)
_ANY_FIRST = None in _RESOLVER.yaml_implicit_resolvers


def _resolve(value: str, implicit: tuple) -> str:
    """The tag PyYAML's resolver gives an untagged scalar. A plain scalar whose first character
    keys none of its implicit resolvers (most keys and values of a spec), or a quoted one, is a
    string; the resolver is asked the rest."""
    if implicit[0] and (_ANY_FIRST or value[:1] in _FIRST):
        return _RESOLVER.resolve(yaml.ScalarNode, value, implicit)
    return _STR


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


_SCALARS = yaml.constructor.SafeConstructor()
