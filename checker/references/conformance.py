"""Every reference entry against its spec fragment: equal (proved by z3 and the enumeration), differs
(with the smallest counterexample), malformed (the upstream text is not a layout: the entry says
so, and the parser's error shows it), or not modelled (no spec of that fragment yet).

An entry says what it expects (current: equal; historical: differs); a verdict that is not what
the entry expects is a failure, so the known historical bugs stay caught and the current layouts
stay equal."""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from checker.errors import CheckerError, SpecError

NOT_MODELLED = "not modelled"


@dataclass(frozen=True)
class Verdict:
    reference: object  # refdata.Reference
    verdict: str  # equal | differs | malformed | not modelled
    reason: str  # why not modelled or malformed; the difference's sentence when differs
    comparison: object | None  # checker.compare.Comparison
    spec_file: str | None

    @property
    def as_expected(self) -> bool:
        return self.verdict == NOT_MODELLED or self.verdict == self.reference.expect


def candidate(enc, fragment):
    """The candidate layout an entry's encoding states, for this fragment."""
    from checker.compare import candidates

    f = enc.fields
    if enc.kind == "cute":
        from checker.compare.inputs import cute_tile

        _tile, transposed, names = cute_tile(fragment)
        return candidates.Cute(f["layout"], f["tile"], transposed, names=names, sparse=f.get("sparse", 1))
    if enc.kind in ("cute-copy", "cute-tmem"):
        return f["atom"]
    if enc.kind == "triton":
        return candidates.Bases(f["register"], f["lane"] + f["warp"], len(f["lane"]))
    if enc.kind == "formula":
        from checker.formula.bounds import Bounds
        from checker.formula.lower import lower

        threads = fragment.threads.count
        layout = lower(f["block"], f["src"], fragment.letter, None, fragment.threads, dict(fragment.params))
        limit = max(fragment.rows, fragment.cols, threads, f["elements"])
        width = max(Bounds(layout, (0, threads - 1), f["elements"]).bits(), limit.bit_length() + 2)
        return candidates.Formula(layout, width, threads, f["elements"], f["src"].text, f["transposed"])
    if enc.kind == "mosaic-tiled":
        from checker.references.mosaic import tile_shape, tiled

        # a warp-level MMA's layout is its warpgroup's tile (`array`), of which warp `warp` is compared
        shape = f["array"] or (fragment.rows, fragment.cols)
        if tile_shape(shape, f["tiling"]) is None:  # the loader checked a given array; the fragment's is known here
            raise SpecError(f["at"], f"the tiling {[list(t) for t in f['tiling']]} does not apply to {fragment.id}'s "
                                     f"{shape[0]} x {shape[1]} (rows x cols); an entry of a larger array gives "
                                     "array: [rows, cols]")
        return candidates.Table(tiled(shape, f["tiling"], f["warp_dims"], f["lane_dims"], f["vector_dim"], f["warp"]),
                                "Mosaic GPU's tiled layout")
    return candidates.Table(f["entries"], "the table")


def computation_of(ref, fragment):
    """CuTe's SM70 quad-pair numbering: every MMA computation, each by its own lanes."""
    if ref.encoding.kind == "cute" and ref.encoding.fields["threads"] == "sm70-quadpair":
        return "all" if fragment.computations else None
    return None


class Specs:
    """The spec files of the paths given, by shape, loaded on first use."""

    def __init__(self, spec_files: list):
        self.by_shape = {}
        for path in spec_files:
            self.by_shape.setdefault(os.path.splitext(os.path.basename(path))[0], path)
        self.loaded: dict = {}

    def fragment(self, ref):
        """(spec file, fragment) or (spec file or None, why it is not modelled)."""
        from checker.spec.load import load_spec

        path = self.by_shape.get(ref.spec)
        if path is None:
            return None, f"no spec {ref.spec} yet"
        if path not in self.loaded:
            try:
                self.loaded[path] = load_spec(path)
            except SpecError as exc:
                self.loaded[path] = exc
        spec = self.loaded[path]
        if isinstance(spec, SpecError):
            return path, f"{ref.spec} does not load ({spec})"
        frag = spec.fragment(ref.fragment_id)
        if frag is None and not any(ref.fragment_id == f.id for s in spec.sections for f in s.figures_only):
            # the spec is there and names no such fragment: a mistyped id, which "not modelled" let through
            from checker.spec.lookup import unknown

            raise SpecError(ref.span, f"the entry {ref.name!r} names a fragment its spec does not have: "
                                      f"{unknown(spec, path, ref.fragment_id)}")
        if frag is None or frag.formula is None:
            return path, f"{ref.spec} {ref.fragment_id} is given only as a figure"
        return path, frag


def judge(ref, specs: Specs, reading=None) -> Verdict:
    """One entry against its fragment (or against `reading`, an erratum's printed text)."""
    from checker.compare import engine
    from checker.spec.reading import materialize

    path, frag = specs.fragment(ref)
    if isinstance(frag, str):
        return Verdict(ref, NOT_MODELLED, frag, None, path)
    problem = ref.encoding.fields.get("problem")
    if problem is not None:
        return Verdict(ref, "malformed", str(problem), None, path)
    reading = reading or materialize(frag)
    try:
        cand = candidate(ref.encoding, frag)
        result = engine.run(ref.spec, frag, reading, cand, computation_of(ref, frag))
    except SpecError:
        raise
    except CheckerError as exc:  # the engines disagree, or z3 could not decide: never a verdict
        raise CheckerError(f"{ref.span}: {ref.name}: {exc}") from None
    if result.equal:
        return Verdict(ref, "equal", "", result, path)
    return Verdict(ref, "differs", result.difference.sentence(frag.operand), result, path)


def run(spec_files: list, reference_paths=None, jobs: int = 1) -> list:
    """Each entry is a proof of its own (z3 and the enumeration), spread over `jobs` forked workers
    as `prove` spreads its tasks; an error is the first entry's in order, as in one process."""
    from checker import workers
    from checker.references.load import load_all

    specs = Specs(spec_files)
    return workers.run_in_order(functools.partial(judge, specs=specs), load_all(reference_paths), jobs)


def exit_code(verdicts: list) -> int:
    return 0 if all(v.as_expected for v in verdicts) else 1
