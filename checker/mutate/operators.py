"""Every single-point mutant of a formula block, made on the AST (never on text): each constant
±1, each operator swapped for its neighbours, each mask dropped, each pair of pieces of one
formula swapped, each condition boundary moved. A mutant keeps the offsets of the original, so
it is still located at the document's file:line:col."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from checker.formula import ast, printer

NEIGHBOURS = {"+": ("-",), "-": ("+",), "&": ("|",), "|": ("&",), ">>": ("<<",), "<<": (">>",),
              "&&": ("||",), "||": ("&&",)}
BOUNDARY = {"<": ("<=",), "<=": ("<",), ">": (">=",), ">=": (">",), "=": ("!=",), "==": ("!=",)}
MASKS = {"&", "%"}  # `i & 0x1F`, `%laneid % 4`: the operation that keeps a value in range


@dataclass(frozen=True)
class Mutant:
    """What changed is read off the printed blocks (campaign.py), so it is not kept here."""
    operator: str  # constant, operator, mask, boundary, pieces
    off: int  # where in the formula text
    block: ast.Block


def mutants(block: ast.Block) -> list:
    out = []
    for k, d in enumerate(block.definitions):
        for m in _expr(d.value):
            out.append(_wrap(m, lambda v, k=k, d=d: _set(block, "definitions", k, dataclasses.replace(d, value=v))))
    for k, a in enumerate(block.assignments):
        for m in _assignment(a):
            out.append(_wrap(m, lambda na, k=k: _set(block, "assignments", k, na)))
    seen, unique = set(), []
    for m in out:  # two routes to the same block (a constant in a mask, say) are one mutant
        key = printer.block(m.block)
        if key not in seen:
            seen.add(key)
            unique.append(m)
    return unique


def _set(parent, field, k, value):
    items = list(getattr(parent, field))
    items[k] = value
    return dataclasses.replace(parent, **{field: tuple(items)})


@dataclass(frozen=True)
class _Local:
    operator: str
    off: int
    node: object


def _wrap(m: _Local, rebuild) -> Mutant:
    return Mutant(m.operator, m.off, rebuild(m.node))


def _assignment(a: ast.Assignment):
    for k, p in enumerate(a.pieces):
        for m in _expr(p.value):
            yield _Local(m.operator, m.off, _set(a, "pieces", k, dataclasses.replace(p, value=m.node)))
        if p.cond is not None:
            for m in _expr(p.cond):
                yield _Local(m.operator, m.off, _set(a, "pieces", k, dataclasses.replace(p, cond=m.node)))
        if p.elem is not None and p.elem.where is not None:
            for m in _expr(p.elem.where):
                elem = dataclasses.replace(p.elem, where=m.node)
                yield _Local(m.operator, m.off,
                             _set(a, "pieces", k, dataclasses.replace(p, elem=elem)))
    for j in range(len(a.pieces)):
        for k in range(j + 1, len(a.pieces)):
            pj, pk = a.pieces[j], a.pieces[k]
            if printer.expr(pj.value) == printer.expr(pk.value):
                continue
            swapped = _set(_set(a, "pieces", j, dataclasses.replace(pj, value=pk.value)),
                           "pieces", k, dataclasses.replace(pk, value=pj.value))
            yield _Local("pieces", pj.off, swapped)
    for k, d in enumerate(a.locals):
        for m in _expr(d.value):
            yield _Local(m.operator, m.off, _set(a, "locals", k, dataclasses.replace(d, value=m.node)))


def _expr(node):
    """(_Local with .node = the mutated node) for every single-point change inside `node`."""
    if isinstance(node, ast.Num):
        for delta in (1, -1):
            v = node.value + delta
            if v >= 0:
                text = hex(v) if node.text.lower().startswith("0x") else bin(v) if node.text.lower().startswith("0b") else str(v)
                yield _Local("constant", node.off, ast.Num(v, text, node.off))
        return
    if isinstance(node, ast.Unary):
        for m in _expr(node.arg):
            yield _Local(m.operator, m.off, dataclasses.replace(node, arg=m.node))
        return
    if isinstance(node, ast.Bin):
        for op in NEIGHBOURS.get(node.op, ()):
            yield _Local("operator", node.off, dataclasses.replace(node, op=op))
        if node.op in MASKS and isinstance(node.right, ast.Num):
            yield _Local("mask", node.off, node.left)
        for m in _expr(node.left):
            yield _Local(m.operator, m.off, dataclasses.replace(node, left=m.node))
        for m in _expr(node.right):
            yield _Local(m.operator, m.off, dataclasses.replace(node, right=m.node))
        return
    if isinstance(node, ast.Chain):
        for k, op in enumerate(node.ops):
            for new_op in BOUNDARY.get(op, ()):
                ops = node.ops[:k] + (new_op,) + node.ops[k + 1:]
                yield _Local("boundary", node.off, dataclasses.replace(node, ops=ops))
        for k, operand in enumerate(node.operands):
            if isinstance(operand, ast.SetLit):
                continue
            for m in _expr(operand):
                ops = node.operands[:k] + (m.node,) + node.operands[k + 1:]
                yield _Local(m.operator, m.off, dataclasses.replace(node, operands=ops))
