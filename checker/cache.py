"""A content-keyed cache of `checker prove` results, so that proving what was proved before, byte
for byte, costs a hash instead of a proof (an editor's save hook, a pre-commit run, `prove specs/`
again after editing a README).

The key is a SHA-256 of everything a result depends on: every input file's path and bytes (and,
for a relations file, every spec beside it, which it reads), the checker's own source, Python, the
installed z3, lark, jsonschema, jsonschema-rs and PyYAML (their files' sizes and times: reinstalling changes
them), and the options. A hit replays the stored results; anything else proves from scratch.

Safety: the cache lives outside the repository (a pull request cannot plant one), runs with a z3
`unknown` are never stored (the process's solver-time budget may have run out on a busy machine), an unreadable or malformed
entry is a miss, and the gate (`.github/workflows/spec-gate.yml`) passes `--no-cache` anyway.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import sys

from checker.results import UNKNOWN, Result

FORMAT = "ptx-fragment-checker/prove-cache/1"
KEEP = 64  # entries; the oldest go first
_FIELDS = {f.name for f in dataclasses.fields(Result)}
_DEPENDENCIES = ("z3", "lark", "jsonschema", "jsonschema_rs", "yaml")


def folder() -> str | None:
    """None when disabled (CHECKER_NO_CACHE=1)."""
    if os.environ.get("CHECKER_NO_CACHE", "") not in ("", "0"):
        return None
    if os.environ.get("CHECKER_CACHE_DIR"):
        return os.environ["CHECKER_CACHE_DIR"]
    from checker.files import user_cache

    return user_cache()


def _file(h, path: str) -> None:
    h.update(path.encode() + b"\0")
    inner = hashlib.sha256()
    with open(path, "rb") as fh:  # in blocks: a hostile spec may be any size (the loader bounds it later)
        for block in iter(lambda: fh.read(1 << 20), b""):
            inner.update(block)
    h.update(inner.digest())


def _environment(h) -> None:
    h.update(sys.version.encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for root, dirs, names in os.walk(here):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith((".py", ".lark", ".json", ".yaml")):
                _file(h, os.path.join(root, n))
    for name in _DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        where = os.path.dirname(spec.origin) if spec and spec.origin else None
        if where is None:
            h.update(f"{name}: missing".encode())
            continue
        for entry in sorted(os.scandir(where), key=lambda e: e.name):
            if entry.is_file():
                st = entry.stat()
                h.update(f"{entry.path} {st.st_size} {st.st_mtime_ns}".encode())
        lib = os.path.join(where, "lib")
        if os.path.isdir(lib):
            for n in sorted(os.listdir(lib)):
                st = os.stat(os.path.join(lib, n))
                h.update(f"{n} {st.st_size} {st.st_mtime_ns}".encode())


def key(files: list, options: dict) -> str | None:
    """None where an input cannot be read: the prover reports that, located."""
    try:
        return _key(files, options)
    except OSError:
        return None


def _key(files: list, options: dict) -> str:
    from checker.files import is_relations_file, under

    h = hashlib.sha256(FORMAT.encode())
    _environment(h)
    h.update(json.dumps(options, sort_keys=True).encode())
    for path in files:
        _file(h, path)
        if is_relations_file(path):
            for beside in under([os.path.dirname(path) or "."], (".yaml", ".yml")):
                _file(h, beside)
    return h.hexdigest()


def load(where: str, k: str) -> list | None:
    try:
        with open(os.path.join(where, f"prove-{k}.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        if doc.get("format") != FORMAT or doc.get("key") != k:
            return None
        results = [Result(**r) for r in doc["results"] if isinstance(r, dict) and set(r) == _FIELDS]
        return results if len(results) == len(doc["results"]) else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def store(where: str, k: str, results: list) -> None:
    if any(r.verdict == UNKNOWN for r in results):
        return
    try:
        text = json.dumps({"format": FORMAT, "key": k, "results": [dataclasses.asdict(r) for r in results]})
        os.makedirs(where, exist_ok=True)
        tmp = os.path.join(where, f".prove-{k}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, os.path.join(where, f"prove-{k}.json"))
        _prune(where)
    except (OSError, TypeError, ValueError):
        pass  # a cache that cannot be written only costs the next run a proof


def _prune(where: str) -> None:
    entries = [e for e in os.scandir(where) if e.name.startswith("prove-") and e.name.endswith(".json")]
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for e in entries[:-KEEP]:
        try:
            os.remove(e.path)
        except OSError:
            pass
