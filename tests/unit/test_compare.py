"""checker compare: a user's layout (CuTe, Triton bases, a CSV table, a Python function) proved equal
to a spec fragment by both engines, or refuted at the smallest point; each property of the
comparison can fail, shown by a mutated layout; untrusted input gives located errors, never a
traceback."""
import json
import os

import pytest

from checker.compare import compare_layout
from checker.compare import cute
from checker.errors import SourceSpan, SpecError
from checker.spec.load import load_spec
from checker.source import plain
from conftest import SPECS

K16 = os.path.join(SPECS, "m16n8k16.yaml")
A_F16 = "((4,8),(2,2,2)):((32,1),(16,8,128))"  # CuTe's SM80_16x8x16 ALayout


def frag(shape, fid):
    return load_spec(os.path.join(SPECS, shape + ".yaml")).fragment(fid)


def a_f16(t, i):
    """The document's m16n8k16 A.f16, written by hand."""
    return t // 4 + 8 * (i // 2 % 2), t % 4 * 2 + i % 2 + 8 * (i // 4)


def test_equal_cute_layout_is_proved_by_both_engines(run):
    r = run("compare", K16, "--fragment", "A.f16", "--cute", A_F16)
    assert r.code == 0, r.err
    assert "equals the spec at all 256 points" in r.out and "unsat" in r.out and "enumeration agrees" in r.out


def test_cpp_notation_reads_the_same_layout(run):
    r = run("compare", K16, "--fragment", "A.f16", "--cute",
            "Layout<Shape <Shape < _4,_8>,Shape < _2,_2,  _2>>, Stride<Stride<_32,_1>,Stride<_16,_8,_128>>>")
    assert r.code == 0, r.err


@pytest.mark.parametrize("mutant, thread, element, spec, cand", [
    # a value stride swapped: a1 goes to row 8 instead of col 1
    ("((4,8),(2,2,2)):((32,1),(8,16,128))", 0, "a1", "A[0][1]", "A[8][0]"),
    # a thread stride halved: threads 0..3 overlap their neighbours' columns
    ("((4,8),(2,2,2)):((16,1),(16,8,128))", 1, "a0", "A[0][2]", "A[0][1]"),
])
def test_a_mutated_cute_layout_is_refuted_at_the_smallest_point(run, mutant, thread, element, spec, cand):
    r = run("compare", K16, "--fragment", "A.f16", "--cute", mutant, "--format", "json")
    assert r.code == 1, r.err
    got = json.loads(r.out)
    d = got["difference"]
    assert got["verdict"] == "differs" and d["thread"] == thread and d["element"] == element
    assert f"the spec puts it at {spec}" in d["sentence"] and f"the candidate gives {cand}" in d["sentence"]
    assert got["differing"] > 0 and "enumeration agrees" in got["proofs"][0]


def test_a_smaller_domain_is_refuted_where_the_candidate_holds_nothing(run):
    # two values instead of eight: a2 is held by no element of the candidate
    r = run("compare", K16, "--fragment", "A.f16", "--cute", "((4,8),(2,2)):((32,1),(16,8))", "--format", "json")
    d = json.loads(r.out)["difference"]
    assert r.code == 1 and (d["thread"], d["i"], d["candidate"]) == (0, 4, None)


def test_a_larger_domain_is_refuted_where_the_spec_holds_nothing(run):
    r = run("compare", K16, "--fragment", "A.f16", "--cute", "((4,8,2),(2,2,2)):((32,1,256),(16,8,128))",
            "--format", "json")
    d = json.loads(r.out)["difference"]
    assert r.code == 1 and (d["thread"], d["i"], d["spec"], d["lane"]) == (32, 0, None, None)


def test_cutlass_3140_b_layout_is_caught(run):
    """PR #3140: the m16n8k32 int4 B layout with thread stride 32 overlapped and missed rows."""
    old = "Layout<Shape <Shape < _4, _8>, Shape <_8>>, Stride<Stride<_32, _1>, Stride<_8>>>"
    r = run("compare", os.path.join(SPECS, "m16n8k32.yaml"), "--fragment", "B.i4", "--cute", old)
    assert r.code == 1 and "thread 1 b0: the spec puts it at B[8][0], the candidate gives B[4][0]" in r.out
    fixed = old.replace("_32, _1", "_64, _1")
    assert run("compare", os.path.join(SPECS, "m16n8k32.yaml"), "--fragment", "B.i4", "--cute", fixed).code == 0


def test_sm70_quad_pair_numbering_needs_the_computation(run):
    m884 = os.path.join(SPECS, "m8n8k4.yaml")
    assert run("compare", m884, "--fragment", "A.f16.row", "--cute", "(8,4):(1,8)", "--computation", "all").code == 0
    assert run("compare", m884, "--fragment", "A.f16.row", "--cute", "(8,4):(1,8)", "--computation", "3").code == 0
    whole = run("compare", m884, "--fragment", "A.f16.row", "--cute", "(8,4):(1,8)")
    assert whole.code == 1 and "--computation all" in whole.out
    # the C.f32 layout of SM70 swapped with C.f16's is refuted in computation 1
    r = run("compare", m884, "--fragment", "C.f32", "--cute", "(8,8):(1,8)", "--computation", "all")
    assert r.code == 1 and "MMA computation 1" in r.out
    assert run("compare", m884, "--fragment", "C.f32", "--cute", "(8,8):(1,8)", "--computation", "5").code == 2


def test_triton_bases_as_export_writes_them_round_trip(run, tmp_path):
    exported = run("export", K16, "--fragment", "C.float", "--to", "triton")
    path = tmp_path / "c.py.txt"
    path.write_text(exported.out)
    assert run("compare", K16, "--fragment", "C.float", "--triton", str(path)).code == 0
    js = tmp_path / "c.json"
    js.write_text(json.dumps({"reg_bases": [[0, 1], [8, 0]], "lane_bases": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}))
    assert run("compare", K16, "--fragment", "C.float", "--triton", str(js)).code == 0
    js.write_text(json.dumps({"register": [[8, 0], [0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}))
    r = run("compare", K16, "--fragment", "C.float", "--triton", str(js))
    assert r.code == 1 and "thread 0 c1: the spec puts it at C[0][1], the candidate gives C[8][0]" in r.out


def test_table_and_function_inputs(run, tmp_path):
    lines = ["thread,i,row,col"] + [f"{t},{i},{a_f16(t, i)[0]},{a_f16(t, i)[1]}" for t in range(32) for i in range(8)]
    csv = tmp_path / "a.csv"
    csv.write_text("\n".join(lines) + "\n")
    assert run("compare", K16, "--fragment", "A.f16", "--table", str(csv)).code == 0
    csv.write_text("\n".join(lines[:-1]) + "\n")  # the last entry missing
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv), "--format", "json")
    d = json.loads(r.out)["difference"]
    assert r.code == 1 and (d["thread"], d["i"], d["candidate"]) == (31, 7, None)
    mod = tmp_path / "mine.py"
    mod.write_text("def a(t, i):\n    return t // 4 + 8 * (i // 2 % 2), t % 4 * 2 + i % 2 + 8 * (i // 4)\n"
                   "def wrong(t, i):\n    return t // 4 + 8 * (i // 4), t % 4 * 2 + i % 2 + 8 * (i // 2 % 2)\n")
    assert run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:a").code == 0
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:wrong")
    assert r.code == 1 and "thread 0 a2: the spec puts it at A[8][0], the candidate gives A[0][8]" in r.out


def test_the_python_api():
    f = frag("m16n8k16", "A.f16")
    ok = compare_layout(f, a_f16)
    assert ok.equal and ok.points == 256 and ok.differing == 0 and ok.difference is None
    bad = compare_layout(f, lambda t, i: a_f16(t ^ 1, i))
    assert not bad.equal and bad.difference.thread == 0 and bad.difference.spec == (0, 0)
    assert bad.difference.candidate == (0, 2) and bad.differing == 256
    assert "differs from the spec at 256 of 256 points" in bad.summary()


@pytest.mark.parametrize("text, col, what", [
    ("((4,8),(2,2,2):((32,1),(16,8,128))", 15, "expected ',' or ')'"),
    ("((4,8),(2,2)):((32,1),(16,8,1))", 23, "not congruent"),
    ("32:1", 1, "two top-level modes"),
    ("((4,8),(2,2)):((32,1),(16,x))", 27, "expected an integer or '('"),
    ("(" * 20 + "1" + ")" * 20 + ":1", 9, "nested deeper"),
    ("((4,8),(2,99999999999)):((32,1),(16,8))", 11, "larger than"),
    ("((4,8),(65536,2)):((32,1),(16,8))", 8, "larger than 65536"),
])
def test_cute_parser_errors_are_located(text, col, what):
    with pytest.raises(SpecError) as exc:
        cute.parse(plain(text, SourceSpan("--cute", 1, 1)))
    assert exc.value.span.col == col and what in str(exc.value)


def test_a_cute_integer_is_its_value_whatever_its_leading_zeros():
    """032 was 32 and 0000000032 'larger than 16777216': the bound on the digits read is on the
    number's own, not its leading zeros (4,096 zeros, a text's most, are no cost to int())."""
    for text in ("((4,8),(2,2,2)):((0000000032,1),(16,8,128))", "((4,8),(2,2,2)):((" + "0" * 4000 + "32,1),(16,8,128))"):
        layout = cute.parse(plain(text, SourceSpan("--cute", 1, 1)))
        assert layout.thread == ((4, 32), (8, 1)), layout.thread


def test_bad_inputs_exit_3_with_a_location(run, tmp_path):
    r = run("compare", K16, "--fragment", "A.f16", "--cute", "((4,8),(2,2,2):((32,1),(16,8,128))")
    assert r.code == 3 and r.err.startswith("--cute:1:15: error:") and "Traceback" not in r.err
    csv = tmp_path / "t.csv"
    csv.write_text("0,0,0,0\n0,1,x,1\n")
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv))
    assert r.code == 3 and f"{csv}:2:5: error: row: expected an integer" in r.err
    csv.write_text("0,0,0,0\n0,0,0,1\n")
    assert "thread 0, i 0 is given twice (first at line 1)" in run("compare", K16, "--fragment", "A.f16", "--table", str(csv)).err
    csv.write_text("lane,i,row,col\n0,0,0,0\n")  # a header of other names: say what a header is
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv))
    assert r.code == 3 and "found 'lane' (a header line, first, is exactly thread,i,row,col)" in r.err, r.err
    js = tmp_path / "b.json"
    js.write_text('{"register": [[0, 1]],\n "lane": [[0, 2], [0]]}')
    r = run("compare", K16, "--fragment", "A.f16", "--triton", str(js))
    assert r.code == 3 and f"{js}:2:2: error: lane[1]: expected [row, col]" in r.err
    js.write_text('{"register": [[0, 1]]\n "lane": []}')
    r = run("compare", K16, "--fragment", "A.f16", "--triton", str(js))
    assert r.code == 3 and f"{js}:2:2: error: not JSON" in r.err
    mod = tmp_path / "boom.py"
    mod.write_text("def f(t, i):\n    return 3 // (3 - t), 0\ndef g(t, i):\n    return 'x'\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:f")
    assert r.code == 3 and f"{mod}:2:1: error: f(3, 0) raised ZeroDivisionError" in r.err  # the line that raised
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:g")
    assert r.code == 3 and "(0, 0) returned 'x'" in r.err
    assert run("compare", K16, "--fragment", "A.f16", "--python", "nocolon").code == 2
    assert run("compare", K16, "--fragment", "A.nope", "--cute", A_F16).code == 2
    assert run("compare", K16, "--fragment", "A.f16").code == 2  # no layout given


def test_output_file(run, tmp_path):
    out = tmp_path / "r.json"
    r = run("compare", K16, "--fragment", "A.f16", "--cute", A_F16, "--format", "json", "--output", str(out))
    assert r.code == 0 and r.out == "" and json.loads(out.read_text())["verdict"] == "equal"


def test_engines_that_disagree_are_not_trusted(monkeypatch):
    """The enumeration made to see one point wrong: z3 does not, so no verdict is given."""
    from checker.compare import candidates, inputs
    from checker.errors import CheckerError

    f = frag("m16n8k16", "A.f16")
    good = inputs.cute(A_F16, f)
    real = candidates.Cute.cells

    def off_by_one(self, points):
        got = real(self, points)
        return [(c[0], c[1] + 1) if p == (5, 3) and c else c for p, c in zip(points, got)]

    monkeypatch.setattr(candidates.Cute, "cells", off_by_one)
    with pytest.raises(CheckerError, match="disagree"):
        compare_layout(f, good)


# -- the points compared: the union of the spec's and the candidate's ----------------------------

def _union(fragment, cand) -> tuple:
    """(differing, points) by brute force over the bounding box of both domains: the count the
    engine gets from the spec's domain and the candidate's `outside`, computed another way."""
    from checker.formula.evaluate import cells
    from checker.spec.reading import materialize

    reading = materialize(fragment)
    n, threads = reading.n, fragment.threads.count
    own = [(t, i) for t in range(threads) for i in range(n)]
    spec = dict(zip(own, zip(*cells(reading.layout, own))))
    box = [(t, i) for t in range(max(threads, cand.threads)) for i in range(max(n, cand.elements))]
    got = dict(zip(box, cand.cells(box)))
    union = [p for p in box if p in spec or got[p] is not None]
    return sum(spec.get(p) != got[p] for p in union), len(union)


@pytest.mark.parametrize("fid, layout, differing, points, first", [
    # 16 values where the spec has 8: a8..a15 of every thread lie beyond the spec's elements
    ("A.f16", "((4,8),(2,2,2,2)):((32,1),(16,8,128,256))", 256, 512, (0, 8)),
    # 64 threads where the spec has 32: every element of threads 32..63 lies beyond its threads
    ("C.float", "((4,8,2),(2,2)):((32,1,128),(16,8))", 128, 256, (32, 0)),
    # 4 values where the spec has 8: the spec's a4..a7 are held by no element of the candidate
    ("A.f16", "((4,8),(2,2)):((32,1),(16,8))", 128, 256, (0, 4)),
])
def test_points_beyond_the_spec_count_over_the_union(run, fid, layout, differing, points, first):
    r = run("compare", K16, "--fragment", fid, "--cute", layout, "--format", "json")
    got = json.loads(r.out)
    assert r.code == 1 and not got["equal"] and got["verdict"] == "differs"
    assert (got["differing"], got["points"]) == (differing, points)
    assert (got["difference"]["thread"], got["difference"]["i"]) == first
    assert (differing, points) == _union(frag("m16n8k16", fid), cute_candidate(layout, fid))
    text = run("compare", K16, "--fragment", fid, "--cute", layout).out
    assert f"differs from the spec at {differing} of {points} points" in text


def cute_candidate(layout, fid):
    from checker.compare import inputs

    return inputs.cute(layout, frag("m16n8k16", fid))


@pytest.mark.parametrize("extra, first", [("32,0,0,0", (32, 0)), ("40,3,0,0", (40, 3))])
def test_a_table_entry_beyond_the_spec_differs_wherever_it_is(run, tmp_path, extra, first):
    """(40, 3) lies beyond (threads + 1, elements + 1), where both engines once stopped looking:
    the table was proved equal."""
    lines = [f"{t},{i},{a_f16(t, i)[0]},{a_f16(t, i)[1]}" for t in range(32) for i in range(8)]
    csv = tmp_path / "a.csv"
    csv.write_text("\n".join(lines + [extra]) + "\n")
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv), "--format", "json")
    got = json.loads(r.out)
    assert r.code == 1 and (got["differing"], got["points"]) == (1, 257)
    assert (got["difference"]["thread"], got["difference"]["i"], got["difference"]["spec"]) == (*first, None)
    assert "enumeration agrees" in got["proofs"][0]


@pytest.mark.parametrize("threads, elements, first", [(4, 8, (4, 0)), (32, 2, (0, 2)), (2, 4, (0, 4)), (5, 8, (5, 0))])
def test_a_table_smaller_than_the_spec_holds_nothing_beyond_itself(run, tmp_path, threads, elements, first):
    """z3 looks a table up by a key of as few bits as the table's own indices need: thread 4 of a
    table of threads 0..3 (a 2-bit thread index) must not be read as thread 4 mod 4 = 0, nor
    element 2 of a 2-element table (1 bit) as element 0. Both engines find the first point the
    table lacks, and agree."""
    lines = [f"{t},{i},{a_f16(t, i)[0]},{a_f16(t, i)[1]}" for t in range(threads) for i in range(elements)]
    csv = tmp_path / "a.csv"
    csv.write_text("\n".join(lines) + "\n")
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv), "--format", "json")
    got = json.loads(r.out)
    assert r.code == 1 and got["differing"] == 256 - threads * elements
    assert (got["difference"]["thread"], got["difference"]["i"], got["difference"]["candidate"]) == (*first, None)
    assert "enumeration agrees" in got["proofs"][0]


def test_a_copy_atom_with_more_threads_counts_those_it_holds(tmp_path):
    """A copy atom holds only the points whose bits are one element of the tile: of threads 32..63
    of this one, those below bit 4096; the engine's count is the brute-force one."""
    from checker.references.load import load_copy_atom

    path = tmp_path / "atom.yaml"
    path.write_text('kind: cute-copy\nregisters: "(64,(32,4)):(32,(1,1024))"\nmemory: "(32,128):(128,1)"\n'
                    "tile: [32, 128]\nelement_bits: 16\n")
    atom = load_copy_atom(str(path))
    f = frag("ldmatrix.m8n8", "r.x4")
    got = compare_layout(f, atom)
    assert not got.equal and (got.differing, got.points) == _union(f, atom)
    assert got.points > 256 and got.differing > 0  # the atom holds some points of threads 32..63


def test_the_api_counts_the_union():
    import checker

    a = checker.load(K16).fragment("A.f16")
    wide = a.compare("((4,8),(2,2,2,2)):((32,1),(16,8,128,256))")
    assert not wide.equal and (wide.differing, wide.points) == (256, 512)
    assert wide.to_json()["differing"] == 256 and "at 256 of 512 points" in wide.summary()
    same = a.compare(A_F16)
    assert same.equal and (same.differing, same.points) == (0, 256)


def test_a_domain_too_large_to_search_is_refused_where_it_is_read(run, tmp_path):
    path = tmp_path / "atom.yaml"
    path.write_text('kind: cute-copy\nregisters: "(4096,(32,32)):(32,(1,1024))"\ntile: [32, 128]\nelement_bits: 16\n')
    r = run("compare", os.path.join(SPECS, "ldmatrix.m8n8.yaml"), "--fragment", "r.x4", "--cute-copy", str(path))
    assert r.code == 3 and f"{path}:2:" in r.err and "more than 65536 points" in r.err and "Traceback" not in r.err
    js = tmp_path / "b.json"
    js.write_text(json.dumps({"register": [[0, 1]], "lane": [[0, 2]] * 5, "warp": [[0, 0]] * 12}))
    r = run("compare", K16, "--fragment", "C.float", "--triton", str(js))
    assert r.code == 3 and "a thread index of more than 16 bits" in r.err and "Traceback" not in r.err


# -- a CSV header after comments -------------------------------------------------------------------

def test_the_csv_header_is_the_first_line_that_is_not_a_comment(run, tmp_path):
    rows = [f"{t},{i},{a_f16(t, i)[0]},{a_f16(t, i)[1]}" for t in range(32) for i in range(8)]
    csv = tmp_path / "a.csv"
    csv.write_text("# note: m16n8k16 A.f16\n\n  # another\nthread,i,row,col\n" + "\n".join(rows) + "\n")
    assert run("compare", K16, "--fragment", "A.f16", "--table", str(csv)).code == 0
    # a header anywhere else is an entry, and not a number
    csv.write_text("# note\n" + rows[0] + "\nthread,i,row,col\n" + "\n".join(rows[1:]) + "\n")
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv))
    assert r.code == 3 and f"{csv}:3:1: error: thread: expected an integer" in r.err


# -- a table's cost is bounded by its entries, and z3 sees only the spec's domain and one more ------

def test_a_table_beyond_the_spec_costs_z3_only_the_spec_domain_and_its_smallest_extra(run, tmp_path, monkeypatch):
    """Every extra entry is still refuted and counted, by the enumeration; z3 is handed the entries
    in the spec's domain and the smallest beyond it (its answer cannot be any other), not a lookup
    tree over all of them (120,000 of them took a minute and 3.5 GB)."""
    from checker.smt import compare as smt_compare

    seen = []
    differ = smt_compare.differ

    def spy(name, reading, lanes, n, form, box, expect=None, dump_dir=None):
        seen.append((len(form[1]), box))
        return differ(name, reading, lanes, n, form, box, expect, dump_dir)

    monkeypatch.setattr(smt_compare, "differ", spy)
    lines = [f"{t},{i},{a_f16(t, i)[0]},{a_f16(t, i)[1]}" for t in range(32) for i in range(8)]
    extra = [f"{t},{i},0,0" for t in range(40, 60) for i in range(10)] + ["99,0,0,0"]
    csv = tmp_path / "a.csv"
    csv.write_text("\n".join(lines + extra) + "\n")
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv), "--format", "json")
    got = json.loads(r.out)
    assert r.code == 1 and (got["differing"], got["points"]) == (201, 457)
    assert (got["difference"]["thread"], got["difference"]["i"]) == (40, 0)
    assert seen == [(257, (41, 8))]


def test_a_table_of_too_many_entries_is_refused_where_it_goes_over(run, tmp_path, monkeypatch):
    from checker.compare import candidates

    monkeypatch.setattr(candidates, "MAX_TABLE", 16)
    csv = tmp_path / "a.csv"
    csv.write_text("".join(f"{t},0,0,0\n" for t in range(40)))
    r = run("compare", K16, "--fragment", "A.f16", "--table", str(csv))
    assert r.code == 3 and f"{csv}:17:1: error: more than 16 entries" in r.err and "Traceback" not in r.err


# -- --python: the module's source is read as every input is ---------------------------------------

def test_a_python_module_is_read_bounded_and_its_syntax_error_located(run, tmp_path, monkeypatch):
    """A FIFO named x.py hung the import and a link to /dev/zero grew without end; a syntax error was
    reported at 1:1 instead of its line and column."""
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.py"
    zero.symlink_to("/dev/zero")
    for mod, kind in ((fifo, "a FIFO"), (zero, "a character device")):
        r = run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:f")
        assert r.code == 3 and f"{mod}:1:1: error: not a regular file: it is {kind}" in r.err
    bad = tmp_path / "bad.py"
    bad.write_text("def f(t, i):\n    return (t // 4,\n        t % 4 +* 2)\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{bad}:f")
    assert r.code == 3 and f"{bad}:3:16: error: not Python: invalid syntax" in r.err
    # a source encoding Python does not know: a SyntaxError whose offset is -1 was said at 1:-1
    (tmp_path / "enc.py").write_text("# -*- coding: klingon -*-\ndef f(t, i):\n    return 0, 0\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{tmp_path / 'enc.py'}:f")
    assert r.code == 3 and f"{tmp_path / 'enc.py'}:1:1: error: not Python: unknown encoding: klingon" in r.err, r.err
    # by module name, from the current folder: the same reader
    monkeypatch.chdir(tmp_path)
    r = run("compare", K16, "--fragment", "A.f16", "--python", "bad:f")
    assert r.code == 3 and f"{bad}:3:16: error: not Python" in r.err
    (tmp_path / "good.py").write_text("from dataclasses import dataclass\n\n@dataclass\nclass P:\n    x: int\n\n\n"
                                      "def a(t, i):\n    return t // 4 + 8 * (i // 2 % 2), t % 4 * 2 + i % 2 + 8 * (i // 4)\n")
    assert run("compare", K16, "--fragment", "A.f16", "--python", "good:a").code == 0


def test_a_python_module_not_found_is_a_usage_error_one_that_fails_is_malformed(run, tmp_path, monkeypatch):
    """As input files are: a module that is not there is exit 2 (a usage error, no traceback), as
    `--python no.py:f` is; one that is there but raises on import, or lacks the function, is
    malformed input, exit 3, located. A module name that was not found had been exit 3, at
    `name:1:1`; a missing function was said at the module's name, not its file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cmpmod_good.py").write_text(
        "def a(t, i):\n    return t // 4 + 8 * (i // 2 % 2), t % 4 * 2 + i % 2 + 8 * (i // 4)\n")
    (tmp_path / "cmpmod_pkg").mkdir()
    (tmp_path / "cmpmod_pkg" / "__init__.py").write_text("")
    (tmp_path / "cmpmod_broken").mkdir()
    (tmp_path / "cmpmod_broken" / "__init__.py").write_text("x = 1\ny = (\n")
    (tmp_path / "cmpmod_raises").mkdir()
    (tmp_path / "cmpmod_raises" / "__init__.py").write_text("x = 1\ny = 1 / 0\n")
    (tmp_path / "cmpmod_needs.py").write_text("import cmpmod_not_anywhere\n")
    for target, name in (("cmpmod_not_anywhere:f", "cmpmod_not_anywhere"), ("cmpmod_pkg.nosub:f", "cmpmod_pkg.nosub"),
                         ("cmpmod_nodir.sub:f", "cmpmod_nodir.sub")):
        r = run("compare", K16, "--fragment", "A.f16", "--python", target)
        assert r.code == 2 and f"checker: error: --python: no module named {name!r}" in r.err, r.err
        assert "Traceback" not in r.err and not r.out
    r = run("compare", K16, "--fragment", "A.f16", "--python", "no..name:f")
    assert r.code == 2 and "neither a module name" in r.err, r.err
    broken = tmp_path / "cmpmod_broken" / "__init__.py"
    for target in ("cmpmod_broken:f", "cmpmod_broken.sub:f"):  # a package's syntax error, at its line and column
        r = run("compare", K16, "--fragment", "A.f16", "--python", target)
        assert r.code == 3 and r.err.startswith(f"{broken}:2:5: error: importing it failed: SyntaxError"), r.err
    r = run("compare", K16, "--fragment", "A.f16", "--python", "cmpmod_raises:f")
    raises = tmp_path / "cmpmod_raises" / "__init__.py"
    assert r.code == 3 and r.err.startswith(f"{raises}:2:1: error: importing it failed: ZeroDivisionError"), r.err
    # found, but what it imports is not: the module's error (exit 3), at its line, not a usage error
    r = run("compare", K16, "--fragment", "A.f16", "--python", "cmpmod_needs:f")
    assert r.code == 3 and f"{tmp_path / 'cmpmod_needs.py'}:1:1: error: importing it failed: ModuleNotFoundError" in r.err
    for target in ("cmpmod_good:nope", f"{tmp_path / 'cmpmod_good.py'}:nope"):
        r = run("compare", K16, "--fragment", "A.f16", "--python", target)
        assert r.code == 3 and r.err.startswith(f"{tmp_path / 'cmpmod_good.py'}:1:1: error: has no function 'nope'"), r.err
    r = run("compare", K16, "--fragment", "A.f16", "--python", "cmpmod_good:a")
    assert r.code == 0, r.err
    # the rule as --help, the README and docs/api.md say it
    assert "2 usage (an input file, or a --python module, that is not there), 3 malformed input" in \
        " ".join(run("compare", "--help").out.split())
    for doc, said in (("README.md", ("a `--python` module that is not found", "(a module not found: exit 2; one that "
                                     "raises on import or lacks the function: exit 3, located)")),
                      (os.path.join("docs", "api.md"), ("one that is not found (a `.py` path that does not exist, a "
                                                        "name not importable from the current directory) is a usage "
                                                        "error (exit 2), one that is found but raises on import or has "
                                                        "no such function is malformed input (exit 3",)),
                      (os.path.join("docs", "references.md"), ("A module that is not there is a usage error (exit 2)",
                                                               "is malformed input (exit 3), located"))):
        with open(os.path.join(os.path.dirname(SPECS), doc), encoding="utf-8") as fh:
            text = " ".join(fh.read().split())
        assert all(s in text for s in said), doc


def test_a_python_function_or_module_that_calls_sys_exit_is_an_input_error(run, tmp_path, monkeypatch):
    """sys.exit() in the user's code (SystemExit is not an Exception) ended the checker with the
    code it gave and no message: `--python m.py:f` exited 4, saying nothing."""
    mod = tmp_path / "quits.py"
    mod.write_text("import sys\n\n\ndef f(t, i):\n    sys.exit(4)\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:f")
    assert r.code == 3 and f"{mod}:5:1: error: f(0, 0) raised SystemExit: 4" in r.err, r.err
    mod.write_text("import sys\nsys.exit(5)\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{mod}:f")
    assert r.code == 3 and f"{mod}:2:1: error: importing it failed: SystemExit: 5" in r.err, r.err
    monkeypatch.chdir(tmp_path)  # by module name: located in its file too (it said `quits:1:1`)
    r = run("compare", K16, "--fragment", "A.f16", "--python", "quits:f")
    assert r.code == 3 and f"{mod}:2:1: error: importing it failed: SystemExit: 5" in r.err, r.err


def test_hostile_inputs_an_audit_found(run, tmp_path):
    """Each was a traceback, a silent choice or a run that never ended: a user's function whose
    value raises in its own __len__ / __index__, or that raises GeneratorExit or BaseException
    (exit 1, "differs", with a traceback); a Triton key given twice (the last one won); a copy
    atom of another `kind`; a copy atom whose memory side has 65536 threads (z3's text grew with
    the square of them and compare ran for minutes)."""
    user = tmp_path / "user.py"
    user.write_text("def badlen(t, i):\n    class L(tuple):\n        def __len__(s): raise RuntimeError('len')\n"
                    "    return L((1, 2))\n"
                    "def badindex(t, i):\n    class X:\n        def __index__(s): raise ValueError('idx')\n"
                    "    return (X(), 0)\n"
                    "def gexit(t, i): raise GeneratorExit\n"
                    "def baseexc(t, i): raise BaseException('x')\n")
    for fn, line, said in (("badlen", 3, "RuntimeError: len"), ("badindex", 7, "ValueError: idx"),
                           ("gexit", 9, "GeneratorExit"), ("baseexc", 10, "BaseException: x")):
        r = run("compare", K16, "--fragment", "A.f16", "--python", f"{user}:{fn}")
        assert r.code == 3 and f"{user}:{line}:1: error: {fn}(0, 0) raised {said}" in r.err, (fn, r.err)
        assert "Traceback" not in r.err
    raising = tmp_path / "raising.py"
    raising.write_text("def f(t, i):\n    return None\nraise GeneratorExit\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{raising}:f")
    assert r.code == 3 and f"{raising}:3:1: error: importing it failed: GeneratorExit" in r.err, r.err
    obj = tmp_path / "obj.py"
    obj.write_text("class F:\n    def __call__(self, t, i):\n        return (0, 0) if t == 0 and i == 0 else None\nf = F()\n")
    r = run("compare", K16, "--fragment", "A.f16", "--python", f"{obj}:f")
    assert r.code == 1 and "the function <F object> (1 entries) differs" in r.out, r.out  # was "the function the function"
    dup = tmp_path / "dup.json"
    dup.write_text('{"lane": [[0,1]], "lane": [[0,2],[0,4],[1,0],[2,0],[4,0]], "register": [[0,1],[8,0],[0,8]]}')
    r = run("compare", K16, "--fragment", "A.f16", "--triton", str(dup))
    assert r.code == 3 and f"{dup}:1:19: error: key 'lane' is given twice" in r.err, r.err
    text = tmp_path / "dup.py"
    text.write_text("layout = dict(\n    lane_bases=[[0, 2]],\n    lane_bases=[[0, 4]],\n)\n")
    r = run("compare", K16, "--fragment", "A.f16", "--triton", str(text))
    assert r.code == 3 and f"{text}:3:5: error: lane_bases is given twice" in r.err, r.err
    ld = os.path.join(SPECS, "ldmatrix.m8n8.yaml")
    atom = tmp_path / "atom.yaml"
    atom.write_text('kind: banana\nregisters: "(32,(16,4)):(128,(1,16))"\ntile: [8, 128]\nelement_bits: 16\n')
    r = run("compare", ld, "--fragment", "r.x1", "--cute-copy", str(atom))
    assert r.code == 3 and f"{atom}:1:7: error: expected one of cute-copy, found the string 'banana'" in r.err, r.err
    atom.write_text('kind: cute-copy\nregisters: "(32,(16,4)):(128,(1,16))"\ntile: [8, 128.0]\nelement_bits: 16\n')
    r = run("compare", ld, "--fragment", "r.x1", "--cute-copy", str(atom))
    assert r.code == 3 and f"{atom}:3:11: error: expected 128 (a tile row is 128 bits), found 128.0" in r.err, r.err
    atom.write_text('kind: cute-copy\nregisters: "(4096,(16,16)):(0,(1,128))"\nmemory: "(65536,128):(0,1)"\n'
                    'tile: [4096, 128]\nelement_bits: 16\n')
    r = run("compare", ld, "--fragment", "r.x4", "--cute-copy", str(atom))
    assert r.code == 3 and f"{atom}:3:9: error: memory: 65536 threads, more than 1024" in r.err, r.err
    atom.write_text(atom.read_text().replace("65536", "1024").replace("4096", "1024"))
    r = run("compare", ld, "--fragment", "r.x4", "--cute-copy", str(atom))  # the bound itself: decided
    assert r.code == 1 and "differs from the spec at 1247 of 1248 points" in r.out, r.out + r.err


def _grid_cells(text: str, rows: int) -> dict:
    """(row, col) -> cell text of the grid a `--grid` run prints (one band)."""
    lines = text.splitlines()
    head = next(k for k, line in enumerate(lines) if line.split() == [str(c) for c in range(len(line.split()))])
    return {(r, c): cell for r in range(rows) for c, cell in enumerate(lines[head + 1 + r].split()[1:])}


def test_grid_draws_the_candidate_and_marks_where_the_spec_differs(run):
    spec = os.path.join(SPECS, "m16n8k32.yaml")
    table = json.loads(run("table", spec, "--fragment", "B.i4", "--format", "json").out)[0]
    holder = {(r, c): f"T{lane}:b{i}" for lane, i, r, c in table["entries"]}
    right = run("compare", spec, "--fragment", "B.i4", "--cute", "((4,8),8):((64,1),8)", "--grid")  # the fixed trait
    # CUTLASS's B trait before PR #3140, ((4,8),8):((32,1),8): index t%4*32 + t/4 + v*8 of the 8 x 32 N x K tile
    wrong = run("compare", spec, "--fragment", "B.i4", "--cute", "((4,8),8):((32,1),8)", "--grid")
    assert wrong.code == 1
    cells = _grid_cells(wrong.out, 32)
    mine: dict = {}
    for t in range(32):
        for v in range(8):
            index = t % 4 * 32 + t // 4 + v * 8
            n, k = index % 8, index // 8
            mine.setdefault((k, n), []).append(f"T{t}:b{v}")
    for (r, c), cell in cells.items():
        held = mine.get((r, c), [])
        shown = "." if not held else held[0] + ("!" if len(held) > 1 else "")
        assert cell == shown + ("*" if held != [holder[(r, c)]] else ""), (r, c, cell, held, holder[(r, c)])
    assert f"({sum(x.endswith('*') for x in cells.values())} cells)" in wrong.out
    assert right.code == 0 and "(0 cells)" in right.out
    assert all(cell == holder[rc] for rc, cell in _grid_cells(right.out, 32).items())


def test_grid_is_text_only(run):
    r = run("compare", os.path.join(SPECS, "m16n8k16.yaml"), "--fragment", "A.f16", "--cute",
            "((4,8),(2,2,2)):((32,1),(16,8,128))", "--grid", "--format", "json")
    assert r.code == 2 and "--grid draws a picture in the text output" in r.err


def test_the_declaration_export_writes_is_read_back_by_cute(run):
    """`export --to cute` writes `using ALayout = Layout<...>;`: pasted into --cute it is the same
    layout (it was refused at its first character, 'u'), and a declaration of anything but a
    C++ Layout still is."""
    spec = os.path.join(SPECS, "m16n8k16.yaml")
    r = run("export", spec, "--fragment", "B.f16", "--to", "cute")
    assert r.code == 0, r.err
    declared = "\n".join(x for x in r.out.splitlines() if x.strip() and not x.startswith("//"))
    assert declared.startswith("using BLayout = Layout<") and declared.endswith(">;")
    r = run("compare", spec, "--fragment", "B.f16", "--cute", declared)
    assert r.code == 0 and "equals the spec at all 128 points" in r.out, r.out + r.err
    r = run("compare", spec, "--fragment", "B.f16", "--cute", "using BLayout = ((4,8),(2,2)):((16,1),(8,64));")
    assert r.code == 3 and "--cute:1:1: error: CuTe layout: expected an integer or '(', found 'u'" in r.err


def test_band_without_grid_is_a_usage_error(run):
    """--band shapes --grid's picture; given alone it had been ignored without a word."""
    spec, cute = os.path.join(SPECS, "m16n8k16.yaml"), "((4,8),(2,2,2)):((32,1),(16,8,128))"
    r = run("compare", spec, "--fragment", "A.f16", "--cute", cute, "--band", "8")
    assert r.code == 2 and "--band shapes the picture --grid draws: give --grid too" in r.err
    r = run("compare", spec, "--fragment", "A.f16", "--cute", cute, "--band", "8", "--grid")
    assert r.code == 0 and r.out.count("\n   0 ") == 2, r.out  # 16 columns in two bands of 8
