"""Fuzzing the untrusted inputs with hypothesis: random bytes into the YAML loader, random YAML
trees (and real specs with a subtree replaced) into the schema and the meaning checks, random
token strings from and beyond the formula grammar into the parser and the lowering. The only
acceptable outcomes are a loaded spec or a located SpecError: never another exception, and each
example within hypothesis' deadline. Cases hypothesis found are kept below as @example."""
import os

import pytest
import random
import re

import yaml
from hypothesis import HealthCheck, example, given, settings, strategies as st

from conftest import SPECS
from tree_paths import paths as _paths

from checker.errors import SourceSpan, SpecError
from checker.formula.lower import lower
from checker.formula.parser import parse_block
from checker.spec.load import load_spec
from checker.source import plain

FUZZ = settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _load_text(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    try:
        load_spec(str(path))
    except SpecError as exc:
        assert exc.span is None or exc.span.file == str(path)
        assert str(exc)  # a message a person can read


@FUZZ
@given(st.binary(max_size=2048))
@example(b"\xff\xfe")  # not UTF-8
@example(b"a: &x [*x]")  # a self-referencing alias
@example(b"!!python/object:os.system {}")
def test_random_bytes(tmp_path, data):
    _load_text(tmp_path, "m16n8k16.yaml", data)


_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(max_size=30),
                    st.floats(allow_nan=True))
_TREE = st.recursive(_SCALAR, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                     st.dictionaries(st.text(max_size=12), kids, max_size=4)),
                     max_leaves=25)


@FUZZ
@given(_TREE)
def test_random_yaml_trees(tmp_path, tree):
    _load_text(tmp_path, "m8n8k32.yaml", yaml.safe_dump(tree).encode())


_SPEC = yaml.safe_load(open(os.path.join(SPECS, "m8n8k32.yaml")).read())
_SPEC_PATHS = list(_paths(_SPEC))[1:]


@FUZZ
@given(st.sampled_from(_SPEC_PATHS), _TREE)
@example(("sections", 0, "fragments", 0, "table", 0, "registers", "count"), 10**30)
@example(("sections", 0, "fragments", 0, "formula"), "row = " + "(" * 200 + "1" + ")" * 200)
def test_real_spec_with_a_subtree_replaced(tmp_path, path, tree):
    import copy

    doc = copy.deepcopy(_SPEC)
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = tree
    _load_text(tmp_path, "m8n8k32.yaml", yaml.safe_dump(doc).encode())


TOKENS = ["%laneid", "i", "groupID", "threadID_in_group", "row", "col", "=", "==", "!=", "<", "<=", ">", ">=",
          "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "!", "(", ")", "{", "}", ",", "..",
          "0", "1", "4", "8", "0x1F", "0b10", "99999999999", "for", "ai", "a0", "and", "where", "if",
          "otherwise", "Otherwise", "\n", "  ", "i = {0,..,3}", "foo(", ".x", "__import__", "'", '"', "\t", "é"]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.randoms(use_true_random=False))
@example(["row", "=", "(" * 60, "i"], random.Random(0))
@example(["row", "=", "i", ">>", "99999999999", "\n", "col", "=", "i"], random.Random(0))
def test_random_formulas(tokens, rnd):
    text = " ".join(tokens)
    if rnd.random() < 0.5:  # most real formulas have both assignments
        text = "row = " + text + "\ncol = i\n"
    src = plain(text, SourceSpan("f.yaml", 3, 5))
    try:
        layout = lower(parse_block(src), src, "a")
    except SpecError as exc:
        assert exc.span is not None and exc.span.file == "f.yaml"
        return
    assert layout.row is not None and layout.col is not None


# The structure check: jsonschema-rs decides (fast), jsonschema explains, with one keyword changed:
# `pattern` reads a final `$` as JSON Schema (ECMA-262) does, the end of the string, where Python's
# `$` also matches before a final newline. The two must agree on every value; against jsonschema's
# stock validator the explainer may only reject more, and only values with a string ending in a
# newline.
def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _agree(value, schema="spec.schema.json", package="checker.spec"):
    """Never passes what the stock validator rejects; rejects what it passes only for a string
    ending in a newline."""
    from jsonschema import Draft202012Validator

    from checker.spec import validation

    if not isinstance(value, dict):
        return None
    ours = not any(True for _ in validation.validator(schema, package).iter_errors(value))
    stock = Draft202012Validator(validation.schema(schema, package)).is_valid(value)
    assert ours == stock or (not ours and any(s.endswith("\n") for s in _strings(value))), value
    # the gate (jsonschema-rs) and the explainer agree
    assert validation.valid(value, schema, package) == ours, value
    return ours


@FUZZ
@given(_TREE)
def test_the_structure_check_is_json_schemas_on_random_trees(tree):
    _agree(tree if isinstance(tree, dict) else {"shape": tree})


@FUZZ
@given(st.sampled_from(_SPEC_PATHS), _TREE)
@example(("sections", 0, "fragments", 0, "id"), "C.s32\n")
@example(("shape",), "m8n8k32 ")
def test_the_structure_check_is_json_schemas_on_real_specs_with_a_subtree_replaced(path, tree):
    import copy

    doc = copy.deepcopy(_SPEC)
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = tree
    _agree(doc)


def test_the_structure_check_is_json_schemas_on_every_spec_and_bad_case():
    import glob

    from conftest import CASES
    from checker.errors import CheckerError
    from checker.spec import yamlload

    seen = {True: 0, False: 0}
    files = sorted(glob.glob(os.path.join(SPECS, "*.yaml"))) + sorted(glob.glob(os.path.join(CASES, "**", "*.yaml"), recursive=True))
    for path in files:
        try:
            doc = yamlload.load(path)
        except CheckerError:
            continue
        schema = "relations.schema.json" if os.path.basename(path) == "relations.yaml" else "spec.schema.json"
        if isinstance(doc.value, dict):
            seen[_agree(doc.value, schema)] += 1
    assert seen[True] > 20 and seen[False] > 10, seen  # both verdicts are among the compared files


# The probe's three dump formats, each schema-checked the same two ways (checker/probe/dump.py):
# a committed dump of each, with one subtree replaced.
def _committed_dumps() -> dict:
    import gzip
    import json

    where = os.path.join(os.path.dirname(SPECS), "reports", "synthetic")
    picks = {"m8n8k4.row.col.f64.f64.f64.f64.dump.json.gz": "dump.schema.json",
             "m64n8k32.sp.f32.f16.f16.a_registers.wgmma.json.gz": "wgmma-dump.schema.json",
             "ldmatrix.m8n16.x2.b8x16.b4x16_p64.movement.json.gz": "movement-dump.schema.json",
             "ldmatrix-x4-x2.trans-into-mma.m16n8k16.movement.json.gz": "movement-dump.schema.json"}
    out = {}
    for name, schema in picks.items():
        with gzip.open(os.path.join(where, name), "rt") as fh:
            out[name] = (schema, json.load(fh))
    return out


_DUMPS = _committed_dumps()
_DUMP_PATHS = [(name, path) for name, (_, doc) in _DUMPS.items() for path in list(_paths(doc))[1:]]


def test_the_dump_schemas_are_json_schema_and_pass_what_the_probe_writes():
    from jsonschema import Draft202012Validator

    from checker.spec import validation

    for name, (schema, doc) in _DUMPS.items():
        Draft202012Validator.check_schema(validation.schema(schema, "checker.probe"))
        assert _agree(doc, schema, "checker.probe") is True, name


@FUZZ
@given(st.sampled_from(_DUMP_PATHS), _TREE)
@example(("ldmatrix.m8n16.x2.b8x16.b4x16_p64.movement.json.gz", ("family",)), "stmatrix")
@example(("ldmatrix.m8n16.x2.b8x16.b4x16_p64.movement.json.gz", ("blocks", 0, "kind")), "row-code#0\n")
def test_the_dump_schemas_are_decided_alike_by_both_validators(where, tree):
    import copy

    name, path = where
    schema, doc = _DUMPS[name]
    doc = copy.deepcopy(doc)
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = tree
    _agree(doc, schema, "checker.probe")


# Hostile dumps end the same way as hostile specs: every committed dump, mutated a few times
# (a hostile value, a key dropped, an array's base64 cut or altered, a number moved, a value taken
# from another dump at the same place), then crosschecked in process: exit 0, 1 or 3, a located
# message whenever it is not 0, never a traceback.
_HOSTILE = [0, -1, 1, 31, 32, 33, 255, 256, 2**31, 2**63, 10**30, 1.5, 1.0, 32.0, None, True, "", "x" * 3000, "\u202e",
            [], {}, [0], [4, 32], [2**40, 2], "AAAA", "!!!!", "../../etc/passwd", "/dev/zero", "hardware"]


def _mutated_dump(rng, trees: dict, name: str):
    import copy

    doc = copy.deepcopy(trees[name])
    for _ in range(rng.randint(1, 3)):
        path = rng.choice([p for p in _paths(doc) if p][:400])
        parent, key = doc, path[-1]
        for k in path[:-1]:
            parent = parent[k]
        value, op = parent[key], rng.random()
        if op < 0.35:
            parent[key] = copy.deepcopy(rng.choice(_HOSTILE))
        elif op < 0.5 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.65 and isinstance(value, str) and len(value) > 8:
            at = rng.randrange(len(value))
            parent[key] = value[:at] if rng.random() < 0.5 else value[:at] + rng.choice("A/+=9z-_!") + value[at + 1:]
        elif op < 0.8 and type(value) is int:
            parent[key] = rng.choice([value - 1, value + 1, value + 7, -value, 2 * value, float(value)])
        else:
            other = trees[rng.choice(sorted(trees))]
            try:
                for k in path:
                    other = other[k]
                parent[key] = copy.deepcopy(other)
            except (KeyError, IndexError, TypeError):
                parent[key] = copy.deepcopy(rng.choice(_HOSTILE))
    return doc


def test_mutated_dumps_end_in_a_located_verdict_never_a_traceback(run, tmp_path):
    import gzip
    import json

    where = os.path.join(os.path.dirname(SPECS), "reports", "synthetic")
    trees = {}
    for name in sorted(os.listdir(where)):
        if name.endswith(".json.gz"):
            with gzip.open(os.path.join(where, name), "rt") as fh:
                trees[name] = json.load(fh)
    seen = set()
    for k in range(80):
        rng = random.Random(f"dumps:{k}")
        name = rng.choice(sorted(trees))
        doc = _mutated_dump(rng, trees, name)
        spec = trees[name]["spec"]
        spec = spec["file"] if isinstance(spec, dict) else spec
        folder = tmp_path / str(k)
        folder.mkdir()
        with gzip.open(folder / name, "wt") as fh:
            json.dump(doc, fh)
        r = run("crosscheck", os.path.join(os.path.dirname(SPECS), spec), "--dumps", str(folder))
        assert r.code in (0, 1, 3) and "Traceback" not in r.out + r.err, (k, r.out + r.err)
        if r.code:
            assert f"{folder / name}:1:1: error" in r.out, (k, r.out)
        seen.add(r.code)
    assert {0, 3} <= seen, seen  # the mutations reach both ends: refused, and harmless (a label changed)


def test_a_final_newline_does_not_pass_a_pattern(tmp_path):
    from checker.errors import SpecError
    from checker.spec import structure, yamlload

    text = open(os.path.join(SPECS, "m8n8k32.yaml"), encoding="utf-8").read()
    assert "shape: m8n8k32\n" in text
    bad = text.replace("shape: m8n8k32\n", 'shape: "m8n8k32\\n"\n', 1).encode()
    doc = yamlload.load(str(tmp_path / "m8n8k32.yaml"), bad)
    assert doc.value["shape"] == "m8n8k32\n"
    with pytest.raises(SpecError, match="does not match") as exc:
        structure.check_structure(doc)
    assert exc.value.span.line == text[:text.index("shape: m8n8k32")].count("\n") + 1


# The mutational corpus: real specs and relations files, mutated by a seeded fuzzer
# (tests/unit/fuzz_driver.py) as bytes and as YAML trees, run through `checker validate` and,
# where that passes, `checker prove`, in two child processes with 2 GiB of address space each.
# Every case must end with exit 0, 1 or 3 and a message (a located one for 3), within seconds;
# a traceback, another exit code, a crash of the child or a hang names the case, which
# `python tests/unit/fuzz_driver.py SEED K 1 DIR` makes again on its own. FUZZ_SEED and
# FUZZ_CASES run a longer campaign locally.
FUZZ_SEED = os.environ.get("FUZZ_SEED", "ci-1")
FUZZ_CASES = int(os.environ.get("FUZZ_CASES", "400"))
FUZZ_WALL_S = 150  # for the whole campaign; it takes about 30 s on 2 cores
CASE_S = 10


def _campaign(tmp_path, seed: str, cases: int, children: int = 2, proves: int = 15) -> list:
    import json
    import subprocess
    import sys
    import time

    from conftest import ROOT

    driver = os.path.join(ROOT, "tests", "unit", "fuzz_driver.py")
    share = -(-cases // children)
    procs = []
    for c in range(children):
        out = tmp_path / f"child-{c}"
        out.mkdir()
        procs.append((subprocess.Popen([sys.executable, driver, seed, str(c * share), str(share), str(out), str(proves)],
                                       stdout=open(tmp_path / f"child-{c}.jsonl", "w"),
                                       stderr=open(tmp_path / f"child-{c}.err", "w"), cwd=ROOT), c))
    deadline = time.monotonic() + FUZZ_WALL_S
    for proc, _ in procs:
        try:
            proc.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    rows = []
    for proc, c in procs:
        lines = [json.loads(ln) for ln in open(tmp_path / f"child-{c}.jsonl") if ln.strip()]
        started = [r for r in lines if "start" in r]
        finished = {r["case"] for r in lines if "case" in r}
        hung = [r for r in started if r["start"] not in finished]
        stderr = open(tmp_path / f"child-{c}.err").read()[-2000:]
        assert not hung, (f"case {hung[0]['start']} ({hung[0]['kind']}, {hung[0]['path']}) did not finish: "
                          f"the child {'was killed after {} s'.format(FUZZ_WALL_S) if proc.returncode == -9 else 'died with status ' + str(proc.returncode)}; "
                          f"make it again with: python tests/unit/fuzz_driver.py {seed} {hung[0]['start']} 1 DIR\n{stderr}")
        assert proc.returncode == 0 and len(started) == share, (proc.returncode, len(started), stderr)
        rows.extend(r for r in lines if "case" in r)
    return rows


def _judge(row) -> list:
    problems = []
    for command, r in row["results"].items():
        what = f"case {row['case']} ({row['kind']}, {row['path']}) {command}"
        if r["escaped"] or "Traceback" in r["text"]:
            problems.append(f"{what}: an exception escaped:\n{r['escaped'] or r['text']}")
        elif r["code"] not in (0, 1, 3):
            problems.append(f"{what}: exit {r['code']}:\n{r['text']}")
        elif not r["text"].strip():
            problems.append(f"{what}: exit {r['code']} without a message")
        elif r["code"] == 3 and not re.search(r"^\S+:\d+:\d+: error: ", r["text"], re.M):
            problems.append(f"{what}: exit 3 without a located message:\n{r['text']}")
        if r["seconds"] > CASE_S:
            problems.append(f"{what}: took {r['seconds']} s")
        if r["longest_line"] > 1000:
            problems.append(f"{what}: a message line of {r['longest_line']} characters (an input echoed whole?)")
    return problems


def test_mutational_corpus(tmp_path):
    rows = _campaign(tmp_path, FUZZ_SEED, FUZZ_CASES)
    problems = [p for row in rows for p in _judge(row)]
    assert not problems, f"{len(problems)} problems; the first:\n" + "\n\n".join(problems[:3])
    kinds = {row["kind"] for row in rows}
    assert kinds == {"spec-bytes", "spec-tree", "relations-bytes", "relations-tree"}, kinds
    codes = {r["code"] for row in rows for r in row["results"].values()}
    assert {0, 3} <= codes, codes  # the mutations reach both a loaded spec and a refused one
