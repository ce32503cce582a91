"""A seeded mutational fuzzer over the inputs a pull request controls: spec bytes, spec YAML trees
and relations files, each case built from a real file of specs/ by a few random mutations, then
run through the command line (`checker validate`; `checker prove` where that passes) inside this
child process, whose address space is bounded. One JSON line per case on stdout, flushed, and a
"start" line before it, so the parent knows which case a hang or a crash belongs to.

    python tests/unit/fuzz_driver.py SEED FIRST COUNT OUTDIR [MAX_PROVES]

Case k is made by random.Random(f"{SEED}:{k}") alone: any case can be made again on its own.
"""
import copy
import io
import json
import os
import random
import resource
import sys
import time
import traceback

MEMORY = 2 << 30
resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
sys.setrecursionlimit(1000)
os.environ["CHECKER_NO_CACHE"] = "1"

import yaml  # noqa: E402

from checker.cli import main  # noqa: E402
from tree_paths import paths as _paths  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPECS = os.path.join(ROOT, "specs")
SPEC_NAMES = sorted(n for n in os.listdir(SPECS) if n.endswith(".yaml") and n not in ("relations.yaml", "untranscribed.yaml"))
TEXTS = {n: open(os.path.join(SPECS, n), "rb").read() for n in SPEC_NAMES + ["relations.yaml"]}
TREES = {n: yaml.safe_load(t) for n, t in TEXTS.items()}

HOSTILE_INTS = [0, -1, 1, 2, 3, 4, 7, 8, 31, 32, 33, 64, 255, 256, 1024, 4096, 4097, 65536, 2**31, 2**63, 10**30]
HOSTILE_FLOATS = [4.0, 0.0, 1.0, 2.5, -0.0, 1e300, float("inf"), float("nan")]
HOSTILE_STRINGS = [
    "", " ", "x" * 5000, "\t", "é", "\u202e", "a0, a1, …, a4095", "c0, c1, ..., c1000, c1001, …, c2000",
    ", ".join(f"a{k * 100}, a{k * 100 + 1}, …, a{k * 100 + 99}" for k in range(60)),
    "b0, b1. b2. b3", "a0, a1, … a30, a31", "row = %laneid >> 99999\ncol = i\n", "row = " + "(" * 100 + "i" + ")" * 100,
    "row = i\ncol = i for ai where i = {0,..,99999999}\n", "row = __import__('os')\ncol = i\n",
    "groupID = %laneid >> 2\nrow = groupID\ncol = i % 99999999999999999999\n", "m16n8k16/A.f16", "m9999n1k1/X",
    "ptx-fragment-checker/1", "ptx-fragment-checker/relations/1", "holds", "refuted", "2:4", "1:1", "0:4",
    ".atype", "b32", "f16x2", "9.7.14.5.8", "Figure 1", "A", "B", "C", "D",
]
HOSTILE_TOKENS = [b"[" * 200, b"- " * 300, b"{" * 80, b"&a ", b"*a", b"!!python/object:os.system ", b"!!binary ",
                  b"<<: ", b"\t", b"\x00", b"\xff", b"\xe2\x80", b"\xe2\x80\xa6", b"4.0", b"1e999", b".nan", b"-1",
                  b"99999999999999999999999", b"true", b"~", b"'", b'"', b"\\", b":", b": ", b"#", b"\n---\n",
                  b"\n...\n", b"? ", b"|", b">", b"%YAML 1.1\n", b"!<tag:yaml.org,2002:int> ", b"0x", b"0o7", b"1_000",
                  b"\r", b"\r\n", b"\xef\xbb\xbf", b"a0, a1, \xe2\x80\xa6, a99999", b"%laneid", b"otherwise",
                  b"for ai where"]


def _value(rnd: random.Random, depth: int = 0):
    pick = rnd.random()
    if pick < 0.25:
        return rnd.choice(HOSTILE_INTS)
    if pick < 0.35:
        return rnd.choice(HOSTILE_FLOATS)
    if pick < 0.40:
        return rnd.choice([True, False, None])
    if pick < 0.70 or depth > 3:
        return rnd.choice(HOSTILE_STRINGS)
    if pick < 0.80:
        return [_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    if pick < 0.85:
        return [rnd.choice(HOSTILE_INTS)] * rnd.choice([2, 100, 3000])
    if pick < 0.90:
        node = x = []
        for _ in range(rnd.choice([5, 30, 40])):
            x.append([])
            x = x[0]
        return node
    return {rnd.choice(["id", "x", "lanes", "for", "count", "k" * 300]): _value(rnd, depth + 1)
            for _ in range(rnd.randrange(3))}


def _mutate_tree(rnd: random.Random, tree):
    tree = copy.deepcopy(tree)
    for _ in range(rnd.choice([1, 1, 2, 3])):
        paths = list(_paths(tree))[1:]
        if not paths:
            break
        path = rnd.choice(paths)
        parent = tree
        for k in path[:-1]:
            parent = parent[k]
        key, op = path[-1], rnd.random()
        if op < 0.3 and isinstance(parent[key], (int, str)):  # a leaf of the same type: past the schema more often
            if isinstance(parent[key], int):
                parent[key] = rnd.choice(HOSTILE_INTS + HOSTILE_FLOATS[:3])
            else:
                parent[key] = rnd.choice(HOSTILE_STRINGS + [parent[key] * rnd.choice([2, 50])])
        elif op < 0.6:
            parent[key] = _value(rnd)
        elif op < 0.75:
            del parent[key]
        elif op < 0.85 and isinstance(parent, list):
            parent.extend([copy.deepcopy(parent[key])] * rnd.choice([1, 5, 40]))
        elif op < 0.92 and isinstance(parent, dict):
            parent[rnd.choice(["colour", "k" * 2000, "for", "lanes", "per_register", "out_of"])] = _value(rnd)
        else:  # swap with another subtree of the same file
            other = rnd.choice(paths)
            node = tree
            for k in other:
                node = node[k]
            parent[key] = copy.deepcopy(node)
    return tree


def _mutate_bytes(rnd: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rnd.choice([1, 1, 2, 4, 8])):
        op, at = rnd.random(), rnd.randrange(len(data) + 1)
        if op < 0.35:
            data[at:at] = rnd.choice(HOSTILE_TOKENS)
        elif op < 0.55 and data:
            del data[at:at + rnd.choice([1, 1, 5, 40, 400])]
        elif op < 0.7 and data:
            data[min(at, len(data) - 1)] = rnd.randrange(256)
        elif op < 0.85:  # a number in the text replaced
            digits = [k for k in range(len(data)) if 48 <= data[k] <= 57]
            if digits:
                k = rnd.choice(digits)
                data[k:k + 1] = rnd.choice([b"4.0", b"0.0", b"1e3", b"-1", b"99999999", b"4096", b".inf", b"true"])
        else:  # a line repeated
            lines = bytes(data).split(b"\n")
            k = rnd.randrange(len(lines))
            lines[k:k + 1] = [lines[k]] * rnd.choice([2, 10, 200])
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def _relations_subset(rnd: random.Random) -> dict:
    tree = copy.deepcopy(TREES["relations.yaml"])
    tree["relations"] = rnd.sample(tree["relations"], rnd.choice([1, 1, 2]))
    return tree


def make_case(seed: str, k: int) -> tuple:
    """(kind, {file name: bytes}, the file to check)."""
    rnd = random.Random(f"{seed}:{k}")
    pick = rnd.random()
    if pick < 0.2:  # relations: a few of the real ones, mutated, with the specs they name beside
        tree = _relations_subset(rnd)
        shapes = {r[s]["fragment"].split("/")[0] for r in tree["relations"] for s in ("left", "right")}
        if rnd.random() < 0.6:
            data = yaml.safe_dump(_mutate_tree(rnd, tree), allow_unicode=True).encode()
            kind = "relations-tree"
        else:
            data = _mutate_bytes(rnd, yaml.safe_dump(tree, allow_unicode=True).encode())
            kind = "relations-bytes"
        files = {f"{s}.yaml": TEXTS[f"{s}.yaml"] for s in shapes}
        files["relations.yaml"] = data
        return kind, files, "relations.yaml"
    name = rnd.choice(SPEC_NAMES)
    if pick < 0.6:
        return "spec-tree", {name: yaml.safe_dump(_mutate_tree(rnd, TREES[name]), allow_unicode=True).encode()}, name
    return "spec-bytes", {name: _mutate_bytes(rnd, TEXTS[name])}, name


def _run(argv) -> dict:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    try:
        code, escaped = main(argv, out, err), None
    except BaseException:  # noqa: BLE001 - every escape is a failure the parent reports
        code, escaped = None, traceback.format_exc()[-3000:]
    text = out.getvalue() + err.getvalue()
    return {"code": code, "escaped": escaped, "seconds": round(time.perf_counter() - t0, 3),
            "text": text[-2000:], "longest_line": max((len(ln) for ln in text.splitlines()), default=0)}


def main_(seed: str, first: int, count: int, outdir: str, max_proves: int) -> None:
    proves = 0
    for k in range(first, first + count):
        kind, files, target = make_case(seed, k)
        folder = os.path.join(outdir, f"case-{k}")
        os.makedirs(folder)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as fh:
                fh.write(data)
        path = os.path.join(folder, target)
        print(json.dumps({"start": k, "kind": kind, "path": path}), flush=True)
        results = {"validate": _run(["validate", path])}
        if results["validate"]["code"] == 0 and proves < max_proves:
            proves += 1
            results["prove"] = _run(["prove", path])
        print(json.dumps({"case": k, "kind": kind, "path": path, "results": results}), flush=True)


if __name__ == "__main__":
    seed, first, count, outdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    main_(seed, first, count, outdir, int(sys.argv[5]) if len(sys.argv) > 5 else 1 << 30)
