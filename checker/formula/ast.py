"""AST of the formula notation. Every node keeps the offset of its first character in the
SourceText it was parsed from, so any message can point at file:line:col."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Num:
    """A literal, with its printed text."""

    value: int
    text: str  # as printed: 0x1F stays 0x1F
    off: int


@dataclass(frozen=True)
class Lane:
    """`%laneid`, or another name the document gives a thread's index (checker.families)."""

    off: int
    name: str = "%laneid"


@dataclass(frozen=True)
class Var:
    """A name: a definition, `i`, or (in relations) a variable."""

    name: str
    off: int


@dataclass(frozen=True)
class Unary:
    """`-x` or `!x`."""

    op: str  # '-' or '!'
    arg: object
    off: int


@dataclass(frozen=True)
class Bin:
    """An arithmetic, bitwise or logical operation on two operands."""

    op: str  # + - * / % << >> & | ^ && ||
    left: object
    right: object
    off: int


@dataclass(frozen=True)
class Chain:
    """`0 <= i < 2` means 0 <= i and i < 2; `=` is equality; a set operand means membership."""

    operands: tuple  # expressions, or SetLit
    ops: tuple
    off: int


@dataclass(frozen=True)
class SetLit:
    """`{0,..,3}` or `{0, 2}`: the values, and the text as printed."""

    values: tuple
    text: str
    off: int


@dataclass(frozen=True)
class ElemClause:
    """`for ai where ...`, `for a0 and a1`: the elements a piece or a definition is for."""

    letter: str  # a, b, c or d
    indices: tuple | None  # `for a0 and a1` -> (0, 1); `for ai ...` -> None
    where: object | None  # condition on i for `for ai where ...`
    off: int
    # where each of `indices` is written: a name the fragment does not have is reported at itself
    offs: tuple = ()


@dataclass(frozen=True)
class Piece:
    """One line of a piecewise formula: a value, and where it applies."""

    value: object
    elem: ElemClause | None
    cond: object | None  # `if ...`
    otherwise: bool
    off: int


@dataclass(frozen=True)
class Definition:
    """`groupID = %laneid >> 2`, or a `where` definition local to one formula."""

    name: str
    value: object
    elem: ElemClause | None
    off: int


@dataclass(frozen=True)
class Assignment:
    """`row = ...` or `col = ...`: its pieces and local definitions."""

    target: str  # 'row' or 'col'
    pieces: tuple
    locals: tuple  # Definitions introduced by `where X = ...`
    off: int


@dataclass(frozen=True)
class ColumnRange:
    """`col = [firstcol ... lastcol]` of the sparse A layouts: each element lies somewhere in a
    range of consecutive columns (the metadata says where), whose ends the closing `Where` block
    defines, piecewise."""

    target: str  # 'col'
    first: Var
    last: Var
    where: tuple  # Assignments, one per name the Where block defines, in order
    off: int


@dataclass(frozen=True)
class Block:
    """A whole formula block: definitions, then the row and col assignments."""

    definitions: tuple
    assignments: tuple
    column_range: ColumnRange | None = None


BOOL_OPS = {"&&", "||"}
CMP_OPS = {"<", "<=", ">", ">=", "=", "==", "!="}


def children(node) -> tuple:
    if isinstance(node, Unary):
        return (node.arg,)
    if isinstance(node, Bin):
        return (node.left, node.right)
    if isinstance(node, Chain):
        return tuple(o for o in node.operands if not isinstance(o, SetLit))
    return ()


def names(node) -> set:
    """Every variable name used under `node`."""
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Var):
            out.add(n.name)
        stack.extend(children(n))
    return out
