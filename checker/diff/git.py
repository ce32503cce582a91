"""`checker diff --base REV`: spec files against their versions in git history. The history may be
hostile: every path git lists is checked before anything is written, every read is bounded in
bytes and time, and old versions are placed in a private temporary folder (checker/temps.py)."""
from __future__ import annotations

import os
import posixpath

from checker import temps
from checker.bounded import GitError, run_bounded, same_bytes, shown
from checker.diff.compare import diff_files
from checker.errors import SourceSpan, SpecError, UsageError
from checker.files import is_untranscribed_file
from checker.spec.yamlload import MAX_BYTES

GIT_TIMEOUT_S = 30
GIT_LISTING_MAX = 16 << 20  # bytes of a git listing (ls-tree, rev-parse); a spec itself: MAX_BYTES
# folders in a listed path: an old version's folders are made (os.makedirs) and removed
# (shutil.rmtree) one call deeper per folder, and a path 1,100 folders deep raised RecursionError
MAX_PATH_DEPTH = 64


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
    if rel.count("/") >= MAX_PATH_DEPTH:
        return f"a path nested deeper than {MAX_PATH_DEPTH} folders"
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

    def under_folder(rel: str) -> bool:  # under a folder given: diffed whatever it is
        return any(f in (".", "") or rel == f or rel.startswith(f + "/") for f in folders)

    def beside(rel: str) -> bool:  # beside a named file: diffed where a scope names it
        return posixpath.dirname(rel) in homes

    def wanted(rel: str) -> bool:
        return beside(rel) or under_folder(rel)

    # as spec_files does now: the untranscribed list is no spec (checker verbatim reads it)
    then = [f for f in listed if f.endswith((".yaml", ".yml")) and not is_untranscribed_file(f) and wanted(f)]
    for p in paths:  # a path gone now is diffed as it was at the revision; one never there is a typo
        r = rel_of(p)
        if not os.path.exists(p) and not any(f == r or f.startswith(r + "/") for f in listed):
            raise UsageError(f"no such file or folder: {p} (nor at {shown(rev)})")
    out = []
    with temps.folder("checker-diff-") as tmp:
        placed, errors = {}, {}
        for rel in then:
            try:
                placed[rel] = _place(tmp, rev, rel, _blob(rev, rel, top))
            except SpecError as exc:
                errors[rel] = exc
        selected = set(now) | {rel for rel in then if not scoped or under_folder(rel)}
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
