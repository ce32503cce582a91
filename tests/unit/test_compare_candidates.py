"""The interface the compare engine asks of a candidate layout (checker.compare.candidates.Candidate):
every kind is one, `within` (what z3 is given) and `missing` (why a point holds nothing) have
documented defaults that a kind overrides, and the engine calls them instead of asking whether a
candidate happens to have them."""
import ast
import inspect
import os

from checker.compare import candidates, compare_layout, copyatom, engine, inputs
from checker.spec.load import load_spec
from conftest import SPECS

A_F16 = "((4,8),(2,2,2)):((32,1),(16,8,128))"  # CuTe's SM80_16x8x16 ALayout


def _a_f16():
    return load_spec(os.path.join(SPECS, "m16n8k16.yaml")).fragment("A.f16")


def test_every_kind_of_candidate_is_a_candidate():
    kinds = (candidates.Cute, candidates.Bases, candidates.Formula, candidates.Table, copyatom.CopyAtom)
    assert all(issubclass(kind, candidates.Candidate) for kind in kinds)


def test_the_defaults_keep_the_candidate_and_add_nothing_and_a_table_narrows_itself():
    cute = inputs.cute(A_F16, _a_f16())
    assert cute.within(32, 8) is cute and cute.missing(0, 0) == ""
    table = candidates.Table({(0, 0): (0, 0), (0, 9): (1, 1), (40, 0): (2, 2), (33, 1): (3, 3)})
    assert table.within(32, 8).entries == {(0, 0): (0, 0), (0, 9): (1, 1)}  # the domain's, the smallest beyond
    assert table.missing(5, 5) == ""


def _spec(t, i):
    """m16n8k16's A.f16 (the document's formula, by hand)."""
    return t // 4 + 8 * (i // 2 % 2), t % 4 * 2 + i % 2 + 8 * (i // 4)


def test_a_kind_on_the_interface_alone_is_compared_with_the_defaults():
    class Holed(candidates.Candidate):
        """A kind of its own, with no `within` or `missing` of its own: the spec's layout but for
        thread 3's element 5, which it does not hold."""

        kind, threads, elements = "holed", 32, 8

        def describe(self):
            return "the holed layout"

        def holds(self, t, i):
            return (t, i) != (3, 5) and t < 32 and i < 8

        def cells(self, points):
            return [_spec(t, i) if self.holds(t, i) else None for t, i in points]

        def detail(self, t, i):
            return "its formula"

        def outside(self, spec_threads, n):
            return 0, None

        def form(self):
            points = [(t, i) for t in range(32) for i in range(8) if self.holds(t, i)]
            return candidates.Table({p: _spec(*p) for p in points}).form()

    got = compare_layout(_a_f16(), Holed())
    assert not got.equal and (got.difference.thread, got.difference.i) == (3, 5)
    assert got.difference.candidate is None and got.difference.detail == ""


def test_the_engine_asks_the_interface_not_whether_a_candidate_has_it():
    calls = [node for node in ast.walk(ast.parse(inspect.getsource(engine)))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id in ("hasattr", "getattr")]
    assert calls == []
