"""The mutation campaign: how strong is the theorem set? Every single-point mutant of every
formula (operators.py) goes through what `checker prove` would run on it, cheapest first:

  bounds         the mutant is rejected before proving (a value out of range, a shift too far)
  defined, in-range, injective, covers
                 the per-fragment properties, decided by enumeration of the whole domain (the
                 plain-Python engine; `prove` shows it agrees with z3 on every verdict)
  computations, shared-layout, packing, composition, containers, warpgroup
                 the spec's cross-layout theorems, both engines, with the mutant in place, one
                 family at a time (checker.theorems.registry.FAMILIES: those the readings decide)
  relation       every relation of the relations files that reads the fragment
  crosscheck     every probe dump given (--dumps) of a variant that reads the fragment, run
                 through `checker crosscheck` with the mutant in place: hardware says which lane
                 holds which cell, which no theorem about the layouts alone can
  equivalent     z3 proves the mutant's map equal to the original at every (lane, i), and the
                 enumeration agrees: not a defect, no theorem could kill it
  survivor       none of the above: a wrong layout that every theorem lets through

A survivor is a hole in the theorem set; `known-gaps.yaml` may list it with the theorem that
would close it, and anything not listed (or listed but no longer surviving) fails the run.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from checker.errors import CheckerError, SpecError
from checker.formula import ast, printer
from checker.formula.bounds import Bounds
from checker.formula.lower import lower
from checker.formula.parser import parse_block
from checker.mutate.operators import mutants
from checker.properties import REGISTRY, enumerate as py_engine
from checker import workers
from checker.options import Options
from checker.spec.checked import load_checked
from checker.spec.reading import formula_source, materialize, substituted
from checker.source import plain
from checker.theorems.registry import FAMILIES, spec_theorems
from checker.theorems.equation import Equation, Side, difference
from checker.files import split_relations
from checker.theorems.relations import load_relations
from checker.theorems.run import Disagreement, decide, equation_result
from checker.results import PROVED, UNKNOWN

# cheapest first: the engine properties in the registry's order, then the theorem families in
# theirs. Both come from the registries, so a property or theorem family added there has its
# place here (a verdict missing from ORDER would have no column to be counted in).
ORDER = ("bounds", *(p.name for p in REGISTRY if p.kind != "table"), *FAMILIES, "relation", "crosscheck",
         "equivalent", "survivor")


@dataclass
class Outcome:
    spec: str
    fragment: str
    location: str
    operator: str
    before: str  # the formula line as it was
    after: str  # and as the mutant has it
    verdict: str  # one of ORDER
    by: str = ""  # the theorem's subject, or the relation's id, that killed it
    difference: str = ""  # for a survivor: how its map differs

    def key(self) -> str:
        return f"{self.fragment} {self.location.rsplit(':', 2)[-2]} {self.operator}: {self.before} -> {self.after}"

    def as_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class SpecCampaign:
    spec: str
    outcomes: list = field(default_factory=list)
    dumps: list = field(default_factory=list)  # (path, synthetic?) of the dumps its mutants met

    def counts(self) -> dict:
        out = {k: 0 for k in ORDER}
        for o in self.outcomes:
            out[o.verdict] += 1
        return out


def _lines(before: str, after: str) -> tuple:
    a, b = before.splitlines(), after.splitlines()
    for x, y in zip(a, b):
        if x != y:
            return x.strip(), y.strip()
    return "", ""


class _Context:
    """What one spec's mutants are measured against: its readings and the relations that read it."""

    def __init__(self, path: str, relation_files: list, opts: Options, dumps: list):
        self.path, self.opts = path, opts
        self.spec = load_checked(path)
        self.readings = {f.id: materialize(f) for f in self.spec.fragments()}
        self.relations = []
        known = {os.path.abspath(path): self.spec}
        for rp in relation_files:
            for rel in load_relations(rp, known, only={self.spec.shape}):  # those that read this spec
                self.relations.append((rp, rel))
        self.dumps = _dumps_of(self.spec, path, dumps)
        self._before: dict = {}

    def before(self, key, ask):
        """What the unmutated spec already fails at `key` (asked once, the first time a mutant
        fails there). A mutant is killed only by what the original passes: one with the
        original's map fails exactly what the original fails, and must stay `equivalent`.
        `checker mutate` proves the specs before mutating them, so this is empty there."""
        if key not in self._before:
            self._before[key] = ask()
        return self._before[key]


def _dumps_of(spec, path: str, dumps: list) -> list:
    """(dump, variant) for every dump of this spec's variants. A dump the spec itself disagrees
    with would kill every mutant and measure nothing, so it stops the campaign."""
    from checker.probe.crosscheck import check_dump
    from checker.semantics.variants import variants

    by_instruction = {v.instruction: v for v in variants(spec)}
    out = []
    for d in dumps:
        v = by_instruction.get(d.header["instruction"])
        if v is None:
            continue
        bad = [r for r in check_dump(v, path, d) if r.failed()]
        if bad:
            raise CheckerError(f"{bad[0].location}: {path} itself disagrees with the dump {d.path} "
                               f"({bad[0].property}: {bad[0].message}); run `checker crosscheck` and settle that "
                               "first: every mutant measured against it would be killed")
        out.append((d, v))
    return out


def _mutant_reading(reading, block, src):
    f = reading.fragment
    layout = lower(block, src, f.letter, f.sparsity, f.threads, dict(f.params))
    width = max(Bounds(layout, (0, f.threads.count - 1), reading.n).bits(), reading.width)
    return dataclasses.replace(reading, layout=layout, width=width)


def _fragment_failures(reading, fragment) -> set:
    return {(k, prop) for k, (_, lanes) in enumerate(fragment.domains())
            for prop, (verdict, _) in py_engine.decide_reading(reading, lanes).items() if verdict != PROVED}


def _fragment_verdict(ctx, reading, fragment) -> str | None:
    def before():
        return _fragment_failures(ctx.readings[fragment.id], fragment)

    for k, (_, lanes) in enumerate(fragment.domains()):
        answers = py_engine.decide_reading(reading, lanes)
        for prop, (verdict, _) in answers.items():
            if verdict != PROVED and (k, prop) not in ctx.before(("fragment", fragment.id), before):
                return prop
    return None


def _failed_theorems(results) -> list:
    return [(r.property, r.subject) for r in results if r.failed()]


def _theorem_verdict(ctx, fid, mreading) -> tuple:
    readings = dict(ctx.readings, **{fid: mreading})
    # family by family: the verdict is the family that fails, whatever its results call
    # themselves (a composition whose fragment no longer loads is a `load` result)
    for family in FAMILIES:
        for prop, subject in _failed_theorems(spec_theorems(ctx.spec, readings, ctx.opts, (family,))):
            before = ctx.before(("family", family),
                                lambda: set(_failed_theorems(spec_theorems(ctx.spec, ctx.readings, ctx.opts, (family,)))))
            if (prop, subject) not in before:
                return family, (subject or "") if prop == family else f"{prop}: {subject}"
    original = ctx.readings[fid]

    def reads_it(side) -> bool:  # the side reads this fragment's reading (its own, or one made alike)
        return side.reading.fragment is original.fragment and side.reading.reverted is None

    for path, rel in ctx.relations:
        sides = [rel.equation.left, rel.equation.right]
        if not any(reads_it(s) for s in sides):
            continue
        eq = dataclasses.replace(rel.equation, **{tag: dataclasses.replace(s, reading=mreading)
                                                  for tag, s in (("left", sides[0]), ("right", sides[1]))
                                                  if reads_it(s)})
        r = equation_result(eq, ctx.opts, path, "relation", rel.id, str(rel.span), expect=rel.expect,
                            witness=rel.witness)
        if r.failed() and not ctx.before(("relation", path, rel.id), lambda: equation_result(
                rel.equation, ctx.opts, path, "relation", rel.id, str(rel.span), expect=rel.expect,
                witness=rel.witness).failed()):
            return "relation", rel.id
    return None, ""


def _crosscheck_verdict(ctx, fragment, mreading) -> tuple:
    from checker.probe.crosscheck import check_dump

    for d, v in ctx.dumps:
        if not any(f is fragment for f in (v.a, v.b, v.c, v.d)):
            continue
        with substituted(fragment, mreading):
            results = check_dump(v, ctx.path, d)
        for r in results:
            if r.failed():
                tag = " (synthetic dump: the reference model, not hardware)" if d.synthetic else ""
                return "crosscheck", f"{r.property} {r.subject}{tag}"
    return None, ""


def _equivalence(original, mreading, fragment) -> tuple:
    """(equivalent?, difference): z3 and the enumeration both asked whether the maps are equal."""
    span = fragment.span
    lanes = fragment.holders()  # a warpgroup fragment: all 128 threads; a scale factor: its selector's lanes
    i = ast.Var("i", 0)
    src = {"element": plain("i", span)}
    left = Side("original", original, None, i, None, None, src)
    right = Side("mutant", mreading, None, i, None, None, src)
    eq = Equation(f"{fragment.id} mutant", (("i", tuple(range(original.n))),), lanes, left, right, span)
    verdict, _, _, _ = decide(eq, Options(cross_check=True))
    if verdict == PROVED:
        return True, ""
    if verdict == UNKNOWN:
        raise Disagreement(f"{fragment.id}: z3 gave no answer on the equivalence of a mutant")
    return False, difference(eq)


def run_fragment(ctx: _Context, fragment) -> list:
    out = []
    src = formula_source(fragment)
    block = parse_block(src)
    text = printer.block(block)
    original = ctx.readings[fragment.id]
    for m in mutants(block):
        before, after = _lines(text, printer.block(m.block))
        o = Outcome(ctx.path, fragment.id, str(src.span(m.off)), m.operator, before, after, "survivor")
        try:
            mreading = _mutant_reading(original, m.block, src)
        except SpecError:
            o.verdict = "bounds"
            out.append(o)
            continue
        prop = _fragment_verdict(ctx, mreading, fragment)
        if prop is None:
            prop, o.by = _theorem_verdict(ctx, fragment.id, mreading)
        if prop is None and ctx.dumps:
            prop, o.by = _crosscheck_verdict(ctx, fragment, mreading)
        if prop is None:
            same, o.difference = _equivalence(original, mreading, fragment)
            prop = "equivalent" if same else "survivor"
        o.verdict = prop
        out.append(o)
    return out


_CTX: dict = {}


def _task(args):
    path, k = args
    ctx = _CTX[path]
    return run_fragment(ctx, ctx.spec.fragments()[k])


def _mutated(fragments) -> list:
    """The fragments whose formulas are mutated: each formula once. A parametric fragment's
    instances (wgmma D at every N) share one formula: its mutants are judged at the largest N, where
    the family theorems ask about the whole map."""
    last = {f.span: k for k, f in enumerate(fragments)}
    return [k for k, f in enumerate(fragments) if last[f.span] == k]


def campaign(files: list, jobs: int, dumps: list = ()) -> list:
    """dumps: probe dumps already read (checker.probe.dump.read)."""
    specs, relation_files = split_relations(files)
    opts = Options(cross_check=True)
    for p in specs:
        _CTX[p] = _Context(p, relation_files, opts, list(dumps))
    tasks = [(p, k) for p in specs for k in _mutated(_CTX[p].spec.fragments())]
    done = workers.run(_task, tasks, jobs)
    out = {p: SpecCampaign(p, dumps=[(d.path, d.synthetic) for d, _ in _CTX[p].dumps]) for p in specs}
    for (p, _), outcomes in zip(tasks, done):
        out[p].outcomes.extend(outcomes)
    return [out[p] for p in specs]
