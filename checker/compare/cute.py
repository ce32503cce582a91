"""CuTe layouts read from text, in CuTe's own two notations, and evaluated without `eval`:

  pycute / CuTe DSL   ((4,8),(2,2,2)):((32,1),(16,8,128))
  C++                 Layout<Shape <Shape < _4,_8>,Shape < _2,_2,  _2>>,
                             Stride<Stride<_32,_1>,Stride<_16,_8,_128>>>
  CuTe's print()      ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))   (a static integer is _N)

A TV layout has two top-level modes, (thread, value); each maps its integer coordinate to an
index by CuTe's rule: the mode's shape is flattened colexicographically (first mode fastest) and
the index is the sum of each coordinate times its stride. The index is into a column-major tile.

The text is untrusted (a user's argument, a reference file): a small recursive-descent parser
with a bounded length, nesting, integer size and domain, and every error names the position in
the text (a SourceText, so a layout inside a YAML file points at its line and column).
"""
from __future__ import annotations

import functools

import re
from dataclasses import dataclass

from checker.errors import SpecError
from checker.source import SourceText

MAX_TEXT = 4096
MAX_DEPTH = 8
MAX_INT = 1 << 24
MAX_MODES = 64
MAX_SIZE = 1 << 16  # of the thread mode and of the value mode, each
MAX_COSIZE = 1 << 30  # the largest index a layout may reach: 32-bit arithmetic stays exact

_TOKEN = re.compile(r"\s*(?:(cute::)?(Layout|Shape|Stride|Int)\b|(_[0-9]+)|([0-9]+)|([(),:<>])|(\S))")
# the declaration `checker export --to cute` writes (and CuTe's traits spell): `using ALayout = Layout<...>;`
_USING = re.compile(r"\s*using\s+[A-Za-z_]\w{0,63}\s*=\s*(?=(?:cute::)?Layout\b)")


@dataclass(frozen=True)
class Node:
    """An integer (value) or a tuple (items), and where it starts in the text."""

    off: int
    value: int | None = None
    items: tuple = ()

    @property
    def is_int(self) -> bool:
        return self.value is not None

    def show(self) -> str:
        return str(self.value) if self.is_int else "(" + ",".join(i.show() for i in self.items) + ")"


@dataclass(frozen=True)
class Layout:
    """A parsed TV layout: (size, stride) modes, flattened, of the thread and the value mode."""

    thread: tuple
    value: tuple
    text: str  # as given
    notation: str  # pycute | c++

    @property
    def threads(self) -> int:
        return _size(self.thread)

    @property
    def values(self) -> int:
        return _size(self.value)

    def index(self, t: int, v: int) -> int:
        # a TV layout's index is its thread mode's part plus its value mode's: each part is made
        # once per thread and per value (a copy atom is asked every bit of every point: 157,600
        # evaluations of the catalogue's 41 atoms and tiles), where a mode is small enough to table
        threads, values = self._parts
        if 0 <= t < len(threads) and 0 <= v < len(values):
            return threads[t] + values[v]
        return evaluate(self.thread, t) + evaluate(self.value, v)

    @functools.cached_property
    def _parts(self) -> tuple:
        """Each mode's parts, for a mode of at most MAX_TABLED indices (else none: evaluated)."""
        def table(modes):
            n = _size(modes)
            return [evaluate(modes, x) for x in range(n)] if n <= MAX_TABLED else []
        return table(self.thread), table(self.value)

    def show(self) -> str:
        """pycute notation, flattened: how the checker read it."""
        def part(modes, k):
            return "(" + ",".join(str(m[k]) for m in modes) + ")" if len(modes) != 1 else str(modes[0][k])
        if not self.value:  # parse_any's rank-1 layout (a ThrID)
            return f"{part(self.thread, 0)}:{part(self.thread, 1)}"
        return f"({part(self.thread, 0)},{part(self.value, 0)}):({part(self.thread, 1)},{part(self.value, 1)})"


MAX_TABLED = 1 << 12


def _size(modes) -> int:
    n = 1
    for size, _ in modes:
        n *= size
    return n


def evaluate(modes: tuple, x: int) -> int:
    idx = 0
    for size, stride in modes:
        idx += (x % size) * stride
        x //= size
    return idx


class _Reader:
    def __init__(self, src: SourceText, what: str):
        self.src, self.what = src, what
        self.toks = []
        pos = 0
        text = src.text
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:  # only trailing whitespace is left
                break
            start = m.start(m.lastindex)
            kind = ("word" if m.group(2) else "static" if m.group(3) else "int" if m.group(4)
                    else "punct" if m.group(5) else "bad")
            self.toks.append((kind, m.group(m.lastindex), start))
            pos = m.end()
        self.k = 0

    def err(self, off: int, expected: str, found: str | None = None):
        if found is None:
            found = self.peek_text()
        raise SpecError(self.src.span(off), f"{self.what}: expected {expected}, found {found}",
                        "a CuTe layout is SHAPE:STRIDE, e.g. ((4,8),(2,2,2)):((32,1),(16,8,128)), or "
                        "Layout<Shape<...>,Stride<...>>")

    def peek(self):
        return self.toks[self.k] if self.k < len(self.toks) else ("end", "", len(self.src.text))

    def peek_text(self) -> str:
        kind, text, _ = self.peek()
        return "the end of the text" if kind == "end" else repr(text)

    def take(self, text: str):
        tok = self.peek()
        if tok[1] != text or tok[0] not in ("punct", "word"):
            self.err(tok[2], repr(text))
        self.k += 1
        return tok

    def number(self, tok) -> int:
        kind, text, off = tok
        digits = text[1:] if kind == "static" else text
        if len(digits.lstrip("0")) > 9 or int(digits) > MAX_INT:  # 0000000032 is 32, as 032 is
            raise SpecError(self.src.span(off), f"{self.what}: {text} is larger than {MAX_INT}")
        return int(digits)

    # pycute: TUPLE := INT | '(' TUPLE (',' TUPLE)* ','? ')', INT being N or CuTe print()'s static _N
    def py_tuple(self, depth: int) -> Node:
        kind, text, off = self.peek()
        if kind in ("int", "static"):
            self.k += 1
            return Node(off, self.number((kind, text, off)))
        if text != "(" or kind != "punct":
            self.err(off, "an integer or '('")
        if depth >= MAX_DEPTH:
            raise SpecError(self.src.span(off), f"{self.what}: nested deeper than {MAX_DEPTH}")
        self.k += 1
        items = [self.py_tuple(depth + 1)]
        while self.peek()[1] == ",":
            self.k += 1
            if self.peek()[1] == ")":
                break
            items.append(self.py_tuple(depth + 1))
            if len(items) > MAX_MODES:
                raise SpecError(self.src.span(off), f"{self.what}: more than {MAX_MODES} modes")
        if self.peek()[1] != ")":
            self.err(self.peek()[2], "',' or ')'")
        self.k += 1
        return Node(off, items=tuple(items))

    # C++: T := '_N' | 'Int' '<' N '>' | N | ('Shape'|'Stride') '<' T (',' T)* '>'
    def cpp_tuple(self, word: str, depth: int) -> Node:
        kind, text, off = self.peek()
        if kind in ("static", "int"):
            self.k += 1
            return Node(off, self.number((kind, text, off)))
        if kind == "word" and text == "Int":
            self.k += 1
            self.take("<")
            tok = self.peek()
            if tok[0] != "int":
                self.err(tok[2], "an integer")
            self.k += 1
            self.take(">")
            return Node(off, self.number(tok))
        if kind != "word" or text != word:
            self.err(off, f"'{word}<', '_N' or 'Int<N>'")
        if depth >= MAX_DEPTH:
            raise SpecError(self.src.span(off), f"{self.what}: nested deeper than {MAX_DEPTH}")
        self.k += 1
        self.take("<")
        items = [self.cpp_tuple(word, depth + 1)]
        while self.peek()[1] == ",":
            self.k += 1
            items.append(self.cpp_tuple(word, depth + 1))
            if len(items) > MAX_MODES:
                raise SpecError(self.src.span(off), f"{self.what}: more than {MAX_MODES} modes")
        self.take(">")
        return Node(off, items=tuple(items))

    def end(self):
        if self.peek()[0] != "end":
            self.err(self.peek()[2], "the end of the layout")


def parse(src: SourceText, what: str = "CuTe layout") -> Layout:
    """A TV layout from text; a SpecError at the position where the text stops making sense."""
    shape, stride, notation = _read(src, what)
    if shape.is_int or len(shape.items) != 2:
        found = "an integer" if shape.is_int else f"{len(shape.items)} modes"
        raise SpecError(src.span(shape.off), f"{what}: a TV layout has two top-level modes, (thread, value); "
                        f"found {found}: {shape.show()}")
    tops = [(shape.items[0], stride.items[0]), (shape.items[1], stride.items[1])]
    return _layout(src, what, tops, notation, stride.off)


def parse_any(src: SourceText, what: str = "CuTe layout") -> Layout:
    """A layout of any rank (a copy atom's ThrID `_32:_1`, its ValID), read as a TV layout whose
    thread mode is the first top mode and whose value mode is the rest, flattened: its index at x
    is then index(x % threads, x // threads), CuTe's colexicographic map of the whole layout. A
    rank-1 layout has an empty value mode (one value)."""
    shape, stride, notation = _read(src, what)
    if shape.is_int:
        return _layout(src, what, [(shape, stride), None], notation, stride.off)
    first = [(shape.items[0], stride.items[0])]
    if len(shape.items) == 1:
        return _layout(src, what, first + [None], notation, stride.off)
    rest = Node(shape.items[1].off, items=shape.items[1:]), Node(stride.items[1].off, items=stride.items[1:])
    return _layout(src, what, first + [rest], notation, stride.off)


def _read(src: SourceText, what: str) -> tuple:
    """(shape, stride, notation): the text's two trees, congruent."""
    text = src.text
    if len(text) > MAX_TEXT:
        raise SpecError(src.span(0), f"{what}: longer than {MAX_TEXT} characters")
    r = _Reader(src, what)
    declared = _USING.match(text)
    if declared:
        r.k = sum(1 for t in r.toks if t[2] < declared.end())
    kind, word, _ = r.peek()
    if kind == "word" and word == "Layout":
        r.k += 1
        r.take("<")
        shape = r.cpp_tuple("Shape", 0)
        r.take(",")
        stride = r.cpp_tuple("Stride", 0)
        r.take(">")
        if r.peek()[1] == ";":  # the declaration's end
            r.k += 1
        notation = "c++"
    else:
        shape = r.py_tuple(0)
        r.take(":")
        stride = r.py_tuple(0)
        notation = "pycute"
    r.end()
    _congruent(src, what, shape, stride)
    return shape, stride, notation


def _layout(src: SourceText, what: str, tops: list, notation: str, stride_at: int) -> Layout:
    """The thread and the value mode (each a (shape, stride) pair of trees; None: no modes),
    each flattened and bounded, and the largest index bounded (an error at the stride, `stride_at`)."""
    modes = []
    for top in tops:
        if top is None:
            modes.append(())
            continue
        s, d = top
        flat = list(zip(_flat(s), _flat(d)))
        for (size, at), _ in flat:
            if size < 1:
                raise SpecError(src.span(at), f"{what}: a mode's size must be at least 1, found {size}")
        pairs = tuple((size, st) for (size, _), (st, _) in flat)
        if _size(pairs) > MAX_SIZE:
            raise SpecError(src.span(s.off), f"{what}: a mode of size {_size(pairs)} is larger than {MAX_SIZE}")
        modes.append(pairs)
    cosize = sum((size - 1) * st for mode in modes for size, st in mode) + 1
    if cosize > MAX_COSIZE:
        raise SpecError(src.span(stride_at), f"{what}: reaches index {cosize - 1}, more than {MAX_COSIZE}")
    return Layout(modes[0], modes[1], src.text, notation)


def _flat(node: Node) -> list:
    """(value, offset) of every integer, in order: CuTe's colexicographic flattening."""
    if node.is_int:
        return [(node.value, node.off)]
    return [x for item in node.items for x in _flat(item)]


def _congruent(src: SourceText, what: str, shape: Node, stride: Node) -> None:
    """Shape and stride must have the same tree: CuTe evaluates them mode by mode."""
    if shape.is_int and stride.is_int:
        return
    if shape.is_int != stride.is_int or len(shape.items) != len(stride.items):
        want = "an integer" if shape.is_int else f"a tuple of {len(shape.items)}"
        got = f"the integer {stride.value}" if stride.is_int else \
            f"a tuple of {len(stride.items)} {stride.show()}"
        raise SpecError(src.span(stride.off), f"{what}: shape and stride are not congruent: the shape's mode "
                        f"{shape.show()} needs {want} here, the stride has {got}")
    for a, b in zip(shape.items, stride.items):
        _congruent(src, what, a, b)
