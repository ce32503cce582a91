"""Where ldmatrix .b8x16 leaves a 4-bit or 6-bit value and where mma .kind::f8f6f4 reads it
(specs' `containers:`, checker/theorems/containers.py): the document's sentences verbatim in 9.1
and 9.2, the bits computed from its words, both engines on every theorem against a small
evaluation written apart from the checker, and the theorem failing where the facts change."""
import json
import os
import re
import shutil

import pytest

from conftest import DOCUMENT, SPECS

from checker.results import REFUTED
from checker.errors import SpecError
from checker.options import Options
from checker.spec.containers import place
from checker.spec.load import load_spec
from checker.theorems import containers as theorem

PACKED = ("ldmatrix.m8n16.yaml", "ldmatrix.m16n16.yaml")
FILES_9_2 = {"9.7.14.5.14": "14-warp-level-mma/mma/mma-instruction-syntax-description.md",
             "9.7.14.6.3": "14-warp-level-mma/mma-sp/mma-sp-instruction.md"}


def _spec(name):
    return load_spec(os.path.join(SPECS, name))


def _words(text):
    return " ".join(text.replace("`", "").replace("**", "").split())


# --- the document's words ----------------------------------------------------------------------

def test_every_container_sentence_is_verbatim_in_9_1():
    checked = 0
    for name in PACKED:
        for section, title, seed, versions, stated in _spec(name).containers.document:
            text = " ".join(open(os.path.join(DOCUMENT, seed), encoding="utf-8").read().split())
            assert f"## {section}. {title}" in text, (name, section)
            for sentence in stated:
                assert " ".join(sentence.split()) in text, (name, sentence)
                checked += 1
    assert checked == 12


def test_every_container_sentence_reads_word_for_word_in_9_2():
    for name in PACKED:
        for section, title, _, versions, stated in _spec(name).containers.document:
            assert versions == ("9.1", "9.2")
            text = _words(open(os.path.join(DOCUMENT, "ptx-isa-9.2", FILES_9_2[section]), encoding="utf-8").read())
            assert _words(f"{section}. {title}") in text
            for sentence in stated:
                assert _words(sentence) in text, (name, sentence)
    # and a changed word is not
    assert _words("resides in central 6 bits of the 8-bit container") not in text


def test_the_bits_are_computed_from_the_documents_words():
    assert place("resides in central 4 bits of the 8-bit container") == (2, 4)
    assert place("resides in the lower 6 bits of the 8-bit container") == (0, 6)
    assert place("in the upper 2 bits of the 8-bit container") == (6, 2)
    assert place("resides somewhere in the container") is None
    reads = _spec("ldmatrix.m8n16.yaml").containers.reads
    assert {t: (r.low, r.width) for t, r in reads.items()} == {"e2m1": (2, 4), "e3m2": (0, 6), "e2m3": (0, 6)}


def test_every_reading_is_pinned_to_a_commit_and_says_what_it_rests_on():
    for name in PACKED:
        loads = _spec(name).containers.loads
        assert set(loads) == {"b4x16_p64", "b6x16_p32"}
        for ld in loads.values():
            for s in ld.read_from:
                assert re.fullmatch(r"[0-9a-f]{40}", s.commit) and s.lines[0] <= s.lines[1] and s.says
        assert loads["b4x16_p64"].standing == "stated" and "first four bits" in loads["b4x16_p64"].read_from[0].says
        assert loads["b6x16_p32"].standing == "implied"


# --- both engines, against an evaluation written apart ------------------------------------------

def _apart(load_low, load_width, upper_zero, read_low, read_width, shift):
    """The smallest (values..., paddings...) where mma does not find the value, or None: loops."""
    pad = 0xFF & ~(((1 << load_width) - 1) << load_low)
    pads = [0] if upper_zero else [u for u in range(256) if u & ~pad == 0]
    if shift is None:
        for v in range(1 << load_width):
            for u in pads:
                if (((v << load_low) | u) >> read_low) & ((1 << read_width) - 1) != v:
                    return [v, u]
        return None
    import itertools
    for point in itertools.product(*([range(1 << load_width)] * 4 + [pads] * 4)):
        vs, us = point[:4], point[4:]
        reg = 0
        for k in range(4):
            reg |= ((vs[k] << load_low) | us[k]) << (8 * k)
        reg = (reg << shift) & 0xFFFFFFFF
        if any((reg >> (8 * k)) & 0xFF != vs[k] << read_low for k in range(4)):
            return list(point)
    return None


# questions the specs do not ask, both verdicts among them: each width, place and padding, shifted
# or not (a shifted register of unsaid padding has billions of points, so those are zero-padded)
_QUESTIONS = [(low, width, upper, read_low, shift)
              for width, low in ((4, 0), (4, 2), (6, 0), (2, 5), (3, 1))
              for upper in ("zero", "unstated")
              for read_low in (0, 1, 2)
              for shift in (None, 0, 1, 2, 3, 5)
              if shift is None or (upper == "zero" and width <= 4)]


@pytest.mark.parametrize("low,width,upper,read_low,shift", _QUESTIONS)
def test_the_enumeration_finds_what_the_loops_find(low, width, upper, read_low, shift):
    """The plain-Python engine (lists of ints, a block of points at a time) gives the verdict and
    the smallest point of the loops written apart, and what it shows at that point is the point's."""
    mask = 0xFF & ~(((1 << width) - 1) << low)
    q = theorem.Question(low, width, upper, mask, read_low, width, shift)
    verdict, witness = theorem.evaluate(q)
    want = _apart(low, width, upper == "zero", read_low, width, shift)
    assert (verdict == REFUTED) == (want is not None)
    if want is None:
        assert witness is None
        return
    assert witness["point"] == want
    if shift is None:
        v, u = want
        box = (v << low) | u
        assert witness["shown"] == [box, (box >> read_low) & ((1 << width) - 1)]
    else:
        register = sum(((v << low) | u) << (8 * k) for k, (v, u) in enumerate(zip(want[:4], want[4:])))
        assert witness["shown"] == [register, (register << shift) & 0xFFFFFFFF]


def _results(path):
    spec = load_spec(str(path))
    return spec, {r.subject: r for r in theorem.prove(spec, Options())}


@pytest.mark.parametrize("name", PACKED)
def test_both_engines_decide_every_theorem_as_the_loops_do(name):
    spec, got = _results(os.path.join(SPECS, name))
    c = spec.containers
    assert set(got) == {t.id for t in c.theorems} and len(got) == 4
    for t in c.theorems:
        ld, rd = c.loads[t.format], c.reads[t.type]
        want = _apart(ld.low, ld.width, ld.upper == "zero", rd.low, rd.width, t.shift)
        r = got[t.id]
        assert r.verdict == ("PROVED" if want is None else "REFUTED"), (t.id, r.message)
        assert (want is not None) == (t.expect == "refuted") == r.declared
        if want is not None:
            assert r.counterexample["point"] == want
    # the facts: ldmatrix leaves e2m1 in bits 3..0 where mma reads 5..2
    assert "the value 0b0001: ldmatrix .b8x16.b4x16_p64 leaves the container 0b00000001" in got["e2m1/b4x16_p64"].message
    assert "reads .e2m1 from bits 5..2: 0b0000" in got["e2m1/b4x16_p64"].message


def test_z3_alone_gives_the_same_verdicts_and_witnesses():
    spec = _spec("ldmatrix.m8n16.yaml")
    both = {r.subject: r for r in theorem.prove(spec, Options())}
    alone = {r.subject: r for r in theorem.prove(spec, Options(cross_check=False))}
    for k in both:
        assert (both[k].verdict, both[k].counterexample) == (alone[k].verdict, alone[k].counterexample)


def test_the_engines_disagreeing_is_never_a_verdict(monkeypatch):
    spec = _spec("ldmatrix.m8n16.yaml")
    monkeypatch.setattr(theorem, "evaluate", lambda q: (REFUTED, {"point": [3, 0], "shown": [3, 0]}))
    got = {r.subject: r for r in theorem.prove(spec, Options())}
    assert got["e3m2/b6x16_p32"].verdict == "UNKNOWN" and "disagree" in got["e3m2/b6x16_p32"].message


# --- the theorem can fail -------------------------------------------------------------------------

def _mutant(tmp_path, old, new, count=1):
    path = tmp_path / "ldmatrix.m8n16.yaml"
    shutil.copy(os.path.join(SPECS, "ldmatrix.m8n16.yaml"), path)
    shutil.copy(os.path.join(SPECS, "m16n8k32.yaml"), tmp_path / "m16n8k32.yaml")
    text = path.read_text()
    assert text.count(old) >= count
    path.write_text(text.replace(old, new, count))
    return path


def test_a_shift_by_one_is_refuted_with_the_smallest_counterexample(tmp_path, run):
    path = _mutant(tmp_path, "      shift: 2\n", "      shift: 1\n")
    r = run("prove", str(path), "--format", "json")
    assert r.code == 1
    bad = [x for x in json.loads(r.out)["results"] if x["property"] == "containers" and x["verdict"] != "PROVED"
           and not x["declared"]]
    assert [x["subject"] for x in bad] == ["e2m1/b4x16_p64/shift-2"]
    assert bad[0]["counterexample"]["point"] == [0, 0, 0, 1, 0, 0, 0, 0]  # v3 = 1: the lowest value that moves
    assert bad[0]["counterexample"]["point"] == _apart(0, 4, True, 2, 4, 1)


def test_a_document_placing_e2m1_low_makes_the_declared_refutation_fail(tmp_path):
    """If mma read .e2m1 from bits 3..0 (the words say "lower 4 bits"), ldmatrix's reading would
    match: the theorem declared refuted then holds, and that is a failure."""
    path = _mutant(tmp_path, "`.e2m1` resides in central 4 bits", "`.e2m1` resides in the lower 4 bits", 2)
    path.write_text(path.read_text().replace('{type: e2m1, words: "resides in central 4 bits of the 8-bit container"}',
                                             '{type: e2m1, words: "resides in the lower 4 bits of the 8-bit container"}'))
    _, got = _results(path)
    assert got["e2m1/b4x16_p64"].verdict == "REFUTED" and not got["e2m1/b4x16_p64"].declared
    assert "expected to be refuted, but it holds" in got["e2m1/b4x16_p64"].message


def test_a_6_bit_value_one_bit_up_is_refuted_at_the_smallest_padding(tmp_path):
    """ldmatrix leaving e3m2 in bits 6..1 (padding in bits 7 and 0, unsaid): the smallest point is
    value 0 with padding 1, which mma reads as the value 1."""
    path = _mutant(tmp_path, "      width: 6\n      bits: [0, 5]\n", "      width: 6\n      bits: [1, 6]\n")
    _, got = _results(path)
    r = got["e3m2/b6x16_p32"]
    assert r.verdict == "REFUTED" and not r.declared
    assert r.counterexample["point"] == [0, 1] == _apart(1, 6, False, 0, 6, None)


def test_words_that_place_nothing_are_a_located_error(tmp_path, run):
    path = _mutant(tmp_path, '{type: e3m2, words: "resides in the lower 6 bits of the 8-bit container"}',
                   '{type: e3m2, words: "resides in the lower 6 bits"}')
    r = run("validate", str(path))
    assert r.code == 3
    assert re.search(r"ldmatrix\.m8n16\.yaml:\d+:\d+: .*names no place in the container", r.out + r.err)
    with pytest.raises(SpecError, match="are in no stated sentence"):
        load_spec(str(_mutant(tmp_path, '{type: e2m3, words: "resides in the lower 6 bits of the 8-bit container"}',
                              '{type: e2m3, words: "resides in the lower 5 bits of the 8-bit container"}')))


def test_a_theorem_of_a_type_and_a_format_of_another_width_is_a_located_error(tmp_path, run):
    """.e3m2 (6 bits) "loaded" by .b4x16_p64 (4-bit values, zero padding) lands inside the bits mma
    reads, and the theorem held: about two bits no load gives."""
    path = _mutant(tmp_path, "      format: b6x16_p32\n      type: e3m2\n", "      format: b4x16_p64\n      type: e3m2\n")
    r = run("validate", str(path))
    assert r.code == 3
    assert re.search(r"ldmatrix\.m8n16\.yaml:\d+:15: error: \.b4x16_p64 loads 4-bit values, but \.e3m2 has 6 bits "
                     r"\(the document's 'resides in the lower 6 bits of the 8-bit container'\)", r.out + r.err), r.out + r.err
    r = run("prove", str(path), "--no-cache")
    assert r.code == 3


@pytest.mark.parametrize("old, new, said", [
    ("      witness: [1, 0]\n", "      witness: [2, 0]\n", "refuted, as declared, but at [1, 0], not at its witness"),
    ("      witness: [1, 0]\n", "", "it names no witness: give the smallest point it is refuted at, witness: [1, 0]")])
def test_a_theorem_declared_refuted_is_refuted_at_its_witness(tmp_path, old, new, said):
    _, got = _results(_mutant(tmp_path, old, new))
    r = got["e2m1/b4x16_p64"]
    assert r.verdict == "REFUTED" and not r.declared and said in r.message, r.message


def test_a_witness_of_a_theorem_expected_to_hold_is_refused(tmp_path):
    with pytest.raises(SpecError, match="refuted nowhere: witness: goes with expect: refuted"):
        load_spec(str(_mutant(tmp_path, "      shift: 2\n      expect: holds\n",
                              "      shift: 2\n      expect: holds\n      witness: [0, 0]\n")))


# --- the probe's prediction of the ten .b8x16 forms ---------------------------------------------

@pytest.fixture(scope="module")
def packed_forms():
    from checker.probe.movement_run import subjects_of

    paths = [os.path.join(SPECS, n) for n in PACKED]
    subjects = subjects_of([(p, load_spec(p)) for p in paths])
    return {k: s for k, s in subjects.items() if "b8x16." in k}


def test_every_packed_form_is_predicted_from_its_readings(packed_forms):
    assert len(packed_forms) == 10
    assert all(f.predictable and f.container.format in f.instruction for f in packed_forms.values())


@pytest.mark.parametrize("which", ["ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64",
                                   "ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b6x16_p32",
                                   "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64"])
def test_the_prediction_is_the_readings_computed_apart(packed_forms, which):
    """Register byte of (lane, i): the row at lane row's address, its first bytes one little-endian
    number, value col at bits width*col; in the container at the reading's low bit."""
    from checker.probe import movement_model as model

    form = packed_forms[which]
    probe = model.build(form, seed=7)
    got = model.predict(form, probe.arrays)["registers_out"]
    ld = form.container
    image, addresses = probe.arrays["image"], probe.arrays["addresses"]
    for w in range(probe.warps):
        for lane in range(32):
            for i in range(form.n):
                row, col = int(form.rows[lane, i]), int(form.cols[lane, i])
                start = int(addresses[w, row])
                number = int.from_bytes(bytes(image[w, start:start + ld.memory.packed_bytes]), "little")
                value = (number >> (ld.width * col)) & ((1 << ld.width) - 1)
                byte = (int(got[w, lane, i // 4]) >> (8 * (i % 4))) & 0xFF
                assert byte == value << ld.low, (w, lane, i)
    # padding is POISON in the code warps and random in the others: the prediction never reads it
    assert (image[0].reshape(-1, 16)[:, ld.memory.packed_bytes:] == model.POISON).all()


def test_unsaid_container_bits_are_not_predicted(packed_forms):
    from checker.probe import movement_model as model

    six = packed_forms["ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32"]
    four = packed_forms["ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64"]
    assert (model.defined_bits(six) == 0x3F3F3F3F).all()
    assert model.defined_bits(four) is None  # the reading says the upper four bits are zero


def test_hardware_placing_e2m1_where_mma_reads_it_would_refute_the_reading(packed_forms, tmp_path, run):
    """A dump whose every container holds its value two bits up (what mma reads, not what CuTe
    says ldmatrix leaves) disagrees, at the first warp and lane."""
    from checker.probe import movement_dump
    from checker.probe.movement_run import record

    form = packed_forms["ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64"]
    path = record(form, str(tmp_path), form.minimum_target(), 0)
    d = movement_dump.read(path)
    d.arrays["registers_out"] = d.arrays["registers_out"] << 2
    movement_dump.write(path, {k: v for k, v in d.header.items() if k not in ("format", "version")}, d.arrays)
    r = run("crosscheck", os.path.join(SPECS, "ldmatrix.m8n16.yaml"), "--dumps", path)
    assert r.code == 1 and "DISAGREES ldmatrix.m8n16.x4.b8x16.b4x16_p64" in r.out
    first = re.search(r"warp (\d+), lane (\d+), register (\d+): dump ([0-9a-f]{8}), spec predicts ([0-9a-f]{8})", r.out)
    assert first and int(first.group(4), 16) == int(first.group(5), 16) << 2 & 0xFFFFFFFF != 0
