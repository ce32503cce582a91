"""Give a parsed block its meaning: resolve names, check types, and turn the document's piece
clauses (`for ai where ...`, `if ...`, `otherwise`) into one guard per piece.

`otherwise` means "none of the other pieces of this formula applies", still restricted by the
piece's own `for` clause: `(i % 4) + 4 for ai where i = {0,..,3} otherwise` applies where
i is in {0..3} and the `if %laneid < 16` piece does not.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from checker.bounded import shown
from checker.errors import SpecError
from checker.families import WARP, Threads
from checker.formula import ast
from checker.source import SourceText

# `lane` is where both engines keep %laneid (and a warpgroup's %tid): a definition of it took its place
RESERVED = {"i", "row", "col", "lane"}


@dataclass(frozen=True)
class LoweredPiece:
    """A piece with its `for` and `if` clauses folded into one guard."""

    value: object  # int expression
    guard: object  # bool expression: where this piece applies
    requires: tuple  # bool expressions: `for` clauses of the local definitions it uses
    off: int


@dataclass(frozen=True)
class LoweredFormula:
    """A row or col formula (or a Where block's definition) as guarded pieces."""

    target: str
    pieces: tuple
    locals: tuple  # (name, expr) evaluated after the block's definitions
    off: int


@dataclass(frozen=True)
class Layout:
    """The meaning of one formula block: definitions, then the row and col formulas.

    A sparse A layout also has `bound`: the piecewise formulas of its `Where` block (firstcol,
    lastcol), evaluated after the definitions, each bound to its name. Its `col` is then the
    column in the compressed A (the non-zero elements only, K * nonzero / chunk wide): the range's
    index times the non-zero elements per range, plus the element's place in its register.
    """

    definitions: tuple  # (name, expr) in order
    row: LoweredFormula
    col: LoweredFormula
    src: SourceText
    bound: tuple = ()  # LoweredFormulas, target = the name they define, in order
    column_range: tuple | None = None  # (first, last) names of `col = [first ... last]`
    # (letter, index, offset) of each element a `for` clause names, in the tree's order: found
    # when the block is lowered, so that checking them against each instance's count (a fragment
    # is read for every N, and again by each theorem task) does not walk the tree again
    named: tuple = ()

    def formulas(self):
        return (self.row, self.col, *self.bound)


TRUE = ast.Chain((ast.Num(0, "0", 0), ast.Num(0, "0", 0)), ("=",), 0)


def _and(a, b):
    if a is TRUE:
        return b
    if b is TRUE:
        return a
    return ast.Bin("&&", a, b, getattr(a, "off", 0))


def _or(a, b):
    return ast.Bin("||", a, b, getattr(a, "off", 0))


def _elem_guard(elem: ast.ElemClause | None):
    if elem is None:
        return TRUE
    if elem.indices is not None:
        return ast.Chain((ast.Var("i", elem.off), ast.SetLit(elem.indices, "", elem.off)), ("=",), elem.off)
    return elem.where if elem.where is not None else TRUE


def check_type(src: SourceText, known: set, node, want: str) -> None:
    """That `node` is an integer value (want "int") or a condition ("bool"), naming only `known`
    names (and %laneid): a located SpecError otherwise."""
    _Typer(src, known).check(node, want)


class _Typer:
    def __init__(self, src: SourceText, known: set):
        self.src = src
        self.known = known

    def err(self, node, msg, hint=None):
        raise SpecError(self.src.span(getattr(node, "off", 0)), msg, hint)

    def check(self, node, want: str):
        got = self.type_of(node)
        if got != want:
            self.err(node, f"expected {'an integer value' if want == 'int' else 'a condition'}, "
                           f"found {'a condition' if got == 'bool' else 'an integer value'}")

    def type_of(self, node) -> str:
        if isinstance(node, (ast.Num, ast.Lane)):
            return "int"
        if isinstance(node, ast.Var):
            if node.name not in self.known:
                known = ", ".join(sorted(self.known))
                self.err(node, f"unknown name {node.name!r}", f"known here: {known}, %laneid")
            return "int"
        if isinstance(node, ast.SetLit):
            self.err(node, "a set {..} may only stand on the right of '='")
        if isinstance(node, ast.Unary):
            want = "bool" if node.op == "!" else "int"
            self.check(node.arg, want)
            return want
        if isinstance(node, ast.Bin):
            if node.op in ast.BOOL_OPS:
                self.check(node.left, "bool")
                self.check(node.right, "bool")
                return "bool"
            self.check(node.left, "int")
            self.check(node.right, "int")
            return "int"
        if isinstance(node, ast.Chain):
            for k, operand in enumerate(node.operands):
                if isinstance(operand, ast.SetLit):
                    if k != len(node.operands) - 1 or node.ops[k - 1] not in ("=", "=="):
                        self.err(operand, "a set {..} may only stand on the right of '='")
                else:
                    self.check(operand, "int")
            return "bool"
        self.err(node, f"internal: unknown node {type(node).__name__}")  # pragma: no cover


def lower(block: ast.Block, src: SourceText, letter: str, sparse=None, threads: Threads = WARP,
          constants: dict | None = None) -> Layout:
    """`sparse`: a sparse A's model.Sparsity; the compressed column needs its `per_register`
    non-zero elements out of `out_of` consecutive ones. `threads`: who holds the fragment, and
    the names the formulas may give a thread's index; `constants`: the shape's parameter (N)."""
    named = tuple((node.letter, index, node.offs[k] if k < len(node.offs) else node.off)
                  for node in _nodes(block) if isinstance(node, ast.ElemClause) and node.indices is not None
                  for k, index in enumerate(node.indices))
    block, implicit = _resolve(block, src, threads, constants or {})
    known: set = {"i"} | {name for name, _ in implicit}
    defs = list(implicit)
    for d in block.definitions:
        if d.name in RESERVED or d.name in known or d.name in (constants or {}):
            what = "a reserved name" if d.name in RESERVED else \
                "the shape's parameter" if d.name in (constants or {}) else "already defined"
            raise SpecError(src.span(d.off), f"cannot define {d.name!r}: {what}")
        _Typer(src, known).check(d.value, "int")
        known.add(d.name)
        defs.append((d.name, d.value))
    by_target: dict = {}
    for a in block.assignments:
        if a.target in by_target:
            raise SpecError(src.span(a.off), f"'{a.target}' is given twice in one formula block")
        by_target[a.target] = _lower_assignment(a, src, set(known), letter)
    bound, column_range = (), None
    cr = block.column_range
    if cr is not None:
        if cr.target in by_target:
            raise SpecError(src.span(cr.off), f"'{cr.target}' is given twice in one formula block")
        if sparse is None:
            raise SpecError(src.span(cr.off), "a column range '[... ]' belongs to a sparse A layout, and this "
                                              "fragment declares no sparsity", "add `sparsity:` to the fragment")
        bound = _lower_where(cr, src, set(known), letter)
        by_target[cr.target] = _compressed(cr, sparse)
        column_range = (cr.first.name, cr.last.name)
    elif sparse is not None:
        raise SpecError(src.span(by_target["col"].off if "col" in by_target else len(src.text)),
                        "a sparse fragment's col formula must be the range 'col = [firstcol ... lastcol]' "
                        "with its Where block")
    for target in ("row", "col"):
        if target not in by_target:
            raise SpecError(src.span(len(src.text)), f"the formula block has no '{target} =' formula")
    return Layout(tuple(defs), by_target["row"], by_target["col"], src, bound, column_range, named)


def _lower_where(cr: ast.ColumnRange, src: SourceText, known: set, letter: str) -> tuple:
    out = []
    for d in cr.where:
        if d.target in RESERVED or d.target in known:
            what = "a reserved name" if d.target in RESERVED else "already defined"
            raise SpecError(src.span(d.off), f"cannot define {d.target!r}: {what}")
        out.append(_lower_assignment(d, src, set(known), letter))
        known.add(d.target)
    for end in (cr.first, cr.last):
        if end.name not in {f.target for f in out}:
            defined = ", ".join(f.target for f in out) or "nothing"
            raise SpecError(src.span(end.off), f"the column range names {end.name!r}, which its Where block "
                                               f"does not define", f"it defines {defined}")
    if cr.first.name == cr.last.name:
        raise SpecError(src.span(cr.last.off), "a column range needs two different ends")
    return tuple(out)


def _compressed(cr: ast.ColumnRange, sparse) -> LoweredFormula:
    """firstcol / out_of * per_register + i % per_register, pointing at the range's text."""
    off = cr.first.off

    def num(v):
        return ast.Num(v, str(v), off)

    index = ast.Bin("/", ast.Var(cr.first.name, off), num(sparse.out_of), off)
    place = ast.Bin("%", ast.Var("i", off), num(sparse.per_register), off)
    value = ast.Bin("+", ast.Bin("*", index, num(sparse.per_register), off), place, off)
    return LoweredFormula(cr.target, (LoweredPiece(value, TRUE, (), cr.off),), (), cr.off)


def _lower_assignment(a: ast.Assignment, src: SourceText, known: set, letter: str) -> LoweredFormula:
    local_names = {}
    locals_ = []
    for loc in a.locals:
        if loc.name in RESERVED or loc.name in known or loc.name in local_names:
            raise SpecError(src.span(loc.off), f"cannot define {loc.name!r} again")
        _check_letter(loc.elem, src, letter)
        _Typer(src, known | set(local_names)).check(loc.value, "int")
        if loc.elem is not None and loc.elem.where is not None:
            _Typer(src, {"i"}).check(loc.elem.where, "bool")
        local_names[loc.name] = _elem_guard(loc.elem)
        locals_.append((loc.name, loc.value))
    scope = known | set(local_names)
    raw = []
    for p in a.pieces:
        _check_letter(p.elem, src, letter)
        typer = _Typer(src, scope)
        typer.check(p.value, "int")
        if p.elem is not None and p.elem.where is not None:
            _Typer(src, known).check(p.elem.where, "bool")
        if p.cond is not None:
            typer.check(p.cond, "bool")
        own = _and(_elem_guard(p.elem), p.cond if p.cond is not None else TRUE)
        requires = tuple(local_names[n] for n in sorted(ast.names(p.value) & set(local_names)))
        raw.append((p, own, requires))
    others = [own for p, own, _ in raw if not p.otherwise]
    if sum(p.otherwise for p, _, _ in raw) > 1:
        second = [p for p, _, _ in raw if p.otherwise][1]
        raise SpecError(src.span(second.off), "more than one 'otherwise' piece in one formula")
    pieces = []
    for p, own, requires in raw:
        guard = own
        if p.otherwise:
            if not others:
                raise SpecError(src.span(p.off), "'otherwise' with no other piece to be otherwise to")
            none_other = ast.Unary("!", _fold(_or, others), p.off)
            guard = _and(_elem_guard(p.elem), none_other)
        pieces.append(LoweredPiece(p.value, guard, requires, p.off))
    return LoweredFormula(a.target, tuple(pieces), tuple(locals_), a.off)


def _fold(op, items):
    out = items[0]
    for it in items[1:]:
        out = op(out, it)
    return out


def _check_letter(elem, src, letter):
    if elem is not None and elem.letter != letter:
        raise SpecError(src.span(elem.off),
                        f"'for {elem.letter}...' names elements of another operand; this fragment's are {letter}0, {letter}1, ...")


def check_element_names(layout: Layout, letter: str, n: int) -> None:
    """Every element a `for a0 and a1` clause names is one of the fragment's n elements: a name
    beyond them would make its piece apply nowhere, and the layout would silently prove without
    it (or, for a huge index, fail far from the name). `n` is the instance's count, so lowering
    (shared by a parametric fragment's instances) cannot check it."""
    for named_letter, index, off in layout.named:
        if index >= n:
            name = shown(f"{named_letter}{index}", 24, False)
            raise SpecError(layout.src.span(off), f"{name} is not an element of this fragment: expected one of "
                                                  f"{letter}0..{letter}{n - 1} (the fragment's elements), found {name}")


def _resolve(block: ast.Block, src: SourceText, threads: Threads, constants: dict) -> tuple:
    """The block with the domain's names resolved, and the definitions they need: the thread
    index itself stays a Lane node (what every engine evaluates); a name for part of it (a
    warpgroup's %laneid, the index mod 32) becomes a definition over it, evaluated like any
    other; the shape's parameter becomes its number."""
    base = next(name for name, divisor, modulus in threads.names if divisor == 1 and modulus is None)
    implicit: dict = {}

    def resolve(node):
        if isinstance(node, ast.Lane):
            found = threads.named(node.name)
            if found is None:
                known = ", ".join(name for name, _, _ in threads.names)
                raise SpecError(src.span(node.off), f"unknown name {node.name!r}: the threads that hold this "
                                                    f"fragment are named {known}")
            if node.name == base:
                return ast.Lane(node.off, base)
            divisor, modulus = found
            if node.name not in implicit:
                value = ast.Lane(node.off, base)
                if divisor != 1:
                    value = ast.Bin("/", value, ast.Num(divisor, str(divisor), node.off), node.off)
                if modulus is not None:
                    value = ast.Bin("%", value, ast.Num(modulus, str(modulus), node.off), node.off)
                implicit[node.name] = value
            return ast.Var(node.name, node.off)
        if isinstance(node, ast.Var) and node.name in constants:
            return ast.Num(constants[node.name], str(constants[node.name]), node.off)
        return node

    if not any(isinstance(n, ast.Lane) and n.name != base or isinstance(n, ast.Var) and n.name in constants
               for n in _nodes(block)):
        return block, ()  # every thread is named by its index (a warp's %laneid): nothing to rewrite
    return _rebuild(block, resolve), tuple(implicit.items())


# AST class -> its field names, or None for a value that is no node: every check walks every
# formula, and asking dataclasses for the fields of each node was most of the walk
_FIELDS: dict = {}


def _field_names(cls):
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else None
    return _FIELDS[cls]


def _nodes(node):
    """Every AST node below `node`, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
            continue
        names = _field_names(type(n))
        if names is not None:
            yield n
            stack.extend(getattr(n, name) for name in names)


def _rebuild(node, fn):
    """`node` with `fn` applied to every AST node below it, bottom-up."""
    if isinstance(node, tuple):
        return tuple(_rebuild(x, fn) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changed = {f.name: _rebuild(getattr(node, f.name), fn) for f in dataclasses.fields(node)}
        return fn(dataclasses.replace(node, **changed))
    return node
