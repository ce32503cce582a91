"""Runs every property of every fragment of a spec, with both engines, errata included."""
from __future__ import annotations

import os
import time

from checker.errors import CheckerError, SpecError
from checker import workers
from checker.files import split_relations
from checker.loading import load, load_error
from checker.options import Options  # noqa: F401 - Options is this module's API too
from checker.properties import engine_properties, enumerate as py_engine, table_properties
from checker.properties.chunk import sparse_ranges
from checker.properties.explain import Explain
from checker.properties import instances
from checker.smt import instances as smt_instances
from checker.results import PROVED, REFUTED, SPEC_ERROR, UNKNOWN, Result
from checker.smt import properties as smt_engine
from checker.smt.symbolic import symbolic
from checker.spec.reading import materialize
from checker.theorems.family import Asked
from checker.theorems.registry import of as families_of, spec_theorems
from checker.theorems.equation import compared, outside, unread
from checker.scope import focus_of
from checker.theorems.relations import blame, counted, load_relations, placed
from checker.theorems.run import equation_result
from checker.theorems.same_as import referee


class EngineDisagreement(CheckerError):
    """The two engines answered differently: a bug in one of them, never a verdict."""


def prove_paths(paths: list, opts: Options) -> list:
    """Every fragment of every spec file, the theorems of each spec, and every relation of the
    relations files, in this process and its workers."""
    paths, relation_files = split_relations(paths)
    return prove_loaded(paths, relation_files, {path: load(path) for path in paths}, opts)


def prove_loaded(paths: list, relation_files: list, loaded: dict, opts: Options) -> list:
    """What prove_paths proves, the specs already loaded (path -> (spec, errors)). All of it is
    spread over `opts.jobs` forked workers, and the results come back in file and fragment
    order whatever the schedule."""
    tasks, relations = [], {}
    for path in paths:
        spec, _ = loaded[path]
        if spec is not None:
            # each family that is not asked after the fragments is a task of its own
            tasks.extend(("theorems", path, f.name) for f in families_of(spec) if not f.after_fragments)
            tasks.extend(("fragment", path, k) for k, _ in enumerate(spec.fragments()))
    known = {os.path.abspath(p): s for p, (s, _) in loaded.items() if s is not None}
    for path in relation_files:
        try:
            relations[path] = (load_relations(path, known), None)
            tasks.extend(("relation", path, k) for k in range(len(relations[path][0])))
        except SpecError as exc:
            relations[path] = ([], [load_error(path, exc)])
    done = _run_tasks(tasks, loaded, relations, opts)
    out = []
    for path in paths:
        spec, errors = loaded[path]
        out.extend(errors or [])
        if spec is None:
            continue
        mine = []
        for k, _ in enumerate(spec.fragments()):
            mine.extend(done[("fragment", path, k)])
        for f in (f for sec in spec.sections for f in sec.figures_only):
            mine.extend(prove_fragment(spec, f, opts))  # fragment-shape and errata only: no formula
        out.extend(mine)
        resolve = referee(path, loaded)  # one read of each sibling for every family that reads them
        asked = Asked(spec, _Readings(spec), opts, tuple(mine), resolve)
        for f in families_of(spec):  # in the registry's order, whichever process asked each
            if f.after_fragments:  # their proofs settle it (dimensions, computations), or it reads the neighbours
                out.extend(_guarded(path, f.name, f.prove, asked))
            else:
                out.extend(done[("theorems", path, f.name)])
    for path in relation_files:
        rels, errors = relations[path]
        out.extend(errors or [])
        for k, _ in enumerate(rels):
            out.extend(done[("relation", path, k)])
    return blame(out)


class _Readings:
    """A spec's readings, each read when first asked for, and kept."""

    def __init__(self, spec):
        self.spec = spec
        self.read_: dict = {}

    def read(self, f):
        if f is None:
            return None
        if f.id not in self.read_:
            try:
                self.read_[f.id] = materialize(f)
            except SpecError:
                self.read_[f.id] = None  # reported with the fragment
        return self.read_[f.id]

    def __contains__(self, fid) -> bool:
        return self.read(self.spec.fragment(fid)) is not None

    def __getitem__(self, fid):
        reading = self.read(self.spec.fragment(fid))
        if reading is None:
            raise KeyError(fid)
        return reading

    def get(self, fid, default=None):
        return self[fid] if fid in self else default


def prove_relation(path, rel, opts) -> list:
    eq = rel.equation
    try:
        fails, moved = "", None
        if rel.expect == "refuted":
            said, moved = compared(eq)  # one count for the message and for `differs`
            fails = f"{rel.statement.rstrip('.')}: refuted as declared; {said}"
        part = unread(eq) if outside(eq) is None else None
        if part is not None:
            # every relation reads its left fragment whole: one cut short (a `for:` range, `lanes:`,
            # the left element) proves a part while its statement, and its verdict, claim the whole
            lane, i = part
            message = (f"cannot hold as stated: no point reads {eq.left.name} lane {lane} element {i}; a relation "
                       "covers its left fragment whole (its for: ranges, lanes and left element reach every "
                       "element of every lane)")
            return [Result(path, None, "relation", REFUTED, 0.0, str(rel.reach or rel.span),
                           {"point": {"%laneid": lane, "i": i}, "message": message}, subject=rel.id,
                           message=message).but(detail={"rests_on": list(rel.rests_on)})]
        r = equation_result(eq, opts, path, "relation", rel.id, str(rel.span), expect=rel.expect,
                            holds=rel.statement, fails=fails, witness=rel.witness)
        # at the formula that gives the differing cell, the relation's line as a note
        r = counted(rel, placed(path, rel, r, focus_of(path)), moved)
    except SpecError as exc:
        r = load_error(path, exc).but(subject=rel.id)
    return [r.but(detail={"rests_on": list(rel.rests_on)})]


_LOADED: dict = {}
_RELATIONS: dict = {}


def _task(args):
    kind, path, k, opts = args
    try:
        if kind == "fragment":
            spec = _LOADED[path]
            return (kind, path, k), prove_fragment(spec, spec.fragments()[k], opts)
        if kind == "theorems":
            spec = _LOADED[path]
            # read lazily: a family reads the few fragments it ties together, not all of them
            return (kind, path, k), spec_theorems(spec, _Readings(spec), opts, (k,))
        return (kind, path, k), prove_relation(path, _RELATIONS[path][k], opts)
    except CheckerError as exc:
        # a theorem that cannot be asked (a fragment of another spec it reads is malformed) is a
        # result of its task at the error's location: raised, it ended a worker, whose failure
        # hid every other result, and the exit code told which process had taken the task
        # (a SpecError raised here exits 3, in a forked worker 1)
        subject = k if kind == "theorems" else None
        fid = _LOADED[path].fragments()[k].id if kind == "fragment" else None
        return (kind, path, k), [_error_result(path, fid, subject or kind, subject, exc)]


def _error_result(path, fid, prop, subject, exc: CheckerError) -> Result:
    """A question that raised, as its located result: a SpecError is a spec error (exit 3),
    anything else the checker could not decide (exit 1)."""
    if isinstance(exc, SpecError):
        return load_error(path, exc).but(fragment=fid, property=prop, subject=subject)
    return Result(path, fid, prop, UNKNOWN, 0.0, path, subject=subject, message=f"could not be decided: {exc}")


def _guarded(path, prop, fn, *args) -> list:
    """fn(*args): the theorems a spec's own process asks (same-as, words, dimensions,
    computations), each a located result where it raises, as a task's are."""
    try:
        return fn(*args)
    except CheckerError as exc:
        return [_error_result(path, None, prop, prop, exc)]


def _run_tasks(tasks, loaded, relations, opts) -> dict:
    _LOADED.clear()
    _LOADED.update({p: s for p, (s, _) in loaded.items() if s is not None})
    _RELATIONS.clear()
    _RELATIONS.update({p: rels for p, (rels, _) in relations.items()})
    work = _heaviest_first([(kind, p, k, opts) for kind, p, k in tasks])
    # forked workers inherit the loaded specs and relations, the readings made so far, and the
    # imported z3, lark and jsonschema
    return dict(workers.run(_task, work, opts.jobs))


def _heaviest_first(work):
    """Larger tasks first, so the workers finish together: a spec's theorems, then fragments by
    domain size, then relations."""
    def weight(item):
        kind, path, k, _ = item
        if kind == "theorems":
            return -(1 << 20) * (1 + len(_LOADED[path].sections[0].computations)) * (k != "shared-layout")
        if kind == "relation":
            return -_RELATIONS[path][k].equation.size()
        f = _LOADED[path].fragments()[k]
        return -(f.rows * f.cols * max(1, len(f.computations)) * (1 + len(f.errata)))
    return sorted(work, key=weight)


def prove_fragment(spec, fragment, opts: Options) -> list:
    t0 = time.perf_counter()
    try:
        reading = materialize(fragment)
    except SpecError as exc:
        return [Result(spec.path, fragment.id, "load", SPEC_ERROR, time.perf_counter() - t0,
                       str(exc.span), message=exc.message + (f" ({exc.hint})" if exc.hint else ""))]
    try:
        results = check_reading(spec, reading, opts)
        for erratum in fragment.errata:
            if not erratum.words:  # errata of words are checked with the spec's words (theorems.wording)
                results.extend(check_erratum(spec, fragment, erratum, reading.n, opts))
    except EngineDisagreement as exc:
        return [Result(spec.path, fragment.id, "engines", UNKNOWN, time.perf_counter() - t0, str(fragment.span),
                       message=f"the z3 and plain-Python engines disagree, so neither is trusted: {exc}")]
    return results


def check_reading(spec, reading, opts, erratum=None) -> list:
    """Every property of one reading; each result says where and why."""
    f = reading.fragment
    results = []
    for prop in table_properties(reading):
        t0 = time.perf_counter()
        verdict, found = prop.check(reading)
        results.append(Result(spec.path, f.id, prop.name, PROVED if verdict == PROVED else REFUTED,
                              time.perf_counter() - t0, found.location if found else str(f.span),
                              found.counterexample if found else None, message=found.message if found else ""))
    if reading.layout is None:
        return results
    sym = symbolic(reading.layout, reading.width)
    props = engine_properties(reading)
    doms = f.domains()
    together = None
    if len(doms) > 1:
        name = f"{spec.shape}.{f.id}" + (".printed" if reading.reverted else "")
        together = smt_engine.prove_computations(name, sym, [lanes for _, lanes in doms], reading.n,
                                                 f.rows, f.cols, props, opts.dump_smt)
    elif f.params:  # a parametric fragment's instances (wgmma D at every N), decided together where they can be
        shared = instances.decide_family(spec, reading, props, lambda rs, ps: smt_instances.prove_every_n(
            f"{spec.shape}.{f.id.split('[')[0]}", rs, ps, opts.dump_smt))
        together = {doms[0][1]: shared} if shared else None
    for comp, lanes in doms:
        known = together[lanes] if together else None
        results.extend(_smt_domain(spec, reading, comp, lanes, opts, sym, props, known))
    return results


def _smt_domain(spec, reading, comp, lanes, opts, sym, props, known=None) -> list:
    f = reading.fragment
    name = f"{spec.shape}.{f.id}" + (f".mma{comp}" if comp else "") + (".printed" if reading.reverted else "")
    t0 = time.perf_counter()
    py = py_engine.decide_reading(reading, lanes) if opts.cross_check else None
    if py is not None:
        hint = py["covers"][1].cell if py["covers"][0] == REFUTED else None
    else:
        hint = lambda: _hole_by_enumeration(reading, lanes, f)  # noqa: E731 - only if counting can't decide
    t1 = time.perf_counter()
    answers = known or smt_engine.prove(name, sym, lanes, reading.n, f.rows, f.cols, props, opts.dump_smt, hint,
                                        sparse_ranges(reading), expect=py)
    ex = Explain(spec.path, reading, comp)
    out = []
    for prop in props:
        a = answers[prop.name]
        if py is not None and a.verdict != UNKNOWN and (a.verdict, a.witness) != py[prop.name]:
            raise EngineDisagreement(f"{name} {prop.name}: z3 says {a.verdict} {_shown(a.witness)}, "
                                     f"enumeration says {py[prop.name][0]} {_shown(py[prop.name][1])}")
        verdict = a.verdict
        found = prop.message(ex, a.witness) if a.witness else None
        msg = found.message if found else ""
        if verdict == UNKNOWN:
            msg = f"z3 could not decide {prop.name}: {a.reason}"
        out.append(Result(spec.path, f.id, prop.name, verdict, a.seconds,
                          (found.location if found else None) or str(f.formula.span(0)),
                          found.counterexample if found else None, computation=comp, message=msg,
                          detail={"reason": a.reason, "python_seconds": (t1 - t0) / len(props)}))
    return out


def _shown(witness) -> str:
    return str(witness.as_json()) if witness is not None else "None"


def _hole_by_enumeration(reading, lanes, f):
    """Without the full cross-check, covers still needs a concrete hole to show."""
    tab = py_engine.table(reading.layout, lanes, reading.n)
    return py_engine.smallest_hole(py_engine.image(tab), f.rows, f.cols)


def check_erratum(spec, fragment, erratum, n, opts) -> list:
    t0 = time.perf_counter()
    try:
        printed = materialize(fragment, erratum, n)
    except SpecError as exc:
        return [Result(spec.path, fragment.id, "erratum", SPEC_ERROR, time.perf_counter() - t0, str(exc.span),
                       message=exc.message + (f" ({exc.hint})" if exc.hint else ""))]
    found = {}
    if printed.syntax is not None:
        found["syntax"] = Result(spec.path, fragment.id, "syntax", REFUTED, time.perf_counter() - t0,
                                 str(printed.syntax.span), {"message": printed.syntax.message},
                                 message=f"the printed {'element list' if erratum.field == 'elements' else erratum.field} does not parse: {printed.syntax.message}")
    for r in check_reading(spec, printed, opts):
        if r.verdict == REFUTED and r.property not in found:
            found[r.property] = r
        elif r.verdict in (UNKNOWN, SPEC_ERROR):
            return [r.but(message=f"as printed (erratum at {erratum.span}): {r.message}")]
    declared = set(erratum.breaks)
    if set(found) != declared:
        extra, missing = sorted(set(found) - declared), sorted(declared - set(found))
        what = "; ".join(filter(None, [
            f"the printed text also breaks {'; '.join(_broken(found[p]) for p in extra)}" if extra else "",
            f"the printed text does not break {', '.join(missing)}" if missing else ""]))
        return [Result(spec.path, fragment.id, "erratum", REFUTED, time.perf_counter() - t0, str(erratum.span),
                       {"declared": sorted(declared), "printed_breaks": sorted(found), **_evidence(found, extra)},
                       message=f"erratum not confirmed as declared: {what}")]
    out = []
    for prop in sorted(found):
        r = found[prop]
        out.append(r.but(erratum=True, detail={"erratum": {"printed": erratum.printed, "value": erratum.value.text,
                                                           "why": erratum.erratum, "at": str(erratum.span)}},
                         counterexample={"erratum_at": str(erratum.span)} if r.counterexample is not None else None))
    return out


def _broken(r: Result) -> str:
    """A property the printed text breaks and did not declare, with its counterexample's words:
    "covers: as printed: A.b1 does not cover A[8][0]: no lane holds it"."""
    return f"{r.property}: {r.message}" if r.message else r.property


def _evidence(found: dict, props) -> dict:
    """The counterexamples of the undeclared breaks, as a refutation's: each one's cell or
    points, the pieces that give them and the commands that replay them."""
    cexs = {p: found[p].counterexample for p in props if found[p].counterexample}
    if not cexs:
        return {}
    replays = [c["replay"] for c in cexs.values() if c.get("replay")]
    first = next(iter(cexs.values()))
    return {**{k: first[k] for k in ("lanes", "elements", "cell") if k in first}, "breaks": cexs,
            "pieces": [piece for c in cexs.values() for piece in c.get("pieces", ())],
            "replay": " ; ".join(replays) if replays else None}
