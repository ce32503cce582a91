"""CuTe's ldmatrix / stmatrix / movmatrix copy atoms (reference kind cute-copy) in `checker
conformance`: every entry decided by z3 and by the enumeration, which agree; a changed stride, row
order or byte shuffle refuted at the smallest (lane, i); malformed atoms refused at file:line:col."""
import dataclasses

import pytest

from checker.compare import compare_layout, copyatom, cute
from checker.errors import CheckerError, SourceSpan
from checker.references import conformance, load
from checker.source import plain
from conftest import SPECS
from checker.results import PROVED, REFUTED

ATOMS = [r for r in load.load_all() if r.encoding.kind == "cute-copy"]


@pytest.fixture(scope="module")
def specs():
    from checker.commands.common import spec_files

    return conformance.Specs(spec_files([SPECS]))


def atom(name: str, **changes):
    """An entry's atom with some fields replaced (a layout given as text)."""
    a = next(r for r in ATOMS if r.name == name).encoding.fields["atom"]
    for k in ("registers", "memory"):
        if isinstance(changes.get(k), str):
            changes[k] = cute.parse(plain(changes[k], SourceSpan("mutant", 1, 1)))
    return dataclasses.replace(a, **changes)


def fragment(specs, name):
    ref = next(r for r in ATOMS if r.name == name)
    return specs.fragment(ref)[1]


def test_the_shipped_atoms_are_all_modelled():
    assert len(ATOMS) == 25
    assert {r.spec for r in ATOMS} == {"ldmatrix.m8n8", "ldmatrix.m16n16", "ldmatrix.m8n16", "stmatrix.m8n8",
                                       "stmatrix.m16n8", "movmatrix.m8n8"}


@pytest.mark.parametrize("ref", ATOMS, ids=[r.name for r in ATOMS])
def test_every_atom_is_decided_by_both_engines(specs, ref):
    v = conformance.judge(ref, specs)
    assert v.verdict in ("equal", "differs") and v.as_expected, (v.verdict, v.reason)
    assert v.comparison.points == 32 * ref.encoding.fields["atom"].elements
    want = "unsat" if v.verdict == "equal" else "smallest counterexample"
    assert all(want in p and "enumeration agrees" in p for p in v.comparison.proofs), v.comparison.proofs


@pytest.mark.parametrize("ref", ATOMS, ids=[r.name for r in ATOMS])
def test_z3_alone_decides_every_atom(specs, ref):
    """z3's verdict without the enumeration's point to confirm: its own proof, or its own search."""
    from checker.smt import compare as smt
    from checker.spec.reading import materialize

    frag = fragment(specs, ref.name)
    reading = materialize(frag)
    a = ref.encoding.fields["atom"]
    box = (min(max(32, a.threads), 33), min(max(reading.n, a.elements), reading.n + 1))
    got = smt.differ(f"test.copy.{ref.name}", reading, tuple(range(32)), reading.n, a.form(), box)
    if ref.expect == "equal":
        assert got.verdict == PROVED, got.witness
    else:
        assert got.verdict == REFUTED and (got.witness["t"], got.witness["i"]) == (0, 1)


def test_the_movmatrix_atom_encodes_no_transpose(specs):
    """SM75_U32x1_MOVM_T's DstLayout is its SrcLayout: d would hold what a holds. movmatrix's d is
    the transpose: the smallest point where they differ is lane 0, d1 (M[1][0], not M[0][1]), and
    they agree only on the diagonal (8 of 64 points)."""
    v = conformance.judge(next(r for r in ATOMS if r.name == "SM75_U32x1_MOVM_T.DstLayout"), specs)
    d = v.comparison.difference
    assert v.verdict == "differs" and (d.thread, d.i, d.spec, d.candidate) == (0, 1, (1, 0), (0, 1))
    assert v.comparison.differing == 56 and v.comparison.points == 64


@pytest.mark.parametrize("name, changes, point, spec, candidate, why", [
    # the x4 atom's third matrix one matrix too far (stride 2048 for 1024)
    ("SM75_U32x4_LDSM_N", {"registers": "(32,(32,4)):(32,(1,2048))"}, (0, 2), (8, 0), (16, 0), "bit 2048"),
    # the lane stride halved: lane 1 reads half 1 of row 0, not half 2
    ("SM75_U32x1_LDSM_N", {"registers": "(32,32):(16,1)"}, (1, 0), (0, 2), (0, 1), "bit 16"),
    # the bits of a half no longer consecutive: no element at all
    ("SM75_U32x1_LDSM_N", {"registers": "(32,32):(32,2)"}, (0, 0), (0, 0), None, "not one element"),
    # .trans with the second half two rows down instead of one
    ("SM75_U16x2_LDSM_T", {"registers": "((4,8),(16,2)):((256,16),(1,256))"}, (0, 1), (1, 0), (2, 0), "bit 256"),
    # the m16n16 atom's rows in thread order (its SrcLayout read as the identity's)
    ("SM100_U8x8_LDSM_T", {"memory": "((2,2,4,2),128):((256,1024,128,0),1)"}, (0, 1), (1, 0), (4, 0), "thread 4"),
    # without its byte shuffle
    ("SM100_U8x8_LDSM_T", {"shuffle": ()}, (0, 2), (2, 0), (0, 8), "bit 64"),
    # the x2 atom given the x1 addresses: the second matrix's rows are loaded by no one
    ("SM75_U32x2_LDSM_N", {"memory": "((8,4),128):((128,0),1)"}, (0, 2), (8, 0), None, "no thread gives"),
    # the movmatrix source atom with a transposing stride pattern
    ("SM75_U32x1_MOVM_T.SrcLayout", {"registers": "((4,8),(16,2)):((256,16),(1,128))"}, (0, 1), (0, 1), (1, 0),
     "bit 128"),
])
def test_a_changed_atom_is_refuted_at_the_smallest_point(specs, name, changes, point, spec, candidate, why):
    result = compare_layout(fragment(specs, name), atom(name, **changes))
    d = result.difference
    assert not result.equal and (d.thread, d.i) == point and d.spec == spec and d.candidate == candidate
    assert why in d.detail and all("enumeration agrees" in p for p in result.proofs)
    assert compare_layout(fragment(specs, name), atom(name)).equal


def test_the_engines_cross_check_each_other(specs, monkeypatch):
    """A wrong plain-Python evaluation of the atom (lane 5's cells transposed) is caught: z3 reads the
    layouts on its own, so the two disagree and no verdict is given."""
    ref = next(r for r in ATOMS if r.name == "SM75_U32x1_LDSM_N")
    real = copyatom.CopyAtom.cell

    def wrong(self, t, i):
        r, c = real(self, t, i)
        return (c, r) if t == 5 else (r, c)

    monkeypatch.setattr(copyatom.CopyAtom, "cell", wrong)
    with pytest.raises(CheckerError, match="disagree"):
        conformance.judge(ref, specs)


COPY = """library: CuTe
repo: NVIDIA/cutlass
commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
path: include/cute/atom/copy_traits_sm100.hpp
entries:
  - name: SM100_U8x8_LDSM_T
    line: 77
    fragment: {spec: ldmatrix.m16n16, id: r.x1.trans}
    status: current
    encoding:
      kind: cute-copy
      registers: "((4,8),(8,2,2,2)):((256,8),(1,128,64,1024))"
      memory: "((2,2,4,2),128):((128,1024,256,0),1)"
      tile: [16, 128]
      element_bits: 8
      shuffle:
        path: include/cute/arch/copy_sm100.hpp
        line: 114
        registers:
          - "tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y"
          - "tmp0_.z, tmp0_.w, tmp1_.z, tmp1_.w"
"""


@pytest.mark.parametrize("old, new, line, col, what", [
    ("element_bits: 8", "element_bits: 12", 15, 21, "a power of two that divides 128"),
    ("element_bits: 8", "element_bits: 16", 16, 7, "element_bits must be 8"),
    ("tile: [16, 128]", "tile: [16, 64]", 14, 18, "expected 128"),
    ("tile: [16, 128]", "tile: 16", 14, 13, "expected [rows, 128]"),
    ("(1,128,64,1024))", "(1,128,64))", 12, 46, "not congruent"),
    ("((4,8),(8,2,2,2)):((256,8),(1,128,64,1024))", "((4,8),(4,3)):((256,8),(1,128))", 12, 18,
     "not a whole number of 8-bit elements"),
    ("(128,1024,256,0),1)", "(64,1024,256,0),1)", 13, 15, "thread 1's row starts at bit 64"),
    ("((2,2,4,2),128):((128,1024,256,0),1)", "((2,2,4,2),64):((128,1024,256,0),1)", 13, 15, "has 64 values"),
    ("((2,2,4,2),128):((128,1024,256,0),1)", "((2,2,4,2),128):((128,1024,256,0),2)", 13, 15, "value 1 is bit 2"),
    ('"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y"', '"tmp0_.x, tmp0_.x, tmp1_.x, tmp1_.y"', 20, 13, "moved twice"),
    ('"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y"', '"tmp0_.x, tmp0_.q, tmp1_.x, tmp1_.y"', 20, 13, "expected a byte"),
    ('"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y"', '"tmp0_.x, tmp0_.y, tmp1_.x"', 20, 13, "expected 4 bytes"),
    ('"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y"', '"tmp0_.x, tmp0_.y, tmp١_.x, tmp1_.y"', 20, 13, "expected a byte"),
    ('"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y"', '"tmp0_.x, tmp0_.y, tmp9_.x, tmp1_.y"', 21, 13, "not a permutation"),
    ('          - "tmp0_.z, tmp0_.w, tmp1_.z, tmp1_.w"\n', "", 20, 13, "is never moved"),
    ("      element_bits: 8\n", "      element_bits: 8\n      colour: red\n", 16, 7, "unknown field 'colour'"),
    ("      element_bits: 8\n", "", 11, 7, "missing field 'element_bits'"),
])
def test_a_malformed_atom_is_refused_with_a_location(refused, old, new, line, col, what):
    assert old in COPY
    refused(COPY.replace(old, new), line, col, what)


def test_the_command_judges_a_data_file_of_atoms(run, tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(COPY)
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 0 and "ldmatrix.m16n16 r.x1.trans: equal: z3 proved it at all 256 points" in r.out
    path.write_text(COPY.replace("tmp1_.x, tmp1_.y\"", "tmp1_.y, tmp1_.x\""))
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 1 and "differs" in r.out and "[expected equal]" in r.out
    path.write_text(COPY.replace("element_bits: 8", "element_bits: 12"))
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 3 and f"{path}:15:21" in r.err and "Traceback" not in r.err
    # an entry that says its upstream text is not an atom is shown malformed, as it expects
    path.write_text(COPY.replace("(128,1024,256,0),1)", "(64,1024,256,0),1)").replace(
        "    status: current\n", "    status: current\n    expect: malformed\n"))
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 0 and "malformed" in r.out and "thread 1's row starts at bit 64" in r.out


def test_compare_takes_an_atom(run, tmp_path):
    """`checker compare --cute-copy FILE.yaml`: the encoding as an entry writes it."""
    import os

    path = tmp_path / "atom.yaml"
    path.write_text('kind: cute-copy\nregisters: "(32,(32,4)):(32,(1,1024))"\nmemory: "(32,128):(128,1)"\n'
                    "tile: [32, 128]\nelement_bits: 16\n")
    spec = os.path.join(SPECS, "ldmatrix.m8n8.yaml")
    r = run("compare", spec, "--fragment", "r.x4", "--cute-copy", str(path))
    assert r.code == 0 and "equals the spec at all 256 points" in r.out and "unsat" in r.out
    r = run("compare", spec, "--fragment", "r.x4.trans", "--cute-copy", str(path))
    assert r.code == 1 and "thread 0 e1: the spec puts it at r[1][0], the candidate gives r[0][1]" in r.out
    path.write_text(path.read_text().replace("(1,1024)", "(1,1024,3)"))
    r = run("compare", spec, "--fragment", "r.x4", "--cute-copy", str(path))
    assert r.code == 3 and f"{path}:2:" in r.err and "not congruent" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize("text", ["((4,8),(2,2,2)):((32,1),(16,8,128))", "(32,(16,8)):(0,(1,256))",
                                  "((8,4),(64,2)):((1,8),(32,2048))", "(8192,(2,2)):(1,(8192,16384))"])
def test_a_layouts_tabled_index_is_its_evaluated_index(text):
    # index() reads each mode's part from a table where the mode is small enough (the copy atoms'
    # 157,600 evaluations in a catalogue proof), evaluates it where not: both are the layout's map
    layout = cute.parse(plain(text, SourceSpan("t", 1, 1)))
    ts = list(range(min(layout.threads, 64))) + [layout.threads - 1, layout.threads, layout.threads + 5]
    vs = list(range(min(layout.values, 64))) + [layout.values - 1, layout.values, layout.values + 3]
    for t in ts:
        for v in vs:
            assert layout.index(t, v) == cute.evaluate(layout.thread, t) + cute.evaluate(layout.value, v), (t, v)
    threads, values = layout._parts
    assert (len(threads) == layout.threads) == (layout.threads <= cute.MAX_TABLED)


def _memory_problem_thread_by_thread(memory, tile_rows):
    """memory_problem as first written: every value of every thread evaluated."""
    R = copyatom.ROW_BITS
    if memory.values != R:
        return f"its value mode has {memory.values} values; a thread's row is {R} bits"
    for u in range(memory.threads):
        start = memory.index(u, 0)
        if start % R or start >= tile_rows * R:
            return f"thread {u}'s row starts at bit {start}, not at the start of a row of the tile of {tile_rows} rows of {R} bits"
        for v in range(1, R):
            if memory.index(u, v) != start + v:
                return f"thread {u}'s value {v} is bit {memory.index(u, v)}, not {start + v}: a thread's {R} bits are one row of the tile"
    return None


def test_memory_problem_asks_the_value_mode_once_and_says_what_the_thread_loop_said():
    """The value mode is asked once (a TV layout's index is its thread part plus its value part):
    on every shipped atom's memory and on layouts broken in the thread mode, the value mode or
    both, the message is the one a loop over every value of every thread gives."""
    texts = ["((8,4),128):((128,1024),1)", "(32,128):(128,1)", "(32,(64,2)):(128,(1,64))",
             "(32,(64,2)):(128,(1,65))", "(32,128):(128,2)", "(32,(2,64)):(128,(64,1))",
             "(32,128):(64,1)", "(32,128):(129,1)", "(32,128):(4096,1)", "((4,8),128):((128,0),1)",
             "(32,64):(128,1)", "(32,(8,16)):(256,(16,1))", "(1,128):(0,1)", "(32,(127,1)):(128,(1,0))"]
    memories = [a.encoding.fields["atom"].memory for a in ATOMS if a.encoding.fields["atom"].memory is not None]
    memories += [cute.parse(plain(t, SourceSpan("mutant", 1, 1))) for t in texts]
    problems = 0
    for m in memories:
        for rows in (8, 16, 32):
            expected = _memory_problem_thread_by_thread(m, rows)
            assert copyatom.memory_problem(m, rows) == expected, (m.text, rows)
            problems += expected is not None
    assert len(memories) > len(texts) and problems >= 20  # the comparison met every kind of problem
