"""ldmatrix, stmatrix, movmatrix: the readings of Figures 104-110 against every published encoding
transcribed in checker/references/data (the checker's verdict, `checker conformance`: z3 and the
enumeration; and a small evaluation here, written apart from the checker -- its own CuTe text
reader, its own reading of the byte shuffle -- that cross-checks the checker's evaluation of each
encoding point for point), the document's sentences they rest on, the table contract, and the
composition theorems with both engines."""
import glob
import json
import os
import re

import pytest
import yaml

from conftest import DOCUMENT, ROOT, SPECS

from checker.formula.evaluate import warp_table
from checker.spec.load import load_spec
from checker.spec.reading import materialize

DATA = os.path.join(ROOT, "checker", "references", "data")
MOVEMENT = sorted(p for p in glob.glob(os.path.join(SPECS, "*.yaml"))
                  if os.path.basename(p).split(".")[0] in ("ldmatrix", "stmatrix", "movmatrix"))


# --- a tiny evaluation of the published encodings ---------------------------------------------

def _tuple(text: str, k: int = 0):
    """'((8,4),128)' -> ((8, 4), 128), and where it ended."""
    if text[k] == "(":
        items, k = [], k + 1
        while True:
            item, k = _tuple(text, k)
            items.append(item)
            if text[k] == ",":
                k += 1
            elif text[k] == ")":
                return tuple(items), k + 1
            else:
                raise ValueError(f"bad layout text at {k}: {text!r}")
    m = re.match(r"\d+", text[k:])
    return int(m.group()), k + len(m.group())


def cute(text: str):
    """A CuTe layout 'shape:stride' -> f(mode coordinates...) over its top-level modes, each mode's
    integer coordinate split colexicographically (first sub-mode fastest), as CuTe does."""
    text = text.replace(" ", "")
    shape_text, stride_text = text.split(":")
    shape, stride = _tuple(shape_text)[0], _tuple(stride_text)[0]

    def size(s):
        return s if isinstance(s, int) else _prod(size(x) for x in s)

    def at(s, d, c):
        if isinstance(s, int):
            assert 0 <= c < s, (c, s)
            return c * d
        out = 0
        for sub, dub in zip(s, d):
            out += at(sub, dub, c % size(sub))
            c //= size(sub)
        return out

    def f(*coords):
        return sum(at(s, d, c) for s, d, c in zip(shape, stride, coords))

    f.sizes = tuple(size(s) for s in shape)
    return f


def _prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


def cute_copy_cells(enc: dict, n: int) -> dict:
    """(lane, i) -> (row, col) of the spec's tile from a cute-copy encoding: the register layout's
    bit, its tile row renumbered by the thread that gives the row's address, the shuffle undone."""
    reg, bits = cute(enc["registers"]), enc["element_bits"]
    rows_of = {}
    if enc.get("memory"):
        mem = cute(enc["memory"])
        for t in range(32):
            row = mem(t, 0) // 128
            assert mem(t, 0) % 128 == 0 and all(mem(t, v) == mem(t, 0) + v for v in range(128))
            rows_of.setdefault(row, t)  # the first thread that gives it: the document's addr index
    per = 32 // bits
    raw = {}
    if enc.get("shuffle"):
        for j, names in enumerate(enc["shuffle"]["registers"]):
            for p, name in enumerate(x.strip() for x in names.split(",")):
                m = re.fullmatch(r"tmp(\d+)_\.([xyzw])", name)
                raw[per * int(m.group(1)) + "xyzw".index(m.group(2))] = per * j + p
    cells = {}
    for lane in range(32):
        for i in range(n):
            e = raw.get(i, i)
            b = reg(lane, bits * e)
            assert all(reg(lane, bits * e + k) == b + k for k in range(bits)), "an element's bits are not contiguous"
            row, col = b // 128, (b % 128) // bits
            cells[(lane, i)] = (rows_of.get(row, row) if rows_of else row, col)
    return cells


def triton_cells(enc: dict, n: int) -> dict:
    cells = {}
    for lane in range(32):
        for i in range(n):
            r = c = 0
            for k, (br, bc) in enumerate(enc["register"]):
                if i >> k & 1:
                    r, c = r ^ br, c ^ bc
            for k, (br, bc) in enumerate(enc["lane"]):
                if lane >> k & 1:
                    r, c = r ^ br, c ^ bc
            cells[(lane, i)] = (r, c)
    return cells


def _entries():
    """The encodings the readings were read from: CuTe's copy atoms and Triton's tiles. (Encodings
    checked against the readings afterwards, such as MLIR's ldmatrix formulas, are conformance's.)"""
    out = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.yaml"))):
        name = os.path.basename(path)
        if name != "cute-copy.yaml" and "ldmatrix" not in name:
            continue
        doc = yaml.safe_load(open(path, encoding="utf-8"))
        out += [(doc["library"], doc, e) for e in doc["entries"] if e["encoding"]["kind"] in ("cute-copy", "triton")]
    return out


ENTRIES = _entries()
SPECS_BY_NAME = {os.path.basename(p)[:-5]: load_spec(p) for p in MOVEMENT}


def reading_cells(spec: str, fid: str, formula: str | None = None) -> dict:
    frag = SPECS_BY_NAME[spec].fragment(fid)
    reading = materialize(frag)
    rows, cols = warp_table(reading.layout, reading.n)
    return {(lane, i): (rows[lane * reading.n + i], cols[lane * reading.n + i])
            for lane in range(32) for i in range(reading.n)}


def first_difference(a: dict, b: dict):
    return next(((k, a[k], b[k]) for k in sorted(a) if a[k] != b.get(k)), None)


def published(entry, n):
    enc = entry["encoding"]
    return cute_copy_cells(enc, n) if enc["kind"] == "cute-copy" else triton_cells(enc, n)


@pytest.fixture(scope="module")
def judged():
    """The checker's verdict on every ldmatrix-family entry, by (library, name)."""
    from checker.references import conformance, load

    specs = conformance.Specs(MOVEMENT)
    return {(r.library, r.name): conformance.judge(r, specs) for r in load.load_all()
            if r.spec.split(".")[0] in ("ldmatrix", "stmatrix", "movmatrix")}


@pytest.mark.parametrize("library,doc,entry", ENTRIES, ids=[f"{lib}:{e['name']}" for lib, _, e in ENTRIES])
def test_every_published_encoding_equals_the_reading_or_is_refuted_as_declared(judged, library, doc, entry):
    """The checker's verdict (z3 and the enumeration, agreeing), and this file's own evaluation
    agreeing with it."""
    assert re.fullmatch(r"[0-9a-f]{40}", doc["commit"]) and entry["line"] > 0
    v = judged[(library, entry["name"])]
    frag = entry["fragment"]
    mine = reading_cells(frag["spec"], frag["id"])
    n = max(i for _, i in mine) + 1
    diff = first_difference(mine, published(entry, n))
    if entry.get("expect") == "refuted":
        assert v.verdict == "differs" and diff is not None, f"{entry['name']} was declared refuted: {v.verdict}"
        d = v.comparison.difference
        assert (diff[0], diff[1], diff[2]) == ((d.thread, d.i), d.spec, d.candidate)
    else:
        assert v.verdict == "equal" and v.as_expected, v.reason
        assert diff is None, f"{entry['name']}: at (lane, i) = {diff[0]} the reading gives {diff[1]}, upstream {diff[2]}"


@pytest.mark.parametrize("library,doc,entry", ENTRIES, ids=[f"{lib}:{e['name']}" for lib, _, e in ENTRIES])
def test_this_evaluation_and_the_checkers_agree_at_every_point(judged, library, doc, entry):
    """The checker's candidate (checker.compare.copyatom / candidates.Bases, which both engines read)
    and this file's evaluation give the same cell at every (lane, i) of the atom's own domain."""
    from checker.references import conformance

    v = judged[(library, entry["name"])]
    cand = conformance.candidate(v.reference.encoding, None) if entry["encoding"]["kind"] == "triton" \
        else v.reference.encoding.fields["atom"]
    points = [(t, i) for t in range(cand.threads) for i in range(cand.elements)]
    mine = published(entry, cand.elements)
    assert dict(zip(points, cand.cells(points))) == {p: mine[p] for p in points}


def test_the_cute_movmatrix_atom_encodes_no_transpose():
    """The CuTe question settled: SM75_U32x1_MOVM_T's DstLayout is its SrcLayout, so it says d
    holds what a holds. The smallest point where that differs from movmatrix's d (the transpose)
    is lane 0, element 1: a holds M[0][1], d holds M[1][0]."""
    entry = next(e for lib, _, e in ENTRIES if e["name"] == "SM75_U32x1_MOVM_T.DstLayout")
    diff = first_difference(reading_cells("movmatrix.m8n8", "d"), published(entry, 2))
    assert diff == ((0, 1), (1, 0), (0, 1))
    src = next(e for lib, _, e in ENTRIES if e["name"] == "SM75_U32x1_MOVM_T.SrcLayout")
    assert published(src, 2) == published(entry, 2) == reading_cells("movmatrix.m8n8", "a")


def test_a_wrong_reading_is_caught_by_the_published_encodings():
    """The comparison can fail: the .trans reading compared with the non-transposed atom, and the
    m16n16 atom read without its SrcLayout's row order or without its byte shuffle, all differ."""
    entry = next(e for _, _, e in ENTRIES if e["name"] == "SM75_U32x1_LDSM_N")
    assert first_difference(reading_cells("ldmatrix.m8n8", "r.x1.trans"), published(entry, 2)) is not None
    atom = next(e for _, _, e in ENTRIES if e["name"] == "SM100_U8x8_LDSM_T")
    mine = reading_cells("ldmatrix.m16n16", "r.x1.trans")
    assert first_difference(mine, published(atom, 8)) is None
    no_rows = dict(atom["encoding"], memory=None)
    no_shuffle = {k: v for k, v in atom["encoding"].items() if k != "shuffle"}
    assert first_difference(mine, cute_copy_cells(no_rows, 8)) is not None
    assert first_difference(mine, cute_copy_cells(no_shuffle, 8)) is not None


def test_every_reading_names_its_encodings_and_every_encoding_is_named():
    named = {(lib, e["name"]): (e["fragment"]["spec"], e["fragment"]["id"]) for lib, _, e in ENTRIES}
    for name, spec in SPECS_BY_NAME.items():
        for f in spec.fragments():
            assert f.reading_only and f.forms
            for ref in f.read_from:
                lib, upstream = ref.split(" ", 1)
                assert named.get((lib, upstream)) == (name, f.id), (name, f.id, ref)
            if not f.read_from:
                assert f.basis, f"{name} {f.id} names no encoding and says nothing of its basis"
    for (lib, upstream), (spec, fid) in named.items():
        frag = SPECS_BY_NAME[spec].fragment(fid)
        assert frag is not None and (f"{lib} {upstream}" in frag.read_from or frag.id == "d"), (lib, upstream)


def test_cute_layout_evaluation():
    f = cute("((4,8),(16,2)):((256,16),(1,128))")
    assert f.sizes == (32, 32)
    assert f(5, 0) == 256 + 16 and f(0, 16) == 128 and f(3, 31) == 3 * 256 + 15 + 128


# --- the document's words ---------------------------------------------------------------------------

def _norm(text):
    return " ".join(text.split())


def _words(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(text.replace("`", "").replace("**", "").split())


def _texts(spec):
    return [(sec, s) for sec in spec.sections for s in sec.stated] + \
           [(sec, f.table[0].fragment) for sec in spec.sections for f in sec.fragments]


def test_every_stated_sentence_caption_and_operand_sentence_is_verbatim_in_9_1():
    checked = 0
    for name, spec in SPECS_BY_NAME.items():
        for sec in spec.sections:
            text = _norm(open(os.path.join(DOCUMENT, sec.seed), encoding="utf-8").read())
            assert f"## {sec.section}. " in text and _words(sec.title) in _words(text)
            for sentence in list(sec.stated) + [f.table[0].fragment for f in sec.fragments]:
                assert _norm(sentence) in text, (name, sentence)
                checked += 1
            for f in sec.fragments:
                assert f"**{f.figures[0]} {f.caption}**" in text, (name, f.id)
    assert checked >= 60


def test_every_stated_sentence_reads_word_for_word_in_9_2():
    folder = os.path.join(DOCUMENT, "ptx-isa-9.2", "14-warp-level-mma", "mma")
    files = {"9.7.14.5.15": "ldmatrix.md", "9.7.14.5.16": "stmatrix.md", "9.7.14.5.17": "movmatrix.md"}
    for name, spec in SPECS_BY_NAME.items():
        for sec in spec.sections:
            assert sec.versions == ("9.1", "9.2")
            text = _words(open(os.path.join(folder, files[sec.section]), encoding="utf-8").read())
            assert _words(f"{sec.section}. {sec.title}") in text
            for sentence in list(sec.stated) + [f.table[0].fragment for f in sec.fragments]:
                assert _words(sentence) in text, (name, sentence)
            for f in sec.fragments:
                assert _words(f"{f.figures[0]} {f.caption}") in text, (name, f.id)


def test_a_changed_word_fails_the_verbatim_check():
    text = _norm(open(os.path.join(DOCUMENT, "ptx-isa", "9.7.14.5.15-ldmatrix.md"), encoding="utf-8").read())
    sentence = SPECS_BY_NAME["ldmatrix.m8n8"].sections[0].stated[4]
    assert "a group of four consecutive threads loads 16 bytes" in sentence and _norm(sentence) in text
    assert _norm(sentence.replace("16 bytes", "32 bytes")) not in text


# --- the table contract and the theorems -----------------------------------------------------------

def test_table_contract_m8n8(run):
    """`checker table --format json`: [[lane, i, row, col], ...] over the stacked (8 num) x 8 tile,
    i = 2 * (destination register j) + half, the low half first."""
    for num in (1, 2, 4):
        r = run("table", os.path.join(SPECS, "ldmatrix.m8n8.yaml"), "--fragment", f"r.x{num}", "--format", "json")
        assert r.code == 0, r.out
        got = json.loads(r.out)[0]
        assert (got["rows"], got["cols"]) == (8 * num, 8)
        for lane, i, row, col in got["entries"]:
            j, half = divmod(i, 2)
            assert (row, col) == (8 * j + lane // 4, 2 * (lane % 4) + half)
        assert len(got["entries"]) == 32 * 2 * num


def test_compositions_are_proved_and_refuted_as_declared(run):
    r = run("prove", *MOVEMENT, "--format", "json")
    assert r.code == 0, r.out
    got = {x["subject"]: x for x in json.loads(r.out)["results"] if x["property"] == "composition"}
    declared = {c.id: c.expect for s in SPECS_BY_NAME.values() for c in s.compositions}
    assert set(got) == set(declared) and len(declared) >= 12
    for cid, expect in declared.items():
        x = got[cid]
        assert x["verdict"] == ("PROVED" if expect == "holds" else "REFUTED"), (cid, x["message"])
        assert (expect == "refuted") == bool(x["declared"]) == (x["counterexample"] is not None)
    assert "lane 0 a1 gives (0, 1) but movmatrix.m8n8/d lane 0 d1 gives (1, 0)" in got["movmatrix/is-not-a-no-op"]["message"]


@pytest.mark.parametrize("old, new, said", [
    ("    witness: {lane: 0, i: 1}\n", "    witness: {lane: 0, i: 2}\n",
     "refuted, as declared, but at {lane: 0, i: 1}, not at its witness"),
    ("    witness: {lane: 0, i: 1}\n", "", "it names no witness: give the smallest point it is refuted at, "
                                           "witness: {lane: 0, i: 1}")])
def test_a_composition_declared_refuted_is_refuted_at_its_witness(run, tmp_path, old, new, said):
    path = tmp_path / "movmatrix.m8n8.yaml"
    text = open(os.path.join(SPECS, "movmatrix.m8n8.yaml")).read()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    r = run("prove", str(path), "--format", "json")
    (x,) = [y for y in json.loads(r.out)["results"] if y["subject"] == "movmatrix/is-not-a-no-op"]
    assert r.code == 1 and x["verdict"] == "REFUTED" and not x["declared"] and said in x["message"], x["message"]


def test_a_wrong_placement_is_refuted_with_a_counterexample(run, tmp_path):
    """The theorem can fail: ldmatrix.x4 with matrices 1 and 2 swapped (lane l giving A[l % 8 +
    8 * (l / 16)][8 * ((l / 8) % 2)], the column-first order) is not m16n8k16's A."""
    import shutil

    for name in ("ldmatrix.m8n8.yaml", "m16n8k16.yaml"):
        shutil.copy(os.path.join(SPECS, name), tmp_path / name)
    path = tmp_path / "ldmatrix.m8n8.yaml"
    text = path.read_text()
    path.write_text(text.replace('    row: "row % 16"\n    col: "col + 8 * (row / 16)"',
                                 '    row: "row % 8 + 8 * (row / 16)"\n    col: "col + 8 * ((row / 8) % 2)"', 1))
    r = run("prove", str(path), "--format", "json")
    assert r.code == 1
    bad = [x for x in json.loads(r.out)["results"] if x["property"] == "composition" and x["verdict"] == "REFUTED"
           and not x["declared"]]
    assert [x["subject"] for x in bad] == ["ldmatrix.x4/m16n8k16/A.f16"]
    assert bad[0]["counterexample"]["point"] and "lane 0 a2" in bad[0]["message"]
