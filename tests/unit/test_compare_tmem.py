"""`checker compare --cute-tmem FILE.yaml`: a user's CuTe Tensor Memory copy atom (ThrID, ValID and
the register side, as CuTe's print() writes them) against a tcgen05 spec fragment. A shipped atom
is proved equal by both engines; a changed stride and a swapped mode are refuted at the same
smallest (lane, register) by z3 and by the enumeration, each asked on its own; malformed atoms are
refused at file:line:col with exit 3, and sizes past the bounds before any work."""
import os
import time

import pytest

from checker.compare import compare_layout, cute, engine, tmem
from checker.errors import SourceSpan, SpecError
from checker.references import load
from checker.results import PROVED, REFUTED
from checker.source import plain
from conftest import SPECS

# CuTe's SM100_TMEM_LOAD_32dp32b1x (copy_traits_sm100.hpp lines 1458-1465 at 7107b0553), as
# print(Copy_Traits<...>::ThrID{}) and the others write its layouts
ATOM = """# SM100_TMEM_LOAD_32dp32b1x
kind: cute-tmem
thr_id: "_32:_1"
val_id: "(_32,_32):(_1,_2097152)"
registers: "(_32,_32):(_32,_1)"
"""
SPEC_32 = os.path.join(SPECS, "tcgen05.32x32b.yaml")


def write(tmp_path, text: str, name: str = "atom.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def compare(run, tmp_path, text: str, spec: str = SPEC_32, fragment: str = "r.x1"):
    return run("compare", spec, "--fragment", fragment, "--cute-tmem", write(tmp_path, text))


def frag(spec: str, fragment: str):
    from checker.spec.load import load_spec

    return next(f for f in load_spec(spec).fragments() if f.id == fragment)


def test_the_32dp32b1x_load_atom_is_proved_equal(run, tmp_path):
    r = compare(run, tmp_path, ATOM)
    assert r.code == 0, r.out + r.err
    assert "tcgen05.32x32b r.x1: the CuTe TMEM copy atom " in r.out and "equals the spec at all 32 points" in r.out
    assert "`" in r.out and ".compare.cute-tmem.differ` unsat), and the enumeration agrees" in r.out
    assert "atom.yaml (registers (32,32):(32,1), ValID (32,32):(1,2097152)" in r.out  # names the user's file


@pytest.mark.parametrize("name", ["SM100_TMEM_LOAD_16dp256b1x", "SM100_TMEM_STORE_16dp64b2x",
                                  "SM100_TMEM_LOAD_16dp32b4x", "SM100_TMEM_STORE_32dp32b8x"])
def test_a_shipped_atom_written_by_its_user_is_proved_equal(tmp_path, name):
    """Each entry's layouts, in CuTe's print() notation (every integer _N), through the user's loader."""
    ref = next(r for r in load.load_all() if r.name == name)
    f = ref.encoding.fields

    def printed(text):
        return "".join(f"_{tok}" if tok.isdigit() else tok for tok in _tokens(text))

    path = write(tmp_path, f'kind: cute-tmem\nthr_id: "_32:_1"\nval_id: "{printed(f["val_id_text"])}"\n'
                           f'registers: "{printed(f["registers_text"])}"\n')
    atom = load.load_tmem_atom(path)
    assert atom.form() == f["atom"].form()  # the same modes as the data file's entry
    spec = os.path.join(SPECS, f"{ref.spec}.yaml")
    result = compare_layout(frag(spec, ref.fragment), atom)
    assert result.equal and result.points == 32 * atom.elements, result.summary()
    assert all("unsat" in p and "enumeration agrees" in p for p in result.proofs), result.proofs


def test_the_shipped_example_atoms_are_cutes_and_its_mutant():
    """tests/cases/compare/, which the README's example runs: CuTe's entry, and it with one stride changed."""
    from conftest import CASES

    ref = next(r for r in load.load_all() if r.name == "SM100_TMEM_LOAD_32dp32b1x").encoding.fields["atom"]
    good = load.load_tmem_atom(os.path.join(CASES, "compare", "tmem-32dp32b1x.yaml"))
    bad = load.load_tmem_atom(os.path.join(CASES, "compare", "tmem-32dp32b1x-lane-stride.yaml"))
    assert good.form() == ref.form() and bad.registers == good.registers
    assert bad.val_id.value == ((32, 2 * tmem.DP_B),) and bad.val_id.thread == good.val_id.thread
    f = frag(SPEC_32, "r.x1")
    assert compare_layout(f, good).equal
    d = compare_layout(f, bad).difference
    assert (d.thread, d.i, d.spec, d.candidate) == (1, 0, (1, 0), (2, 0))


def _tokens(text: str) -> list:
    import re

    return re.findall(r"[0-9]+|[^0-9]", text)


# each mutant's smallest counterexample, worked by hand from the layouts: (lane, register), the
# spec's cell and the mutant's (TMEM lane, column), and what the detail says
MUTANTS = [
    # a wrong stride: the ValID's lanes 2 * DP_b apart, so lane 1's register is TMEM lane 2's
    ("tcgen05.32x32b", "r.x1", ATOM.replace("(_1,_2097152)", "(_1,_4194304)"), (1, 0), (1, 0), (2, 0),
     "logical bit 32, TMEM address 4194304: lane 2"),
    # a wrong stride: .x2's thread stride 48, not 64: lane 1's first register runs off its TMEM lane's 64 bits
    ("tcgen05.32x32b", "r.x2", 'kind: cute-tmem\nval_id: "(_64,_32):(_1,_2097152)"\nregisters: "(_32,_64):(_48,_1)"\n',
     (1, 0), (1, 0), None, "its 32 bits are not one column: value 0 is address 48, value 16 is address 2097152"),
    # a swapped mode: the register side's (thread, bit) strides swapped, bits 32 apart: no register at all
    ("tcgen05.32x32b", "r.x1", ATOM.replace("(_32,_1)\"", "(_1,_32)\""), (0, 0), (0, 0), None,
     "its 32 bits are not one column: value 0 is address 0, value 1 is address 2097152"),
    # a swapped mode: 16dp256b1x's thread modes (4,8):(64,256) written (8,4):(256,64)
    ("tcgen05.16x256b", "r.x1", 'kind: cute-tmem\nval_id: "(_256,_16):(_1,_2097152)"\n'
     'registers: "((_8,_4),(_64,_2)):((_256,_64),(_1,_2048))"\n', (1, 0), (0, 2), (1, 0),
     "logical bit 256, TMEM address 2097152: lane 1"),
]


@pytest.mark.parametrize("spec, fragment, text, point, want_spec, want_atom, why", MUTANTS)
def test_a_mutant_is_refuted_at_the_smallest_point_by_both_engines(run, tmp_path, spec, fragment, text, point,
                                                                   want_spec, want_atom, why):
    from checker.smt import compare as smt
    from checker.spec.reading import materialize

    path = write(tmp_path, text)
    atom = load.load_tmem_atom(path)
    f = frag(os.path.join(SPECS, f"{spec}.yaml"), fragment)
    reading = materialize(f)
    target = engine.targets(f, reading, None)[0]
    # each engine on its own, not through the cross-check that raises when they disagree
    first, count, points = engine._enumerate(target, reading.n, atom)
    assert first is not None and (first[0], first[1], first[2]) == (point, want_spec, want_atom), first
    z3 = smt.differ("test.tmem.mutant", reading, target.lanes, reading.n, atom.form(), (len(target.lanes), reading.n))
    assert z3.verdict == REFUTED, z3.reason
    cell = None if z3.witness["candidate"] is None else tuple(z3.witness["candidate"])
    assert ((z3.witness["t"], z3.witness["i"]), tuple(z3.witness["spec"]), cell) == (point, want_spec, want_atom)
    # and the command, exit 1, names the lane, the register and both cells
    r = run("compare", os.path.join(SPECS, f"{spec}.yaml"), "--fragment", fragment, "--cute-tmem", path)
    assert r.code == 1, r.out + r.err
    got = f"the candidate gives r[{want_atom[0]}][{want_atom[1]}]" if want_atom else "the candidate holds no such"
    assert (f"thread {point[0]} r{point[1]}: the spec puts it at r[{want_spec[0]}][{want_spec[1]}], {got}"
            in r.out), r.out
    assert why in r.out and f"at thread {point[0]}, r{point[1]}, and the enumeration agrees" in r.out, r.out


def test_the_original_of_each_mutant_is_equal_by_z3_alone():
    from checker.smt import compare as smt
    from checker.spec.reading import materialize

    f = frag(SPEC_32, "r.x1")
    reading = materialize(f)
    atom = tmem.TmemAtom(_layout("(_32,_32):(_32,_1)"), _layout("(_32,_32):(_1,_2097152)"))
    assert smt.differ("test.tmem.good", reading, tuple(range(32)), 1, atom.form(), (32, 1)).verdict == PROVED


def _layout(text, parse=cute.parse):
    return parse(plain(text, SourceSpan("t", 1, 1)))


@pytest.mark.parametrize("old, new, line, col, what", [
    ("(_1,_2097152)", "(_1,TMEM::DP_b)", 4, 24, "val_id: expected an integer or '(', found 'T'"),
    ('"(_32,_32):(_32,_1)"', '"(_32,_32):(_32,_1,_2)"', 5, 23, "registers: shape and stride are not congruent"),
    ('"(_32,_32):(_32,_1)"', '"(_32,_48):(_48,_1)"', 5, 12, "not a whole number of 32-bit registers"),
    ("(_32,_32):(_1", "(_32,_256):(_1", 4, 9, "past TMEM's 128 lanes"),
    ('"_32:_1"', '"(_4,_8):(_8,_1)"', 3, 9, "thr_id: logical thread 1 is thread 8; only the identity"),
    ('"_32:_1"', '"_16:_1"', 3, 9, "thr_id: 16 threads; the registers layout has 32"),
    ('"_32:_1"', '"(_32):(_0)"', 3, 9, "thr_id: logical thread 1 is thread 0"),
    ('"_32:_1"', "32", 3, 9, "expected a string, found the number 32"),
    ("kind: cute-tmem", "kind: cute-copy", 2, 7, "expected one of cute-tmem, found the string 'cute-copy'"),
    ("registers:", "register:", 5, 1, "unknown field 'register'; expected kind, registers, val_id, thr_id"),
    ('registers: "(_32,_32):(_32,_1)"\n', "", 2, 1, "missing field 'registers'"),
    ('val_id: "', 'val_id: [', 5, 10, "invalid YAML"),
])
def test_a_malformed_atom_is_refused_at_its_place(run, tmp_path, old, new, line, col, what):
    assert ATOM.count(old) == 1
    r = compare(run, tmp_path, ATOM.replace(old, new))
    assert r.code == 3 and "Traceback" not in r.err, r.out + r.err
    assert f"atom.yaml:{line}:{col}: error: " in r.err and what in r.err, r.err


def test_a_missing_atom_is_a_usage_error(run, tmp_path):
    r = run("compare", SPEC_32, "--fragment", "r.x1", "--cute-tmem", str(tmp_path / "none.yaml"))
    assert r.code == 2 and "--cute-tmem: no such file" in r.err, r.err
    r = run("compare", SPEC_32, "--fragment", "r.x1", "--cute-tmem", write(tmp_path, ATOM), "--cute", "(32,1):(1,1)")
    assert r.code == 2 and "not allowed with argument" in r.err, r.err
    atom = write(tmp_path, ATOM)
    r = run("compare", SPEC_32, "--fragment", "r.x1", "--cute-tmem", atom, "--output", atom)
    assert r.code == 2 and "is an input of this command" in r.err and open(atom).read() == ATOM, r.err


@pytest.mark.parametrize("old, new, line, col, what", [
    # 2**32 logical bits: was 39 s, 1 GB and the engines disagreeing (z3's size wrapped to 0)
    ('"(_32,_32):(_1,_2097152)"', '"((_32,_2048),_65536):((_1,_0),_0)"', 4, 9,
     "val_id: numbers 4294967296 logical bits, more than 2097152"),
    ('"(_32,_32):(_32,_1)"', '"(_65536,_64):(_0,_1)"', 5, 12,
     "registers: 65536 threads x 2 registers, more than 65536"),
    ('"(_32,_32):(_32,_1)"', '"(_32,_131072):(_0,_1)"', 5, 18, "a mode of size 131072 is larger than 65536"),
    ('"_32:_1"', '"_99999999:_1"', 3, 10, "_99999999 is larger than 16777216"),
    ('"_32:_1"', '"' + "(" * 9 + "_32" + ")" * 9 + ':_1"', 3, 18, "nested deeper than 8"),
    ('"_32:_1"', '"(' + "_1," * 2000 + '_32):_1"', 3, 10, "longer than 4096 characters"),
])
def test_a_hostile_size_is_refused_before_any_work(run, tmp_path, old, new, line, col, what):
    assert ATOM.count(old) == 1
    t0 = time.perf_counter()
    r = compare(run, tmp_path, ATOM.replace(old, new))
    assert r.code == 3 and f"atom.yaml:{line}:{col}: error: " in r.err and what in r.err, r.err
    assert time.perf_counter() - t0 < 10


def test_a_file_past_the_yaml_bound_is_refused(run, tmp_path):
    r = compare(run, tmp_path, ATOM + "#" * (300 * 1024) + "\n")
    assert r.code == 3 and "atom.yaml:" in r.err and "Traceback" not in r.err, r.err


def test_a_data_file_val_id_of_too_many_bits_is_refused(refused):
    """The same bound holds for the reference data's entries, which share the encoding's reader."""
    text = ("library: CuTe\nrepo: NVIDIA/cutlass\ncommit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4\n"
            "path: include/cute/atom/copy_traits_sm100.hpp\nentries:\n  - name: SM100_TMEM_LOAD_32dp32b1x\n"
            "    line: 1458\n    fragment: {spec: tcgen05.32x32b, id: r.x1}\n    status: current\n    encoding:\n"
            '      kind: cute-tmem\n      registers: "(32,32):(32,1)"\n'
            '      val_id: "((32,2048),65536):((1,0),0)"\n')
    refused(text, 13, 15, "val_id: numbers 4294967296 logical bits")


def test_a_thr_id_written_hierarchically_is_the_identity(run, tmp_path):
    r = compare(run, tmp_path, ATOM.replace('"_32:_1"', '"(_4,_8):(_1,_4)"'))
    assert r.code == 0, r.out + r.err


@pytest.mark.parametrize("text, modes", [
    ("_32:_1", ((32, 1),)), ("(_32):(_1)", ((32, 1),)), ("(_256,_16):(_1,_2097152)", ((256, 1), (16, 2097152))),
    ("((_16,_2),_32):((_1,_32),_2097152)", ((16, 1), (2, 32), (32, 2097152))),
    ("(_8,_4,_4):(_1,_8,_32)", ((8, 1), (4, 8), (4, 32))),
])
def test_a_layout_of_any_rank_is_its_colexicographic_map(text, modes):
    layout = _layout(text, cute.parse_any)
    assert layout.thread + layout.value == modes
    n = layout.threads
    for x in range(layout.threads * layout.values):
        assert layout.index(x % n, x // n) == cute.evaluate(modes, x)


def test_cute_prints_static_integers_and_compare_reads_them(run):
    """--cute reads CuTe's print() form too: the same verdict, point and cells as pycute's."""
    spec = os.path.join(SPECS, "m16n8k32.yaml")
    plain_text = run("compare", spec, "--fragment", "B.i4", "--cute", "((4,8),8):((32,1),8)")
    printed = run("compare", spec, "--fragment", "B.i4", "--cute", "((_4,_8),_8):((_32,_1),_8)")
    assert plain_text.code == printed.code == 1
    assert plain_text.out.split(": the CuTe layout")[1] == printed.out.split(": the CuTe layout")[1].replace("_", "")
    assert run("compare", spec, "--fragment", "B.i4", "--cute", "((_4,_8),_8):((_64,_1),_8)").code == 0


def test_a_tv_layout_still_needs_two_modes():
    with pytest.raises(SpecError, match="two top-level modes"):
        _layout("_32:_1")
