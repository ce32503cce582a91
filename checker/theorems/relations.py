"""specs/relations.yaml: relations between layouts, declared as data and proved.

Each relation is a cell equation between two fragments (possibly of different shapes), with an
id, a statement in words, the document it rests on, and whether it is expected to hold. A
relation expected to be refuted is how the file states, precisely, where a pattern does *not*
hold (for example, which fragments `ldmatrix`'s block layout fits and which it does not).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from checker import recording
from checker.bounded import shown
from checker.errors import SpecError
from checker.formula.parser import parse_expr
from checker.results import REFUTED
from checker import source
from checker.spec.reading import materialize
from checker.spec.witness import declared
from checker.theorems.equation import MAX_POINTS, Equation, Side, check_names, divisors_nonzero

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
    reach: object = None  # where its points are written (`for:`, else the left element): a part is refuted there
    witness: dict | None = None  # expect refuted: the smallest point it is refuted at ({lane: .., r: ..})
    differs: int | None = None  # expect refuted: how many points give different cells
    differs_at: object = None  # where `differs` is written (else the relation's `expect`)


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
            if not recording.exists(path):  # recorded: a result can rest on a spec's absence
                raise SpecError(span, f"no spec {shape}.yaml beside the relations file for {ref!r}")
            spec = self.known.get(os.path.abspath(path))
            if spec is None:
                from checker.spec.load import load_spec

                spec = load_spec(path)
            self.specs[shape] = spec
        frag = self.specs[shape].fragment(fid)
        if frag is None:
            ids = ", ".join(f.id for f in self.specs[shape].fragments())
            raise SpecError(span, f"{shape} has no fragment {fid!r}", f"it has {shown(ids, 200, quote=False)}")
        self.readings[ref] = materialize(frag)
        return self.readings[ref]


def load_relations(path: str, known: dict | None = None, only=None) -> list:
    """The relations of a relations file; `only`: the shapes whose relations to read (those that
    name a fragment of one of them), None: all (a checker.scope.Relations path says which)."""
    # imported here, not above: a prover process that is sent its specs loaded reads no YAML
    from checker.scope import names_shape, shapes_of
    from checker.spec import yamlload
    from checker.spec.structure import check_structure

    if only is None:
        only = shapes_of(path)

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
        if not names_shape(r, only):
            continue
        variables = []
        for name, (lo, hi) in r.get("for", {}).items():
            if name in _NOT_VARIABLES:
                raise SpecError(doc.span(base + ("for", name), key=True),
                                f"{name!r} cannot be a variable: row and col name a side's cell, lane is %laneid")
            if lo > hi:
                raise SpecError(doc.span(base + ("for", name)), f"the range [{lo}, {hi}] of {name} is empty")
            variables.append((name, lo, hi))
        lo, hi = r.get("lanes", [0, 31])
        if not lo <= hi <= 31:
            raise SpecError(doc.span(base + ("lanes",)), f"lanes [{lo}, {hi}] must lie within 0..31, low first")
        _domain(doc, base, r, variables, hi - lo + 1)  # from the numbers, before any point is built
        variables = [(name, tuple(range(vlo, vhi + 1))) for name, vlo, vhi in variables]
        sides = [_side(doc, base + (tag,), r[tag], resolve) for tag in ("left", "right")]
        eq = Equation(r["id"], tuple(variables), tuple(range(lo, hi + 1)), sides[0], sides[1], span)
        for side in sides:
            check_names({v for v, _ in variables}, side)
        _cited_figures(doc, base, r, sides)
        divisors_nonzero(eq)
        reach = doc.span(base + ("for",)) if r.get("for") else doc.span(base + ("left", "element"))
        witness = declared(r.get("witness"), r["expect"], "relation", lambda key: doc.span(base + ("witness",), key=key),
                           ["lane"] + [v for v, _ in variables])
        if "differs" in r and r["expect"] != "refuted":
            raise SpecError(doc.span(base + ("differs",), key=True),
                            "a relation expected to hold differs nowhere: differs: goes with expect: refuted")
        differs_at = doc.span(base + ("differs",) if "differs" in r else base + ("expect",))
        out.append(Relation(r["id"], r["statement"], tuple(r["rests_on"]), r["expect"], eq, span, reach, witness,
                            r.get("differs"), differs_at))
    return out


_CITED = re.compile(r"\s*(\d+(?:\.\d+)+)\s+Figures?\s+(\d+(?:\s*(?:,|and)\s*\d+)*)")


def _cited_figures(doc, base, r, sides) -> None:
    """The figures a relation's `rests_on` cites ("9.7.14.5.8 Figure 79", "... Figures 101 and
    102") are figures of those sections that its two fragments transcribe, each cited once, and
    where it cites any, each fragment has one of its own cited: a citation moved to a neighbouring
    figure (Figure 80, A's .f64 layout, for A.f16's Figure 79) would otherwise stand unchecked
    beside a proof of other layouts. A citation of a section alone names no figure."""
    held = {(side.reading.fragment.section, fig) for side in sides for fig in side.reading.fragment.figures}
    have = ", ".join(f"{sec} {fig}" for sec, fig in sorted(held)) or "none"
    cited: dict = {}
    for k, text in enumerate(r["rests_on"]):
        m = _CITED.match(text)
        if m is None:
            continue
        section = m.group(1)
        for number in re.findall(r"\d+", m.group(2)):
            at = doc.span(base + ("rests_on", k))
            if (section, f"Figure {number}") not in held:
                raise SpecError(at, f"relation {r['id']} rests on {section} Figure {number}, which neither of its "
                                    f"fragments ({sides[0].name}, {sides[1].name}) transcribes",
                                f"their figures: {have}")
            if (section, f"Figure {number}") in cited:
                raise SpecError(at, f"relation {r['id']} cites {section} Figure {number} twice")
            cited[(section, f"Figure {number}")] = at
    for side in sides if cited else ():
        f = side.reading.fragment
        if not any((f.section, fig) in cited for fig in f.figures):
            raise SpecError(doc.span(base + ("rests_on",)),
                            f"relation {r['id']} reads {side.name} but its rests_on cites none of its figures "
                            f"({f.section} {', '.join(f.figures)})")


def _domain(doc, base, r, variables, lanes: int) -> None:
    """The points a relation ranges over (lanes x every variable's range), counted from the
    ranges' ends: `for: {a: [0, 4096], b: [0, 4096]}` would be 537 million points."""
    size = lanes
    for _, lo, hi in variables:
        size *= hi - lo + 1
    if size > MAX_POINTS:
        at = doc.span(base + ("for",), key=True) if variables else doc.span(base + ("lanes",))
        raise SpecError(at, f"relation {r['id']} ranges over {size} points (lanes x the 'for' ranges); "
                        f"the bound is {MAX_POINTS}")


def _side(doc, path, value, resolve) -> Side:
    reading = resolve(value["fragment"], doc.span(path + ("fragment",)))
    src, nodes = {}, {}
    for field in ("lane", "element", "row", "col"):
        if field in value:
            src[field] = source.from_node(doc.nodes[path + (field,)], doc.text, doc.path)
            nodes[field] = parse_expr(src[field])
    return Side(value["fragment"], reading, nodes.get("lane"), nodes["element"], nodes.get("row"),
                nodes.get("col"), src)


def spec_of(relations_path: str, side) -> str:
    """The spec file a side's fragment comes from: shape.yaml beside the relations file."""
    return os.path.join(os.path.dirname(relations_path), side.name.split("/", 1)[0] + ".yaml")


def locate(relations_path: str, rel: Relation, cex: dict, focus=None) -> tuple:
    """A relation that does not hold, pointed at a formula: (location, pieces, replay). The
    differing cell coordinate (after a side's row/col transform) is traced back to the row or col
    pieces that give it, on both sides; the location is the piece of the side whose spec is in
    `focus` (the shapes the command was given), else of the left side; where `focus` is empty
    (the relations file alone was given: the relation is the suspect) the relation's line. The
    relation's own line is kept in the counterexample as `relation_at`."""
    from checker.formula.ast import names
    from checker.formula.evaluate import at

    eq = rel.equation
    left, right = cex["left"]["cell"], cex["right"]["cell"]
    differ = [k for k in (0, 1) if left[k] != right[k]] or [0, 1]
    pieces, replays, first = [], [], {}
    for tag, side in (("left", eq.left), ("right", eq.right)):
        s = cex[tag]
        lane, i = s["lane"], s["i"]
        layout = side.reading.layout
        used = set()
        for k in differ:
            node = side.row if k == 0 else side.col
            used |= {("row", "col")[k]} if node is None else names(node) & {"row", "col"}
        rows, cols = at(layout, lane, i)
        letter = side.reading.fragment.letter
        for target, hits, formula in (("row", rows, layout.row), ("col", cols, layout.col)):
            if target not in used:
                continue
            for k, value, _ in hits:
                where = str(layout.src.span(formula.pieces[k].off))
                first.setdefault(tag, where)
                pieces.append({"point": f"{side.name} {side.reading.fragment.threads.unit} {lane} {letter}{i}", "formula": target, "piece": k + 1,
                               "value": value, "at": where})
        flag = ""
        reverted = side.reading.reverted
        if reverted is not None:
            flag = f" --as-printed {side.reading.fragment.errata.index(reverted) + 1}"
        replays.append(f"checker eval {spec_of(relations_path, side)} --fragment {side.reading.fragment.id} "
                       f"--lane {lane} --i {i}{flag}")
    replay = " ; ".join(dict.fromkeys(replays))
    if focus is not None and not focus:
        return str(rel.span), pieces, replay, []
    sides = [(side.name, first.get(tag), focus is not None and side.name.split("/", 1)[0] in focus)
             for tag, side in (("left", eq.left), ("right", eq.right))]
    return _choose(sides) or str(rel.span), pieces, " ; ".join(dict.fromkeys(replays)), sides


def counted(rel, r, moved):
    """`r`, unless it is a declared refutation that gives different cells at another number of
    points than the relation's `differs`: an edit of a side that keeps the smallest counterexample
    (the witness) but moves other points (dropping a row transform) passed as declared. `moved`:
    (points that differ, points), enumerated over the whole domain (equation.compared)."""
    if rel.expect != "refuted" or not r.declared or moved is None or moved[0] == rel.differs:
        return r
    n, size = moved
    if rel.differs is None:
        why = (f"refuted, as declared, but it does not say at how many points: give differs: {n} (of {size}), so "
               "that an edit that keeps its witness but moves other points is seen")
    else:
        why = (f"refuted, as declared, at its witness, but {n} of {size} points give different cells where it "
               f"declares differs: {rel.differs}: an edit moved its sides (differs: {n} if it is meant)")
    return r.but(verdict=REFUTED, declared=False, location=str(rel.differs_at), message=f"{why} ({r.message})",
                 counterexample={"relation_at": str(rel.span)})


def placed(path: str, rel, r, focus=None):
    """`r`, a result of `rel`'s equation, where the user looks for the cause: a refutation with two
    differing cells at the formula piece that gives one (locate); one that reads an element or
    lane a fragment lacks at that fragment's element list, where the element was dropped (by
    the same rule: the side whose spec was given, else the relation's line where only the
    relations file was). The relation's own line is kept as `relation_at`."""
    from checker.theorems.run import differs

    cex = r.counterexample or {}
    if differs(r):
        location, pieces, replay, sides = locate(path, rel, cex, focus)
        return r.but(location=location, detail={"sides": sides},
                     counterexample={"pieces": pieces, "replay": replay, "relation_at": str(rel.span)})
    if r.verdict != REFUTED or r.declared or "side" not in cex:
        return r
    side = rel.equation.left if cex["side"] == rel.equation.left.name else rel.equation.right
    f = side.reading.fragment
    listed = next((row.elements for row in f.table if row.elements is not None), None)
    at = str(listed.span(0)) if listed is not None and cex["what"] == "element" else str(f.span)
    if focus is not None and not focus:
        return r.but(counterexample={"relation_at": str(rel.span)})
    sides = [(side.name, at, focus is not None and side.name.split("/", 1)[0] in focus)]
    return r.but(location=_choose(sides) or r.location, detail={"sides": sides},
                 counterexample={"relation_at": str(rel.span)})


def _choose(sides: list, failing=None) -> str | None:
    """The location of the side to blame: the one side whose spec was given, else the side whose
    fragment fails the most relations of the run (`failing`: fragment -> count), else the left."""
    located = [s for s in sides if s[1]]
    if not located:
        return None
    given = [s for s in located if s[2]]
    if len(given) == 1:
        return given[0][1]
    pool = given or located
    if failing:
        return max(pool, key=lambda s: failing.get(s[0], 0))[1]  # max keeps the first of a tie
    return pool[0][1]


def blame(results: list) -> list:
    """Where a run's failed relations were located on their left side only for want of a reason
    (both sides' specs given, or neither), each is moved to the side whose fragment fails the most
    relations of the run: with one formula edited, that is the edited one."""
    from collections import Counter

    failing = [r for r in results if r.property in _BETWEEN and r.detail.get("sides")]
    count = Counter(name for r in failing for name, _, _ in r.detail["sides"])
    return [r.but(location=_choose(r.detail["sides"], count) or r.location) if r.property in _BETWEEN
            and r.detail.get("sides") else r for r in results]


def toward(results: list, shapes) -> list:
    """A failed equation between two fragments neither of whose specs was known to be given (a
    wgmma theorem, asked in its own spec's task) moved to the one side whose spec the command was
    given (`shapes`), as a relation is with its focus: where proving m16n8k16.yaml added the wgmma
    specs, the edited formula is the suspect, not the wgmma spec the scope brought in."""
    out = []
    for r in results:
        sides = r.detail.get("sides") if r.property in _BETWEEN else None
        if sides and not any(s[2] for s in sides):
            flagged = [(name, at, name.split("/", 1)[0] in shapes) for name, at, _ in sides]
            if sum(s[2] and bool(s[1]) for s in flagged) == 1:
                r = r.but(location=_choose(flagged) or r.location, detail={"sides": flagged})
        out.append(r)
    return out


# the results whose failures are equations between two fragments, located by `locate`
_BETWEEN = ("relation", "composition", "warpgroup")
