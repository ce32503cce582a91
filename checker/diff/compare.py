"""Two versions of spec files -> what changed: per fragment, the entries that move; fragments
added or removed; every property whose verdict changes (both versions are proved)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

from checker.diff.entries import compare
from checker.errors import SpecError, UsageError
from checker.prover import Options, prove_paths
from checker.spec.load import load_spec
from checker.spec.reading import materialize

GIT_TIMEOUT_S = 30


@dataclass
class SpecDiff:
    path: str  # the new file's path (the old one's where the file is removed)
    status: str  # modified | added | removed | unchanged
    fragments: list = field(default_factory=list)  # FragmentDiff, changed ones only
    added: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)  # (what, old verdict or None, new verdict or None)
    errors: list = field(default_factory=list)  # a version that does not load: its message

    @property
    def worse(self) -> bool:
        return self.status != "removed" and (bool(self.errors) or any(
            new is not None and new != "PROVED" and old in ("PROVED", None) for _, old, new in self.verdicts))


def _key(r) -> str:
    where = r.fragment or r.subject or "spec"
    comp = f" (computation {r.computation})" if r.computation else ""
    return f"{where} {r.property}{comp}"


def _verdict(r) -> str:
    if r.erratum:
        return "ERRATUM-CONFIRMED"
    if r.declared:
        return "REFUTED-AS-DECLARED"
    return r.verdict


def _verdicts(path) -> dict:
    if path is None:
        return {}
    return {_key(r): _verdict(r) for r in prove_paths([path], Options(jobs=1))}


def _readings(spec) -> dict:
    out = {}
    for f in spec.fragments():
        try:
            out[f.id] = (f, materialize(f))
        except SpecError:
            out[f.id] = (f, None)
    return out


def diff_files(old: str | None, new: str | None, label: str) -> SpecDiff:
    status = "added" if old is None else "removed" if new is None else "modified"
    d = SpecDiff(label, status)
    specs = {}
    for name, path in (("old", old), ("new", new)):
        if path is None:
            continue
        try:
            specs[name] = load_spec(path)
        except SpecError as exc:
            d.errors.append(f"{name} version: {exc}")
    if "old" in specs and "new" in specs:
        a, b = _readings(specs["old"]), _readings(specs["new"])
        d.added = [f for f in b if f not in a]
        d.removed = [f for f in a if f not in b]
        for fid in (f for f in b if f in a):
            fd = compare(fid, b[fid][0].letter, a[fid][1], b[fid][1], a[fid][0], b[fid][0])
            if fd.changed:
                d.fragments.append(fd)
    elif "new" in specs:
        d.added = [f.id for f in specs["new"].fragments()]
    elif "old" in specs:
        d.removed = [f.id for f in specs["old"].fragments()]
    va, vb = _verdicts(old), _verdicts(new)
    for k in sorted(set(va) | set(vb)):
        if va.get(k) != vb.get(k):
            d.verdicts.append((k, va.get(k), vb.get(k)))
    if not (d.fragments or d.added or d.removed or d.verdicts or d.errors) and status == "modified":
        d.status = "unchanged"
    return d


def _git(args, cwd) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UsageError("--base needs git on PATH") from None
    if proc.returncode != 0:
        raise UsageError(f"git {' '.join(args)}: {proc.stderr.strip()[:300]}")
    return proc.stdout


def diff_base(rev: str, paths: list, spec_files) -> list:
    """Each spec file under `paths` against its version at git revision `rev`."""
    if rev.startswith("-"):
        raise UsageError(f"--base takes a revision, not {rev!r}")
    top = _git(["rev-parse", "--show-toplevel"], os.getcwd()).strip()
    _git(["rev-parse", "--verify", "--quiet", rev + "^{commit}"], top)
    now = {os.path.relpath(os.path.abspath(p), top).replace(os.sep, "/"): p for p in spec_files(paths)}
    prefixes = [os.path.relpath(os.path.abspath(p), top).replace(os.sep, "/") for p in paths]
    then = [f for f in _git(["ls-tree", "-r", "--name-only", rev, "--", *prefixes], top).splitlines()
            if f.endswith((".yaml", ".yml"))]
    out = []
    tmp = tempfile.mkdtemp(prefix="checker-diff-")
    try:
        for rel in sorted(set(now) | set(then)):
            old = None
            if rel in then:
                old = os.path.join(tmp, rev.replace("/", "_"), rel)
                os.makedirs(os.path.dirname(old), exist_ok=True)
                with open(old, "w") as fh:
                    fh.write(_git(["show", f"{rev}:{rel}"], top))
            new = now.get(rel)
            if _is_relations(new or old):
                continue
            if old and new and _same(old, new):
                continue
            out.append(diff_files(old, new, new or rel))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _same(a: str, b: str) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def _is_relations(path) -> bool:
    from checker.files import is_relations_file

    return is_relations_file(path)
