"""Wrong edits of the fields the verbatim check does not cover, run through the gate.

For each file of specs/ (the specs and relations.yaml), every scalar and list that is not a
verbatim field (docs/specs.md lists those: `checker verbatim` covers them) nor a formula (`checker
mutate` covers those) is edited the way a maintainer might get it wrong, one edit per mutant, in the
file's text (so every other line stays where it was):

- an integer +1, -1, 0, doubled; a boolean flipped; an integer inside a string (an erratum's
  `value`, a `for:` bound, a relation's expression) +1 / -1;
- a name swapped for another value the same field has elsewhere in the catalogue (another
  fragment id, type, register kind, reference, `expect`, standing, ...);
- a list item dropped, duplicated, two items swapped; an erratum's `breaks:` gaining a property;
- a key deleted (a `per_register:`, `pairwise:`, a `same_as` entry's field).

Free prose (`erratum:`, `note:`, `notes:`, `basis:`, `statement:`, `says:`, `rests_on`,
`url`) is not edited: nothing can check prose (a relation's `rests_on` figures are held to its
fragments' figures when the relations file loads: tests/unit/test_relations_rests_on.py). Each mutant goes through the gate as CI runs it on
the edited file (`checker validate FILE`, `checker prove FILE --no-cache`, whose scope takes in the
relations and the specs that read it, `checker verbatim FILE --document document/`), in-process
in a scratch copy of specs/. A mutant that passes all three is a survivor; `--confirm` runs each
survivor again through the whole gate over specs/ in a fresh process.

    python benchmarks/field_mutants.py [--only SPEC] [--limit N] [--seed S] [--confirm] [--json OUT]

Not part of the test run (it takes minutes).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

VERBATIM = {"title", "header", "elements_note", "caption", "stated", "printed", "miscellaneous",
            "operand_text", "fragment_cell", "elements_cell", "granularity", "words", "figures"}
PROSE = {"erratum", "note", "notes", "basis", "statement", "says", "rests_on", "url", "closes_it", "$schema"}
FORMULA = {"formula"}


def _key_path(path):
    return [p for p in path if isinstance(p, str)]


def skipped(path) -> str | None:
    """Why a node at `path` is not edited (None: it is)."""
    keys = _key_path(path)
    if not keys:
        return None
    key = keys[-1]
    if key in FORMULA:
        return "formula"
    if key in PROSE or any(k in PROSE for k in keys):
        return "prose"
    if key in VERBATIM:
        return "verbatim"
    if key in ("fragment", "elements") and "table" in keys:
        return "verbatim"
    if key == "title":
        return "verbatim"
    if key in ("schema",) or keys[:1] == ["source"]:
        return "header"
    return None


def walk(node, path=()):
    """(path, node) for every node, mapping keys left out."""
    yield path, node
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield from walk(v, path + (k.value,))
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            yield from walk(v, path + (i,))


def field_kind(path) -> str:
    keys = _key_path(path)
    return ".".join(keys[-2:]) if len(keys) >= 2 and keys[-1] in ("count", "kind", "name", "line", "id", "fragment",
                                                                    "element", "row", "col", "lane") else keys[-1]


def catalogue_values(trees):
    """key -> every plain value that key has in the catalogue."""
    out = {}
    for _, root in trees:
        for path, node in walk(root):
            if isinstance(node, yaml.ScalarNode) and _key_path(path):
                out.setdefault(_key_path(path)[-1], set()).add(node.value)
    return out


def _render(value: str, style) -> str:
    if style in ('"', "'"):
        return json.dumps(value)
    return value if value and not any(c in value for c in ":#{}[],&*!|>'\"%@`") and value.strip() == value else json.dumps(value)


def mutants_of(text, root, values, properties):
    """(kind, description, line, new_text) for every edit of one file."""
    out = []

    def put(a, b, new, kind, desc, line):
        out.append((kind, desc, line, text[:a] + new + text[b:]))

    for path, node in walk(root):
        if not path or skipped(path):
            continue
        kind = field_kind(path)
        line = node.start_mark.line + 1
        a, b = node.start_mark.index, node.end_mark.index
        if isinstance(node, yaml.ScalarNode):
            v = node.value
            if node.tag.endswith(":int") or (node.style is None and v.lstrip("-").isdigit()):
                n = int(v)
                for m in dict.fromkeys([n + 1, n - 1, 0, 2 * n]):
                    if m != n:
                        put(a, b, str(m), kind, f"{v} -> {m}", line)
            elif node.style is None and v in ("true", "false"):
                put(a, b, "false" if v == "true" else "true", kind, f"{v} -> flipped", line)
            else:
                key = path[-1] if isinstance(path[-1], str) else _key_path(path)[-1]
                others = sorted(x for x in values.get(key, ()) if x != v)
                if key == "breaks" or (len(path) >= 2 and _key_path(path)[-1] == "breaks"):
                    others = [p for p in properties if p != v]
                random.Random(zlib.crc32(f"{key}|{v}|{line}".encode())).shuffle(others)
                for o in others[:3]:
                    put(a, b, _render(o, node.style), kind, f"{v!r} -> {o!r}", line)
                # an integer inside a string (a `for:` bound, an expression, an erratum's value)
                import re

                raw = text[a:b]
                for m in list(re.finditer(r"(?<![\w.])\d+(?![\w.])", raw))[:4]:
                    n = int(m.group())
                    for d in (1, -1):
                        if n + d < 0:
                            continue
                        new = raw[:m.start()] + str(n + d) + raw[m.end():]
                        put(a, b, new, kind + " (number)", f"{raw.strip()[:60]!r}: {n} -> {n + d}", line)
        elif isinstance(node, yaml.SequenceNode) and node.value:
            items = node.value
            flow = node.flow_style
            if len(items) >= 2:
                for i in range(len(items)):
                    if i + 1 < len(items):
                        s, e = items[i].start_mark.index, items[i + 1].start_mark.index
                    else:
                        s, e = items[i - 1].end_mark.index, items[i].end_mark.index
                    put(s, e, "", kind + " (list)", f"item {i} dropped", items[i].start_mark.line + 1)
                x, y = items[0], items[1]
                tx, ty = text[x.start_mark.index:x.end_mark.index], text[y.start_mark.index:y.end_mark.index]
                if tx != ty:
                    new = text[:x.start_mark.index] + ty + text[x.end_mark.index:y.start_mark.index] + tx + text[y.end_mark.index:]
                    out.append((kind + " (list)", "items 0 and 1 swapped", x.start_mark.line + 1, new))
            last = items[-1]
            if flow or len(items) >= 2:
                sep = ", " if flow else text[items[-2].end_mark.index:last.start_mark.index] if len(items) >= 2 else None
                if sep is not None:
                    seg = text[last.start_mark.index:last.end_mark.index]
                    put(last.end_mark.index, last.end_mark.index, sep + seg, kind + " (list)", "last item duplicated",
                        last.start_mark.line + 1)
            if _key_path(path)[-1] == "breaks" and flow:
                have = {i.value for i in items if isinstance(i, yaml.ScalarNode)}
                for p in properties:
                    if p not in have:
                        put(last.end_mark.index, last.end_mark.index, ", " + p, "breaks (list)", f"gains {p}",
                            last.start_mark.line + 1)
    # keys deleted: an optional leaf of a mapping
    for path, node in walk(root):
        if not isinstance(node, yaml.MappingNode) or (path and skipped(path)):
            continue
        pairs = node.value
        for j, (k, v) in enumerate(pairs):
            if k.value in ("per_register", "pairwise", "out_of", "kind", "standing", "reference", "expect", "element",
                           "lane", "row", "col", "fragment_element", "versions", "same_as", "sparsity", "for",
                           "params", "computations", "parameters", "family", "type", "matrices", "types"):
                if skipped(path + (k.value,)) or len(pairs) < 2:
                    continue
                s = k.start_mark.index
                if node.flow_style:
                    e = pairs[j + 1][0].start_mark.index if j + 1 < len(pairs) else v.end_mark.index
                    if j + 1 == len(pairs):
                        s = pairs[j - 1][1].end_mark.index
                else:
                    e = v.end_mark.index
                put(s, e, "", k.value + " (key)", f"key {k.value} deleted", k.start_mark.line + 1)
    return out


def gate(folder: str, name: str, document: str) -> tuple:
    """The gate on one edited file, in-process: (exit codes, first error line)."""
    from checker.cli import main

    spec = os.path.join(folder, name)
    codes, first = [], ""
    steps = [["validate", spec], ["prove", spec, "--no-cache"]]
    if name == "untranscribed.yaml":  # no spec: the document's figures no spec transcribes
        steps = [["verbatim", folder, "--document", document]]
    elif name != "relations.yaml":
        steps.append(["verbatim", spec, "--document", document])
    for argv in steps:
        out, err = io.StringIO(), io.StringIO()
        try:
            rc = main(argv, out, err)
        except Exception as exc:  # a crash is a refusal too, but say so
            rc, first = 99, f"crash: {type(exc).__name__}: {exc}"
        codes.append(rc)
        if rc and not first:
            first = next((ln for ln in (err.getvalue() + out.getvalue()).splitlines() if "error" in ln), "")
        if rc:
            break
    return codes, first


def whole_gate(folder: str, document: str) -> list:
    """The whole gate over the folder, as CI runs it, in a fresh process."""
    exe, codes = [sys.executable, "-m", "checker"], []
    env = dict(os.environ, PYTHONPATH=ROOT, CHECKER_NO_CACHE="1")
    for argv in (["validate", folder], ["prove", folder, "--no-cache"], ["verbatim", folder, "--document", document]):
        codes.append(subprocess.run(exe + argv, env=env, capture_output=True, check=False).returncode)
    return codes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--limit", type=int, default=0, help="at most N mutants per file (a seeded sample)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--confirm", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.environ["CHECKER_NO_CACHE"] = "1"
    from checker.properties import PROPERTIES

    src = os.path.join(ROOT, "specs")
    document = os.path.join(ROOT, "document")
    names = sorted(n for n in os.listdir(src) if n.endswith(".yaml"))
    texts = {n: open(os.path.join(src, n), encoding="utf-8").read() for n in names}
    trees = [(n, yaml.compose(texts[n])) for n in names]
    values = catalogue_values(trees)
    # what a `breaks:` may name: the properties, and the words' theorems the errata name
    properties = sorted(set(PROPERTIES) | values.get("breaks", set()) | {"syntax"})
    work = tempfile.mkdtemp()
    folder = os.path.join(work, "specs")
    shutil.copytree(src, folder)
    results, t0 = [], time.perf_counter()
    for name, root in trees:
        if args.only and name not in args.only:
            continue
        ms = mutants_of(texts[name], root, values, properties)
        if args.limit and len(ms) > args.limit:
            ms = random.Random(args.seed).sample(ms, args.limit)
        for kind, desc, line, new in ms:
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(new)
            codes, first = gate(folder, name, document)
            r = {"file": name, "line": line, "kind": kind, "edit": desc, "codes": codes, "refusal": first,
                 "passed": all(c == 0 for c in codes)}
            if r["passed"] and args.confirm:
                r["whole_gate"] = whole_gate(folder, document)
                r["passed"] = all(c == 0 for c in r["whole_gate"])
            results.append(r)
            if r["passed"]:
                print(f"SURVIVOR {name}:{line} [{kind}] {desc}", flush=True)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(texts[name])
        print(f"{name}: {len(ms)} mutants, {sum(r['passed'] for r in results if r['file'] == name)} passed "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    shutil.rmtree(work)
    kinds = {}
    for r in results:
        k = kinds.setdefault(r["kind"], [0, 0])
        k[0] += 1
        k[1] += r["passed"]
    for k, (n, p) in sorted(kinds.items()):
        print(f"{k:40s} {n:5d} run {p:4d} passed")
    print(f"all: {len(results)} mutants, {sum(r['passed'] for r in results)} passed the gate")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
