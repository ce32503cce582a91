"""A content-keyed cache of `checker prove` results, so that proving what was proved before, byte
for byte, costs a hash instead of a proof (an editor's save hook, a pre-commit run, `prove specs/`
again after editing a README).

The key is a SHA-256 of the command's input files (paths and bytes), the checker's own source and
package data, Python, the installed z3, lark, jsonschema, jsonschema-rs and PyYAML (their files'
sizes and times: reinstalling changes them), and the options. An entry also holds what the proof
read (checker/recording.py: every file any process of the proof read through the one reader, with
the SHA-256 of its bytes, and every question about a file that may be missing): a hit needs every
one of those to hold still, so a `same_as` neighbour, a spec a relation names, anything a proof
reads, is covered by construction. A hit replays the stored results; anything else proves from
scratch.

Safety: cache folders are hostile (CI caches are restored from other jobs; another user may
write a shared one). Every entry carries an HMAC-SHA256 of its key and bytes under a per-user
secret kept outside the cache folder (checker/cachekey.py): the key above is the same on every
machine with the same install, so without it a planted entry could turn REFUTED into PROVED. An
entry that does not verify is a miss, and it is checked before anything of the entry is parsed;
without a usable secret no entry is read or written. Nothing in an entry is executed or
unpickled: an entry is JSON, read with a bound from a regular file, and every field of every
result is checked for its type, and the replayed report rendered once in every format, before
it is used: anything malformed, oversized or not a regular file is a miss, never a crash. The
replay check reads each file once, at most recording.MAX_CHECKED bytes in all.
Runs with a z3 `unknown` are never stored (the process's solver-time budget may have run out on a
busy machine), and the gate (`.github/workflows/spec-gate.yml`) passes `--no-cache` anyway.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import importlib.util
import json
import math
import os
import re
import sys

from checker.properties import PROPERTIES
from checker.results import EXIT, PROVED, UNKNOWN, Result

FORMAT = "ptx-fragment-checker/prove-cache/3"
KEEP = 64  # entries; the oldest go first
MAX_ENTRY = 64 << 20  # bytes of one entry file
MAX_RESULTS = 200_000
MAX_INPUT = 1 << 24  # bytes of an input file hashed into the key (the loader refuses far less)
_FIELDS = {f.name for f in dataclasses.fields(Result)}
_DEPENDENCIES = ("z3", "lark", "jsonschema", "jsonschema_rs", "yaml")
_KEY = re.compile(r"[0-9a-f]{64}")


def folder() -> str | None:
    """None when disabled (CHECKER_NO_CACHE=1)."""
    if os.environ.get("CHECKER_NO_CACHE", "") not in ("", "0"):
        return None
    if os.environ.get("CHECKER_CACHE_DIR"):
        return os.environ["CHECKER_CACHE_DIR"]
    from checker.files import user_cache

    return user_cache()


def _file(h, path: str) -> None:
    """A file's path and bytes, read with a bound (checker.bounded): a hostile input is keyed by
    why it cannot be read, and the loader reports that, located."""
    from checker.bounded import fingerprint

    h.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
    h.update(fingerprint(path, MAX_INPUT))


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
    """None where the key cannot be computed: the prover reports what is wrong, located. What the
    proof reads beyond `files` is not in the key: the entry records it (recording.py)."""
    try:
        return _key(files, options)
    except (OSError, TypeError, ValueError):
        return None


def _key(files: list, options: dict) -> str:
    h = hashlib.sha256(FORMAT.encode())
    _environment(h)
    h.update(json.dumps(options, sort_keys=True).encode())
    for path in files:
        _file(h, path)
    return h.hexdigest()


def recording():
    """Start recording what the proof about to run reads (stop() it after: the entry's inputs)."""
    from checker import recording as rec

    return rec.start()


# the type every field of a stored result must have: anything else is a forged or broken entry
_OPT_STR = (str, type(None))


def _number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x) and x >= 0


_CHECKS = {
    "spec": lambda x: isinstance(x, str), "fragment": lambda x: isinstance(x, _OPT_STR),
    "property": lambda x: isinstance(x, str), "verdict": lambda x: isinstance(x, str) and x in EXIT,
    "seconds": _number, "location": lambda x: isinstance(x, _OPT_STR),
    "counterexample": lambda x: x is None or isinstance(x, dict), "erratum": lambda x: type(x) is bool,
    "computation": lambda x: x is None or type(x) is int, "message": lambda x: isinstance(x, str),
    "detail": lambda x: isinstance(x, dict) and _number(x.get("python_seconds", 0.0)),
    "subject": lambda x: isinstance(x, _OPT_STR), "declared": lambda x: type(x) is bool,
}
assert set(_CHECKS) == _FIELDS, "every field of Result is checked"


def _place(x) -> bool:
    """A location as the reports parse it: `file:line:col` with ASCII digits (SARIF turns them into
    numbers), or any other text."""
    if x is None:
        return True
    if not isinstance(x, str):
        return False
    parts = x.rsplit(":", 2)
    return not (len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit()) or (parts[1] + parts[2]).isascii()


_PIECE = ("point", "formula", "piece", "at", "value")


def _counterexample(c) -> bool:
    """The keys of a counterexample that the reports read (the rest is data they only print)."""
    if c is None:
        return True
    pieces = c.get("pieces")
    if pieces and not (isinstance(pieces, list) and all(isinstance(p, dict) and all(k in p for k in _PIECE)
                                                        for p in pieces)):
        return False
    return _place(c.get("relation_at"))


def _result(r) -> Result | None:
    if not isinstance(r, dict) or set(r) != _FIELDS or not all(_CHECKS[k](v) for k, v in r.items()):
        return None
    if not _place(r["location"]) or not _counterexample(r["counterexample"]):
        return None
    return Result(**r)


def _renders(stored: list, results: list) -> bool:
    """Whether the results replay without an error in every format, checked here rather than by
    rendering them (the cache does not depend on a renderer): every string UTF-8 (JSON can carry a
    lone surrogate, which no stream can write), the JSON report, and every proved property of a
    fragment one of PROPERTIES (the text report orders them by it). SARIF and JUnit read nothing
    the field checks above do not cover; tests/unit/test_caches.py renders every forged entry that
    loads, in every format."""
    try:
        json.dumps(stored, ensure_ascii=False).encode("utf-8")
        json.dumps([r.as_json() for r in results])
    except Exception:  # noqa: BLE001 - whatever a forged entry makes a renderer raise: a miss
        return False
    return all(r.property in PROPERTIES for r in results if r.verdict == PROVED and r.subject is None)


def _read_entry(path: str) -> bytes | None:
    """The entry's bytes: a regular file (not a link: entries are written here as files), at most
    MAX_ENTRY bytes; None for anything else."""
    from checker.bounded import read_regular
    from checker.errors import SpecError

    try:
        return read_regular(path, MAX_ENTRY, "cache entry", follow=False)
    except SpecError:
        return None


def _mac(secret: bytes, k: str, body: bytes) -> bytes:
    """The entry's MAC, over the format and the key too: an entry moved to another key's name,
    or kept from another format, does not verify."""
    return hmac.new(secret, FORMAT.encode() + b"\0" + k.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()


def seal(k: str, body: bytes, secret: bytes | None = None) -> bytes | None:
    """An entry file's bytes: its MAC in hex, a newline, the JSON body. None without a secret."""
    from checker import cachekey

    secret = secret or cachekey.secret()
    return None if secret is None else _mac(secret, k, body) + b"\n" + body


def unseal(k: str, raw: bytes, secret: bytes | None = None) -> bytes | None:
    """The JSON body of an entry file whose MAC verifies; None otherwise."""
    from checker import cachekey

    secret = secret or cachekey.secret()
    mac, newline, body = raw.partition(b"\n")
    if secret is None or not newline or not hmac.compare_digest(mac, _mac(secret, k, body)):
        return None
    return body


def load(where: str, k: str) -> list | None:
    """The results stored under `k`, if the entry verifies and every input the proof read still
    holds; None otherwise."""
    from checker import recording as rec

    if not isinstance(k, str) or not _KEY.fullmatch(k):
        return None
    raw = _read_entry(os.path.join(where, f"prove-{k}.json"))
    body = unseal(k, raw) if raw is not None else None
    if body is None:
        return None
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != k:
        return None
    stored = doc.get("results")
    if not isinstance(stored, list) or len(stored) > MAX_RESULTS:
        return None
    results = [_result(r) for r in stored]
    if any(r is None for r in results):
        return None
    try:
        if not rec.still_holds(doc.get("inputs")):
            return None
    except (RecursionError, MemoryError):  # pragma: no cover - bounded above; never a crash
        return None
    return results if _renders(stored, results) else None


def store(where: str, k: str, results: list, inputs: list | None) -> None:
    """Keep `results` under `k`, with the inputs the proof read; not where those are unknown
    (None) or a verdict is unknown."""
    if inputs is None or any(r.verdict == UNKNOWN for r in results):
        return
    tmp = None
    try:
        sealed = seal(k, json.dumps({"format": FORMAT, "key": k, "inputs": inputs,
                                     "results": [dataclasses.asdict(r) for r in results]}).encode("utf-8"))
        if sealed is None:
            return  # no usable secret: an entry nobody can verify is not worth writing
        os.makedirs(where, exist_ok=True)
        tmp = os.path.join(where, f".prove-{k}.{os.getpid()}.tmp")
        # O_EXCL | O_NOFOLLOW: never write through a name someone planted in a shared folder
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(sealed)
        os.replace(tmp, os.path.join(where, f"prove-{k}.json"))
        tmp = None
        _prune(where)
    except (OSError, TypeError, ValueError):
        pass  # a cache that cannot be written only costs the next run a proof
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass


def _prune(where: str) -> None:
    entries = []
    for e in os.scandir(where):
        if e.name.startswith("prove-") and e.name.endswith(".json"):
            try:
                entries.append((e.stat(follow_symlinks=False).st_mtime_ns, e.path))
            except OSError:
                pass
    entries.sort()
    for _, path in entries[:-KEEP]:
        try:
            os.remove(path)
        except OSError:
            pass
