"""The caches: lark's tables ship as JSON package data (never a pickle from a writable place); a
prove cache entry replays only while every file the proof read still holds (recorded, not
listed); a malformed, oversized or non-regular entry is a miss, never a crash."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

from checker import cache, recording
from checker.report import junit, sarif
from checker.report.text import prove_report

# ---------------------------------------------------------------- lark's tables


def test_the_shipped_parser_tables_are_what_the_grammar_builds():
    """Regenerated in a fresh process (another hash seed, another build order) they are the same
    bytes: a grammar edit without `python -m checker.formula.tables --write` fails here."""
    code = ("import sys; from checker.formula.tables import tables_text; "
            "sys.stdout.write(tables_text('formula') + tables_text('elements'))")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    fresh = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    shipped = "".join(open(os.path.join(ROOT, "checker", "formula", f"{n}.tables.json"), encoding="utf-8").read()
                      for n in ("formula", "elements"))
    assert fresh.stdout == shipped, "stale: run python -m checker.formula.tables --write"


def test_the_shipped_tables_do_not_depend_on_the_python_that_built_them():
    """sre's width of an unbounded pattern is 2**32 - 1 before Python 3.11.7 and 2**64 from it on;
    lark keeps it in the tables, which then differed by the Python that built them (the test above
    failed on 3.10). Both are written as 2**64; bounded widths are kept."""
    from checker.formula import tables

    built_on_310 = {"memo": [{"__type__": "TerminalDef", "pattern": {"__type__": "PatternRE", "_width": [2, (1 << 32) - 1]}},
                             {"__type__": "TerminalDef", "pattern": {"__type__": "PatternRE", "_width": [1, 3]}}]}
    built_on_311 = {"memo": [{"__type__": "TerminalDef", "pattern": {"__type__": "PatternRE", "_width": [2, 1 << 64]}},
                             {"__type__": "TerminalDef", "pattern": {"__type__": "PatternRE", "_width": [1, 3]}}]}
    tables._unbounded(built_on_310)
    tables._unbounded(built_on_311)
    assert built_on_310 == built_on_311
    assert built_on_311["memo"][0]["pattern"]["_width"] == [2, 1 << 64]
    assert built_on_311["memo"][1]["pattern"]["_width"] == [1, 3]
    shipped = open(os.path.join(ROOT, "checker", "formula", "formula.tables.json"), encoding="utf-8").read()
    assert '"_width":[1,18446744073709551616]' in shipped and "4294967295" not in shipped


def test_the_parsers_come_from_the_tables_and_parse_as_built_ones():
    from lark import Lark

    from checker.formula import elements as E, parser as P, tables

    assert P._parser().source_path == "<deserialized>" and E._elements_parser().source_path == "<deserialized>"
    built = Lark(tables.grammar("formula"), **tables.OPTIONS["formula"])
    for text in ["row = groupID + 8 for ai where i >= 4\ncol = i\n", "(%laneid >> 2) * 0x1F % 4 == 1 && !(i < 3)"]:
        start = "start" if text.endswith("\n") else "lone"
        assert P._parser().parse(text, start=start) == built.parse(text, start=start)


def test_nothing_is_unpickled_and_no_user_cache_file_is_read(tmp_path):
    code = ("import pickle, lark.lark as L; " 
            "pickle.load = pickle.loads = L.pickle.load = None; "
            "from checker.formula import elements as E, parser as P; P._parser(); E._elements_parser(); print('ok')")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), HOME=str(tmp_path))
    (tmp_path / "ptx-fragment-checker").mkdir()
    for name in ("formula", "elements"):  # what a planted lark cache would be called
        (tmp_path / "ptx-fragment-checker" / f"{name}-lark-1.3.1.cache").write_bytes(b"\x80\x04planted")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr
    for module in ("parser.py", "elements.py", "tables.py"):
        src = open(os.path.join(ROOT, "checker", "formula", module), encoding="utf-8").read()
        assert "import pickle" not in src and "cache=" not in src and "Lark.load(" not in src


def test_lark_deserialization_instantiates_only_named_lark_classes():
    """What the loader relies on: a `__type__` outside the namespace is a KeyError, not an import."""
    from lark.utils import _deserialize

    with pytest.raises(KeyError):
        _deserialize({"__type__": "os.system"}, {}, {})


# ---------------------------------------------------------------- what a proof read


@pytest.fixture
def cached(monkeypatch, tmp_path):
    monkeypatch.delenv("CHECKER_NO_CACHE", raising=False)
    monkeypatch.setenv("CHECKER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def specs(tmp_path):
    out = tmp_path / "specs"
    shutil.copytree(SPECS, out)
    return out


def _entry(folder):
    names = [n for n in os.listdir(folder) if n.startswith("prove-")]
    assert len(names) == 1, names
    return json.loads(_body(folder / names[0]))


def _body(path):
    """An entry's JSON, its MAC checked (the test run's own key: tests/conftest.py)."""
    k = os.path.basename(str(path))[len("prove-"):-len(".json")]
    return cache.unseal(k, open(path, "rb").read())


def _write(path, k, doc):
    """`doc` as an entry that verifies: what a forger who had the key could write."""
    open(path, "wb").write(cache.seal(k, json.dumps(doc).encode()))


def test_the_recording_covers_every_process_of_a_proof(specs, monkeypatch):
    """The command's process and its workers append to one log: what a same_as neighbour, a
    relations file and the specs a relation names were read as, and which files were asked about."""
    from checker.options import Options
    from checker.prover import prove_paths

    rec = recording.start()
    prove_paths([str(specs / "m16n8k32.yaml")], Options(jobs=2))
    got = rec.stop()
    read = {r[1] for r in got if r[0] == "read"}
    assert str(specs / "m16n8k32.yaml") in read  # this process
    assert str(specs / "m16n8k16.yaml") in read  # a same_as neighbour
    assert any(r[0] == "isfile" and r[1] == str(specs / "m16n8k16.yaml") for r in got)


def test_the_stale_same_as_neighbour_is_a_miss(run, cached, specs):
    """Issue 20: rename C.float in m16n8k16.yaml; the cached m16n8k32 verdict is not replayed."""
    target = str(specs / "m16n8k32.yaml")
    first = run("prove", target)
    assert "from the cache" in run("prove", target).out
    m = specs / "m16n8k16.yaml"
    text = m.read_text()
    assert text.count("id: C.float") == 1
    m.write_text(text.replace("id: C.float", "id: C.floatx"))
    again, fresh = run("prove", target), run("prove", target, "--no-cache")
    assert "from the cache" not in again.out
    # the renamed fragment is no longer there for the same_as: a spec error (exit 3), never the cached 0
    assert again.code == fresh.code == 3 != first.code
    assert "m16n8k16/C.float" in again.out and "found none named 'C.float'" in again.out


def test_a_neighbour_outside_the_key_is_covered_by_the_record(specs, tmp_path):
    """By construction: the key names only m16n8k32.yaml; the entry's record names what the
    proof read, and a change to any of it is a miss."""
    from checker.prover import prove_paths
    from checker.options import Options

    target = str(specs / "m16n8k32.yaml")
    k = cache.key([target], {"test": 1})
    rec = recording.start()
    results = prove_paths([target], Options(jobs=1))
    cache.store(str(tmp_path / "c"), k, results, rec.stop())
    assert cache.load(str(tmp_path / "c"), k) is not None
    m = specs / "m16n8k16.yaml"
    m.write_text(m.read_text() + "\n# one more byte\n")
    assert cache.load(str(tmp_path / "c"), k) is None


@pytest.mark.parametrize("change", ["spec", "neighbour", "relations", "named-by-relations", "neighbour-removed"])
def test_any_file_a_proof_read_changing_is_a_miss(run, cached, specs, change):
    target = [str(specs / "relations.yaml")] if change in ("relations", "named-by-relations") else \
        [str(specs / "m16n8k32.yaml")]
    run("prove", *target)
    assert "from the cache" in run("prove", *target).out
    edit = {"spec": "m16n8k32.yaml", "neighbour": "m16n8k16.yaml", "relations": "relations.yaml",
            "named-by-relations": "m16n8k256.yaml", "neighbour-removed": "m16n8k16.yaml"}[change]
    if change == "neighbour-removed":
        os.remove(specs / edit)
    else:
        (specs / edit).write_text((specs / edit).read_text() + "\n# changed\n")
    assert "from the cache" not in run("prove", *target).out


def test_a_schema_change_is_a_miss(tmp_path):
    """The schema is package data: the key covers the checker's own files, so a changed schema
    proves again (in a copy of the package, run from a fresh process)."""
    pkg = tmp_path / "pkg"
    shutil.copytree(os.path.join(ROOT, "checker"), pkg / "checker", ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(pkg), CHECKER_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("CHECKER_NO_CACHE", None)
    spec = os.path.join(SPECS, "m8n8k32.yaml")

    def prove():
        return subprocess.run([sys.executable, "-m", "checker", "prove", spec, "--jobs", "1"], cwd=str(tmp_path),
                              env=env, capture_output=True, text=True).stdout

    prove()
    assert "from the cache" in prove()
    schema = pkg / "checker" / "spec" / "spec.schema.json"
    doc = json.loads(schema.read_text())
    doc["description"] = doc.get("description", "") + " (changed)"
    schema.write_text(json.dumps(doc))
    assert "from the cache" not in prove()


# ---------------------------------------------------------------- records, checked again


def test_records_hold_until_a_file_changes_goes_or_stops_being_regular(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("x: 1\n")
    rec = recording.start()
    recording.read_regular(str(f), 100)
    recording.isfile(str(tmp_path / "gone.yaml"))
    records = rec.stop()
    assert recording.still_holds(records)
    (tmp_path / "gone.yaml").write_text("now here")
    assert not recording.still_holds(records)
    os.remove(tmp_path / "gone.yaml")
    f.write_text("x: 2\n")
    assert not recording.still_holds(records)
    os.remove(f)
    assert not recording.still_holds(records)
    os.mkfifo(f)
    assert not recording.still_holds(records)  # and does not block on the FIFO


@pytest.mark.parametrize("records", [
    None, "x", {}, [[]], [["read"]], [["read", "a", 1, "file"]], [["read", "a", -1, "file", "0" * 64]],
    [["read", "a", 1 << 40, "file", "0" * 64]], [["read", "", 1, "file", "0" * 64]],
    [["read", "a\0b", 1, "file", "0" * 64]], [["isfile", "a", "yes"]], [["exec", "rm -rf /", True]],
    [["read", "/dev/zero", 1 << 20, "file", "0" * 64]], [["read", "/", 10, "file", "0" * 64]],
    [["isfile", "x" * 5000, False]],
])
def test_malformed_records_do_not_hold(records):
    assert recording.still_holds(records) is False


def test_a_torn_log_records_nothing_cacheable():
    rec = recording.start()
    os.write(recording.share(), b'["read","a",1,"file"')  # no newline: cut
    assert rec.stop() is None


# ---------------------------------------------------------------- hostile entries


@pytest.fixture(scope="module")
def entry(tmp_path_factory):
    """A real entry of a refuted spec (counterexamples, replays) and its key."""
    from checker.options import Options
    from checker.prover import prove_paths

    where = tmp_path_factory.mktemp("entry")
    spec = where / "m8n8k32.yaml"
    text = open(os.path.join(SPECS, "m8n8k32.yaml")).read()
    spec.write_text(text.replace("col = (threadID_in_group * 8) + i ", "col = (threadID_in_group * 8) + i + 1", 1))
    k = cache.key([str(spec)], {"t": 1})
    rec = recording.start()
    results = prove_paths([str(spec)], Options(jobs=1))
    cache.store(str(where / "c"), k, results, rec.stop())
    doc = json.loads(_body(where / "c" / f"prove-{k}.json"))
    assert any(r["counterexample"] for r in doc["results"])
    return where / "c", k, doc


def _forgeries(doc):
    bad_values = [None, True, 1, -1.5, float("inf"), "x", [], {}, [1], {"pieces": "abc"}, "\ud800", "f:\u00b2:1"]
    fields = list(doc["results"][0])
    refuted = next(k for k, r in enumerate(doc["results"]) if r["counterexample"])
    for k in (0, refuted):
        for f in fields:
            for v in bad_values:
                d = json.loads(json.dumps(doc))
                d["results"][k][f] = v
                yield f"{k}.{f}={v!r}", d
        for v in ({"pieces": [1]}, {"pieces": [{"point": 1}]}, {"relation_at": 5}, {"relation_at": "a:\u0663:1"},
                  {"replay": ["x"]}, {"pieces": "abc"}):
            d = json.loads(json.dumps(doc))
            d["results"][k]["counterexample"] = v
            yield f"{k}.cex={v!r}", d
    for f, v in (("format", "x"), ("key", "0" * 64), ("results", {}), ("results", [1]), ("inputs", None),
                 ("inputs", [["read", "/dev/zero", 10, "file", "0" * 64]]), ("inputs", [[1]])):
        d = json.loads(json.dumps(doc))
        d[f] = v
        yield f"{f}={v!r}", d
    d = json.loads(json.dumps(doc))
    d["results"][0]["detail"] = {"python_seconds": "soon"}
    yield "python_seconds", d


def test_a_forged_entry_is_a_miss_or_replays_in_every_format(entry):
    """Every forgery either misses, or gives results that every format renders: signed with the
    key, as if it had leaked (unsigned, each is a miss: test_cache_key.py), the checks of every
    field stand on their own."""
    where, k, doc = entry
    path = where / f"prove-{k}.json"
    misses = 0
    for name, forged in _forgeries(doc):
        _write(path, k, forged)
        try:
            got = cache.load(str(where), k)
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"{name}: load raised {exc!r}")
        if got is None:
            misses += 1
            continue
        for render in (lambda: prove_report(got, 0.0, 1).encode("utf-8"),
                       lambda: json.dumps([r.as_json() for r in got]).encode("utf-8"),
                       lambda: json.dumps(sarif.render(got, "v")).encode("utf-8"),
                       lambda: junit.render(got, 0.0).encode("utf-8")):
            render()
    assert misses > 100
    _write(path, k, doc)
    assert cache.load(str(where), k) is not None


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder", "oversized", "deep"])
def test_a_non_regular_oversized_or_deep_entry_is_a_miss(entry, tmp_path, kind, monkeypatch):
    where, k, doc = entry
    folder = tmp_path / "c"
    folder.mkdir()
    path = folder / f"prove-{k}.json"
    if kind == "symlink":
        os.symlink(where / f"prove-{k}.json", path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "oversized":
        monkeypatch.setattr(cache, "MAX_ENTRY", 1000)
        _write(path, k, doc)
    else:
        path.write_bytes(cache.seal(k, b"[" * 100_000 + b"]" * 100_000))  # signed: the parser's depth is met
    assert cache.load(str(folder), k) is None


def test_a_planted_temporary_file_is_not_written_through(tmp_path):
    from checker.results import PROVED, Result

    k = "a" * 64
    victim = tmp_path / "victim"
    victim.write_text("keep")
    folder = tmp_path / "c"
    folder.mkdir()
    os.symlink(victim, folder / f".prove-{k}.{os.getpid()}.tmp")
    cache.store(str(folder), k, [Result("s", "f", "covers", PROVED)], [])
    assert victim.read_text() == "keep"


def test_a_spec_read_twice_is_loaded_once_and_a_changed_one_again(tmp_path):
    """checker/spec/load.py keys what it loaded by the bytes read: the same bytes give the same
    Spec (a proof's neighbours, and every spec of `report`, are read in several places), other
    bytes a new one, and every read is recorded for the result cache whether or not it was loaded
    again."""
    from checker import loading
    from checker.spec.load import load_spec

    path = tmp_path / "m8n8k32.yaml"
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), path)
    rec = recording.start()
    first, _ = loading.load(str(path))
    again, _ = loading.load(str(path))
    assert again is first and load_spec(str(path)) is first
    path.write_text(path.read_text().replace("id: C.s32", "id: C.s32x"))
    changed, _ = loading.load(str(path))
    assert changed is not first and changed.fragment("C.s32x") is not None
    reads = {r[-1] for r in rec.stop() if r[0] == "read" and r[1] == str(path)}
    assert len(reads) == 2  # both versions' bytes are recorded
    assert load_spec(str(path), path.read_bytes()) is changed  # the caller's bytes, the same key


def test_a_spec_named_two_ways_is_located_as_named(tmp_path, monkeypatch):
    """The same bytes named by a relative and by an absolute path are two loads: every location
    in a Spec quotes the path it was named by (an errata report matches results by them)."""
    from checker import loading

    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), tmp_path / "m8n8k32.yaml")
    monkeypatch.chdir(tmp_path)
    relative, _ = loading.load("m8n8k32.yaml")
    absolute, _ = loading.load(str(tmp_path / "m8n8k32.yaml"))
    assert relative is not absolute
    assert relative.fragments()[0].span.file == "m8n8k32.yaml"
    assert absolute.fragments()[0].span.file == str(tmp_path / "m8n8k32.yaml")
