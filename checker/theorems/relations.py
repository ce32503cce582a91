"""specs/relations.yaml: relations between layouts, declared as data and proved.

Each relation is a cell equation between two fragments (possibly of different shapes), with an
id, a statement in words, the document it rests on, and whether it is expected to hold. A
relation expected to be refuted is how the file states, precisely, where a pattern does *not*
hold (for example, which fragments `ldmatrix`'s block layout fits and which it does not).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from checker.errors import SpecError
from checker.formula.parser import parse_expr
from checker.spec import text
from checker.spec.reading import materialize
from checker.theorems.equation import Equation, Side, check_names

SCHEMA_ID = "ptx-fragment-checker/relations/1"
_NOT_VARIABLES = {"lane", "row", "col"}


@dataclass(frozen=True)
class Relation:
    """A relation between fragments, from a relations file."""

    id: str
    statement: str
    rests_on: tuple
    expect: str  # holds | refuted
    equation: Equation
    span: object


class _Resolver:
    """shape/fragment -> its reading, loading each spec beside the relations file once."""

    def __init__(self, folder: str, known: dict):
        self.folder = folder
        self.known = known  # absolute path -> Spec, already loaded by the caller
        self.specs: dict = {}
        self.readings: dict = {}

    def __call__(self, ref: str, span):
        shape, fid = ref.split("/", 1)
        if ref in self.readings:
            return self.readings[ref]
        if shape not in self.specs:
            path = os.path.join(self.folder, shape + ".yaml")
            if not os.path.exists(path):
                raise SpecError(span, f"no spec {shape}.yaml beside the relations file for {ref!r}")
            spec = self.known.get(os.path.abspath(path))
            if spec is None:
                from checker.spec.load import load_spec

                spec = load_spec(path)
            self.specs[shape] = spec
        frag = self.specs[shape].fragment(fid)
        if frag is None:
            ids = ", ".join(f.id for f in self.specs[shape].fragments())
            raise SpecError(span, f"{shape} has no fragment {fid!r}", f"it has {ids}")
        self.readings[ref] = materialize(frag)
        return self.readings[ref]


def load_relations(path: str, known: dict | None = None) -> list:
    # imported here, not above: a prover process that is sent its specs loaded reads no YAML
    from checker.spec import yamlload
    from checker.spec.load import check_structure

    doc = yamlload.load(path)
    check_structure(doc, "relations.schema.json")
    resolve = _Resolver(os.path.dirname(path) or ".", known or {})
    out, seen = [], {}
    for k, r in enumerate(doc.value["relations"]):
        base = ("relations", k)
        span = doc.span(base)
        if r["id"] in seen:
            raise SpecError(doc.span(base + ("id",)), f"duplicate relation id {r['id']!r} (first at line {seen[r['id']]})")
        seen[r["id"]] = span.line
        variables = []
        for name, (lo, hi) in r.get("for", {}).items():
            if name in _NOT_VARIABLES:
                raise SpecError(doc.span(base + ("for", name), key=True),
                                f"{name!r} cannot be a variable: row and col name a side's cell, lane is %laneid")
            if lo > hi:
                raise SpecError(doc.span(base + ("for", name)), f"the range [{lo}, {hi}] of {name} is empty")
            variables.append((name, tuple(range(lo, hi + 1))))
        lo, hi = r.get("lanes", [0, 31])
        if not lo <= hi <= 31:
            raise SpecError(doc.span(base + ("lanes",)), f"lanes [{lo}, {hi}] must lie within 0..31, low first")
        sides = [_side(doc, base + (tag,), r[tag], resolve) for tag in ("left", "right")]
        eq = Equation(r["id"], tuple(variables), tuple(range(lo, hi + 1)), sides[0], sides[1], span)
        for side in sides:
            check_names({v for v, _ in variables}, side)
        out.append(Relation(r["id"], r["statement"], tuple(r["rests_on"]), r["expect"], eq, span))
    return out


def _side(doc, path, value, resolve) -> Side:
    reading = resolve(value["fragment"], doc.span(path + ("fragment",)))
    src, nodes = {}, {}
    for field in ("lane", "element", "row", "col"):
        if field in value:
            src[field] = text.from_node(doc.nodes[path + (field,)], doc.text, doc.path)
            nodes[field] = parse_expr(src[field])
    return Side(value["fragment"], reading, nodes.get("lane"), nodes["element"], nodes.get("row"),
                nodes.get("col"), src)
