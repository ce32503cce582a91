"""Two versions of spec files -> what changed: per fragment, the entries that move; fragments
added or removed; every property whose verdict changes (both versions are proved)."""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field

from checker import temps
from checker.diff.entries import compare
from checker.files import is_relations_file, is_untranscribed_file
from checker.bounded import GitError, run_bounded, same_bytes, shown
from checker.errors import SourceSpan, SpecError, UsageError
from checker.prover import Options, prove_paths
from checker.spec.checked import load_checked
from checker.spec.reading import materialize
from checker.spec.yamlload import MAX_BYTES

GIT_TIMEOUT_S = 30
GIT_LISTING_MAX = 16 << 20  # bytes of a git listing (ls-tree, rev-parse); a spec itself: MAX_BYTES


@dataclass
class SpecDiff:
    path: str  # the new file's path (the old one's where the file is removed)
    status: str  # modified | added | removed | unchanged
    fragments: list = field(default_factory=list)  # FragmentDiff, changed ones only
    added: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)  # (what, old verdict or None, new verdict or None)
    errors: list = field(default_factory=list)  # a version that does not load: its message
    # the new version's, as validate says them: file:line:col first (exit 3). An old version that
    # does not load is listed in `errors` but fails nothing: an edit that mends a broken spec must pass
    refused: list = field(default_factory=list)
    why: dict = field(default_factory=dict)  # what -> (location, message, replay) of a verdict not good now
    related: list = field(default_factory=list)  # SpecDiff of the scope's other files whose verdicts changed
    changes: list = field(default_factory=list)  # what a section says beyond its fragments: "same as" targets
    by: list = field(default_factory=list)  # status "affected": the edited files whose scope it is in

    @property
    def worse(self) -> bool:
        return self.status != "removed" and (bool(self.refused) or any(
            new is not None and new not in GOOD and (old is None or old in GOOD) for _, old, new in self.verdicts))


# verdicts that pass: a confirmed erratum and a refutation the spec declares are what the spec says
GOOD = ("PROVED", "ERRATUM-CONFIRMED", "REFUTED-AS-DECLARED")


def _key(r) -> str:
    where = r.fragment or r.subject or "spec"
    comp = f" (computation {r.computation})" if r.computation else ""
    # an erratum's verdict is about the printed text, the same property's about the reading: one
    # key for both let the erratum's hide the reading's (m16n8k256 A.b1 covers refuted, unseen)
    return f"{where} {r.property}{comp}" + (" as printed" if r.erratum else "")


def _verdict(r) -> str:
    if r.erratum:
        return "ERRATUM-CONFIRMED"
    if r.declared:
        return "REFUTED-AS-DECLARED"
    return r.verdict


def _verdicts(path, jobs: int = 1) -> dict:
    """file name -> {what: (verdict, result)} over the scope of `path` (checker/scope.py): its own
    verdicts and those of the relations and specs that depend on it or it on them. A scope lies
    in one folder, so a file's name says which file it is in either version."""
    if path is None:
        return {}
    from checker.scope import widen

    return _verdicts_of(widen([path]).files, jobs)


def _survivors(old: str, folder: str) -> list:
    """The other files of a removed file's scope (at its old version) as they stand in `folder`
    now (folder "": the working folder), each relations file restricted to the same shapes: what
    the removal may break."""
    from checker.scope import Relations, widen

    out = []
    for f in widen([old]).files:
        now = os.path.join(folder, os.path.basename(f))
        if os.path.abspath(f) != os.path.abspath(old) and os.path.isfile(now):
            out.append(Relations(now, f.shapes, f.focus) if isinstance(f, Relations) else now)
    return out


def _verdicts_of(files: list, jobs: int = 1) -> dict:
    out: dict = {}
    for r in prove_paths(files, Options(jobs=jobs)) if files else ():
        mine = out.setdefault(os.path.basename(r.spec), {})
        key, n = _key(r), 1
        while key in mine:  # two sentences or rows of one subject: numbered in the results' order
            n += 1
            key = f"{_key(r)} #{n}"
        mine[key] = (_verdict(r), r)
    return out


def _changes(va: dict, vb: dict, d: SpecDiff) -> None:
    for k in sorted(set(va) | set(vb)):
        o, n = (va.get(k) or (None, None))[0], (vb.get(k) or (None, None))[0]
        if o != n:
            d.verdicts.append((k, o, n))
            r = (vb.get(k) or (None, None))[1]
            if n is not None and n not in GOOD and r is not None:
                why = r.message
                cex = r.counterexample or {}
                if cex.get("relation_at"):
                    why += f" (declared at {cex['relation_at']})"
                d.why[k] = (r.location, why, cex.get("replay"))


def same_as_changes(old, new) -> list:
    """Each "same as" sentence whose fragments the edit changes, by section and operands: a
    changed target moves no entry of this spec, yet it is what mma.sp's B and C/D are."""
    def sentences(spec):
        return {(sec.section, "/".join(x.operands)): x.fragments for sec in spec.sections for x in sec.same_as}

    a, b = sentences(old), sentences(new)
    out = []
    for key in sorted(set(a) | set(b)):
        was, now = a.get(key), b.get(key)
        if was != now:
            out.append(f"same_as of {key[0]} {key[1]}: {', '.join(was) if was else '(none)'} -> "
                       f"{', '.join(now) if now else '(none)'}")
    return out


def _readings(spec) -> dict:
    out = {}
    for f in spec.fragments():
        try:
            out[f.id] = (f, materialize(f))
        except SpecError:
            out[f.id] = (f, None)
    return out


def _checked(path: str):
    """The spec at `path` through validate's gate, or None for a relations file once its loader
    accepts it: entries are computed from a version only where validate would accept it (a
    fragment it refuses is otherwise read as no map, and the diff says it moved nowhere)."""
    if is_relations_file(path):
        from checker.theorems.relations import load_relations

        load_relations(path)
        return None
    return load_checked(path)


def diff_files(old: str | None, new: str | None, label: str, old_label: str | None = None,
               old_error: SpecError | None = None, jobs: int = 1, folder: str | None = None) -> SpecDiff:
    """`old_label`: how to name the old file in messages (`REV:path` for a file from git history,
    which sits in a temporary folder); `old_error`: why the old version could not be read;
    `folder`: where a removed file stood, whose other files of its scope are proved as they are now."""
    status = "added" if old is None and old_error is None else "removed" if new is None else "modified"
    d = SpecDiff(label, status)
    specs = {}
    if old_error is not None:
        d.errors.append(f"old version: {old_error}")
    for name, path in (("old", old), ("new", new)):
        if path is None:
            continue
        try:
            spec = _checked(path)
        except SpecError as exc:
            message = str(exc)
            if name == "old" and old_label:
                message = message.replace(path, old_label)
            d.errors.append(f"{name} version: {message}")
            if name == "new":
                d.refused.append(message)
        else:
            if spec is not None:
                specs[name] = spec
    if "old" in specs and "new" in specs:
        a, b = _readings(specs["old"]), _readings(specs["new"])
        d.added = [f for f in b if f not in a]
        d.removed = [f for f in a if f not in b]
        for fid in (f for f in b if f in a):
            fd = compare(fid, b[fid][0].letter, a[fid][1], b[fid][1], a[fid][0], b[fid][0])
            if fd.changed:
                d.fragments.append(fd)
        d.changes = same_as_changes(specs["old"], specs["new"])
    elif "new" in specs:
        d.added = [f.id for f in specs["new"].fragments()]
    elif "old" in specs:
        d.removed = [f.id for f in specs["old"].fragments()]
    # every verdict of the scope: the file's own here, the other files' in d.related
    va = _verdicts(old, jobs)
    # the other files of the scope are compared where both sides have them: a removed file's
    # are proved as they stand now (relations.yaml no longer loads without it, and its bytes are
    # unchanged); an added file's scope has no old side
    both = bool(old) and (new is not None or folder is not None)
    if new is not None:
        vb = _verdicts(new, jobs)
    else:
        vb = _verdicts_of(_survivors(old, folder), jobs) if both else {}
    own = os.path.basename(new or old or label)
    _changes(va.pop(own, {}), vb.pop(own, {}), d)
    here = os.path.dirname(new) if new is not None else folder
    for name in sorted(set(va) | set(vb)) if both else ():
        if name not in vb and not os.path.isfile(os.path.join(here, name)):
            continue  # gone now as well: not a file the edit affects (a diff of its own says it is removed)
        other = SpecDiff(os.path.join(os.path.dirname(label), name), "affected", by=[label])
        _changes(va.get(name, {}), vb.get(name, {}), other)
        if other.verdicts:
            d.related.append(other)
    if not (d.fragments or d.added or d.removed or d.changes or d.verdicts or d.errors or d.related) \
            and status == "modified":
        d.status = "unchanged"
    return d


def _git(args, cwd, limit: int = GIT_LISTING_MAX) -> bytes:
    """git's output, read with a limit (git is killed past it, or past GIT_TIMEOUT_S)."""
    try:
        return run_bounded(["git", *args], cwd, limit, GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise UsageError("--base needs git on PATH") from None
    except GitError as exc:
        raise UsageError(f"git {' '.join(args)[:200]}: {exc}") from None


def _blob(rev: str, rel: str, top: str) -> bytes:
    """The bytes of `rel` at `rev`, at most MAX_BYTES: its size is asked first, then the blob is
    read with that bound. A SpecError located at REV:path:1:1 otherwise."""
    where = SourceSpan(f"{rev}:{rel}", 1, 1)
    try:
        size = run_bounded(["git", "cat-file", "-s", f"{rev}:{rel}"], top, 64, GIT_TIMEOUT_S).strip()
        if not size.isdigit():
            raise GitError(f"git gives its size as {shown(size.decode('ascii', 'replace'))}")
        if int(size) > MAX_BYTES:
            raise SpecError(where, f"file is larger than {MAX_BYTES} bytes")
        return run_bounded(["git", "cat-file", "blob", f"{rev}:{rel}"], top, MAX_BYTES, GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise UsageError("--base needs git on PATH") from None
    except GitError as exc:
        raise SpecError(where, f"cannot read it from git: {exc}") from None


def _unsafe(rel: str) -> str | None:
    """Why a path git lists cannot name a file under the temporary folder, or None. A hostile
    history can hold any name (a tree entry `..`, made with `git hash-object --literally`, is
    listed as `specs/../../x.yaml`): every listed path is checked before any is written."""
    if not rel or len(rel) > 4096:
        return "an empty or overlong path"
    if any(c in rel for c in "\0\n\r"):
        return "a path with a NUL or line break"
    if rel.startswith("/") or os.path.isabs(rel):
        return "an absolute path"
    if any(part in ("", ".", "..") for part in rel.split("/")):
        return "a path with an empty, '.' or '..' component"
    return None


def _located(rev: str, rel: str) -> SourceSpan:
    # a line break or control character is escaped, and a long name cut: the location is one line
    return SourceSpan(f"{rev}:{shown(rel.encode('unicode_escape').decode('ascii'), 300, quote=False)}", 1, 1)


def _place(tmp: str, rev: str, rel: str, data: bytes) -> str:
    """Write the old version of `rel` under `tmp` (a fresh private folder): the path is checked to
    stay inside it (resolved, links included), and the file is created new, never through a link
    or over a file already there."""
    where = _located(rev, rel)
    root = os.path.realpath(tmp)
    old = os.path.join(root, "old", *rel.split("/"))
    if os.path.commonpath([root, os.path.realpath(old)]) != root:
        raise SpecError(where, "git lists a path outside the revision's tree; the revision is refused")
    try:
        os.makedirs(os.path.dirname(old), mode=0o700, exist_ok=True)
        temps.write_new(old, data)  # bytes as they are: the loader says what is wrong with them
    except OSError as exc:  # a name listed twice, or as a file and a folder: a broken tree
        raise SpecError(where, f"cannot place it ({exc.strerror or exc}): git lists a broken tree; "
                               "the revision is refused") from None
    return old


def diff_base(rev: str, paths: list, spec_files, jobs: int = 1, scoped: bool = False) -> list:
    """Each spec file under `paths` against its version at git revision `rev`. `scoped`: the paths
    were named, so each named file's scope is diffed too, as it is now and as it was at `rev` (a
    sibling it depended on and that is gone now is a removed file of the diff); a folder given is
    diffed whole. A named file that is gone now is diffed as removed."""
    if rev.startswith("-"):
        raise UsageError(f"--base takes a revision, not {rev!r}")
    try:
        top = os.fsdecode(_git(["rev-parse", "--show-toplevel"], os.getcwd()).strip())
    except UsageError as exc:
        if "not a git repository" not in str(exc):
            raise
        raise UsageError(f"--base {shown(rev)}: {shown(os.getcwd())} is not in a git repository "
                         "(run it from the repository, or give OLD NEW)") from None
    try:
        _git(["rev-parse", "--verify", "--quiet", rev + "^{commit}"], top)
    except UsageError as exc:  # git's own words were its command line and "exit status 1"
        if "exit status" not in str(exc):
            raise
        raise UsageError(f"--base {shown(rev)}: no such commit in {shown(top)} (a branch, tag or commit id)") from None

    def rel_of(p) -> str:
        return os.path.relpath(os.path.abspath(str(p)), top).replace(os.sep, "/")

    named = [p for p in paths if str(p).endswith((".yaml", ".yml")) and not os.path.isdir(p)] if scoped else []
    folders = [rel_of(p) for p in paths if p not in named]
    existing = [p for p in paths if os.path.exists(p)]
    now = {rel_of(p): p for p in spec_files(existing)} if existing else {}
    # a named file's scope lies in its folder: that folder is listed at the revision, so the scope
    # it had then is known too
    homes = sorted({posixpath.dirname(rel_of(p)) for p in named})
    prefixes = sorted(set(folders) | {h or "." for h in homes})
    listing = _git(["ls-tree", "-r", "-z", "--name-only", rev, "--", *prefixes], top) if prefixes else b""
    listed = [os.fsdecode(n) for n in listing.split(b"\0") if n]
    for rel in listed:  # the whole revision is refused for one hostile name, before anything is read
        why = _unsafe(rel)
        if why is not None:
            raise SpecError(_located(rev, rel), f"git lists {why}; the revision is refused")

    def wanted(rel: str) -> bool:
        return posixpath.dirname(rel) in homes or any(f in (".", "") or rel == f or rel.startswith(f + "/")
                                                        for f in folders)

    # as spec_files does now: the untranscribed list is no spec (checker verbatim reads it)
    then = [f for f in listed if f.endswith((".yaml", ".yml")) and not is_untranscribed_file(f) and wanted(f)]
    for p in named:
        if not os.path.exists(p) and rel_of(p) not in then:
            raise UsageError(f"no such file or folder: {p} (nor at {shown(rev)})")
    out = []
    with temps.folder("checker-diff-") as tmp:
        placed, errors = {}, {}
        for rel in then:
            try:
                placed[rel] = _place(tmp, rev, rel, _blob(rev, rel, top))
            except SpecError as exc:
                errors[rel] = exc
        selected = set(now) | {rel for rel in then if not scoped or not wanted_by_home(rel, homes, folders)}
        if scoped:
            from checker.scope import widen

            selected |= {rel_of(p) for p in named}
            for f in widen(list(now.values())).files if now else ():
                now.setdefault(rel_of(f), str(f))
                selected.add(rel_of(f))
            old_root = os.path.join(os.path.realpath(tmp), "old")
            was = [placed[rel_of(p)] for p in named if rel_of(p) in placed]
            for f in widen(was).files if was else ():
                rel = os.path.relpath(os.path.realpath(str(f)), old_root).replace(os.sep, "/")
                selected.add(rel)
                here = os.path.join(top, rel)
                if rel not in now and os.path.isfile(here):
                    now[rel] = os.path.relpath(here)
        for rel in sorted(selected):
            old, error, new = placed.get(rel), errors.get(rel), now.get(rel)
            if old is None and error is None and new is None:
                continue
            if old and new and same_bytes(old, new, MAX_BYTES):
                continue
            here = os.path.relpath(os.path.join(top, rel))  # a removed file named from the working folder, as the others
            out.append((old, new, new or here, f"{rev}:{rel}", error, os.path.dirname(here)))
        # once every file is fetched: a diff proves the file's scope, which reads the files beside it
        return [diff_files(*args, jobs=jobs, folder=folder) for *args, folder in out]


def wanted_by_home(rel: str, homes: list, folders: list) -> bool:
    """Whether `rel` was listed only as a sibling of a named file (diffed where a scope names it),
    not as a file under a folder given (diffed whatever it is)."""
    in_folder = any(f in (".", "") or rel == f or rel.startswith(f + "/") for f in folders)
    return posixpath.dirname(rel) in homes and not in_folder


def diff_pair(old: str, new: str, jobs: int = 1) -> SpecDiff:
    """`checker diff OLD NEW`: what changes if OLD stood where NEW stands. OLD is judged in NEW's
    folder (a temporary folder with NEW's scope linked in and OLD's bytes in NEW's place), so the
    relations and specs of the scope are the same on both sides and only the edit differs.

    Nothing is copied whole: the scope's other files are linked (the loader reads them through the
    link with its bound, as it reads them in NEW's folder), and OLD is read as at most MAX_BYTES
    (a larger or non-regular OLD is the old version's located error, as from git history)."""
    from checker.bounded import read_regular
    from checker.scope import widen

    try:
        data = read_regular(old, MAX_BYTES)
    except SpecError as exc:
        return diff_files(None, new, new, old, old_error=exc, jobs=jobs)
    with temps.folder("checker-diff-") as tmp:
        for f in widen([new]).files:
            if os.path.abspath(f) != os.path.abspath(new):
                os.symlink(os.path.abspath(f), os.path.join(tmp, os.path.basename(f)))
        placed = os.path.join(tmp, os.path.basename(new))
        temps.write_new(placed, data)
        return diff_files(placed, new, new, old, jobs=jobs)


def flatten(diffs: list) -> list:
    """The edited files' diffs, then one for each other file of their scopes whose verdicts
    changed (a relation an edit broke is listed once, under the relations file, with every
    edited file whose scope it is in)."""
    out, others = list(diffs), {}
    for d in diffs:
        for r in d.related:
            mine = next((x for x in out if x.path == r.path), None) or others.get(r.path)
            if mine is None:
                others[r.path] = r
                continue
            mine.verdicts.extend(v for v in r.verdicts if v not in mine.verdicts)
            mine.why.update({k: w for k, w in r.why.items() if k not in mine.why})
            mine.by.extend(b for b in r.by if b not in mine.by)
    return out + [others[p] for p in sorted(others)]
