"""The files a command is given: files as named, folders walked in sorted order for the suffixes
asked for. A path that does not exist is a usage error."""
from __future__ import annotations

import difflib
import os

from checker.errors import UsageError


def _walk(top: str):
    """(folder, files) in os.walk's order (top down, folders sorted, a link to a folder listed but
    not entered, an unreadable folder skipped), without its recursion: a checkout's folder nested
    a thousand deep raised RecursionError out of os.walk."""
    stack = [top]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as it:
                entries = list(it)
        except OSError:
            continue
        dirs, names = [], []
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else names).append(e)
        yield root, sorted(e.name for e in names)
        stack.extend(e.path for e in sorted(dirs, key=lambda e: e.name, reverse=True) if not e.is_symlink())


def under(paths, suffixes: tuple) -> list:
    out = []
    for path in paths:
        if os.path.isdir(path):
            for root, names in _walk(path):
                out.extend(os.path.join(root, n) for n in names if n.endswith(suffixes))
        elif os.path.exists(path):
            out.append(path)
        else:
            guess = _meant(path)
            raise UsageError(f"no such file or folder: {path}" + (f"; did you mean {guess}?" if guess else ""))
    return out


def _meant(path) -> str | None:
    """The spec file a missing path likely meant: the shape without `.yaml` (`specs/m16n8k16`), the
    bare shape (`m16n8k16`, with specs/ here), or a near name in its folder (`m16n8k1.yaml`)."""
    if not isinstance(path, str) or not path or len(path) > 4096:
        return None
    for guess in (path + ".yaml", os.path.join("specs", path + ".yaml"), os.path.join("specs", path)):
        if os.path.isfile(guess):
            return guess
    folder, name = os.path.split(path)
    try:
        with os.scandir(folder or ".") as entries:
            names = [e.name for _, e in zip(range(2000), entries) if e.name.endswith((".yaml", ".yml"))]
    except OSError:
        return None
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.85)
    return os.path.join(folder, close[0]) if close else None


RELATIONS_FILE = "relations.yaml"
# the document's figures that no spec transcribes, each with its reason: read by `checker verbatim`
# (checker/verbatim/complete.py), never loaded as a spec
UNTRANSCRIBED_FILE = "untranscribed.yaml"


def is_untranscribed_file(path: str) -> bool:
    return os.path.basename(path) == UNTRANSCRIBED_FILE


def spec_yaml(paths) -> list:
    """The YAML files the paths name or the folders hold, the untranscribed list left out."""
    return [p for p in under(paths, (".yaml", ".yml")) if not is_untranscribed_file(p)]


def is_relations_file(path: str) -> bool:
    return os.path.basename(path) == RELATIONS_FILE


def split_relations(files: list) -> tuple:
    """(spec files, relations files), each in the order given."""
    return [p for p in files if not is_relations_file(p)], [p for p in files if is_relations_file(p)]


def user_cache() -> str:
    """The checker's folder in the user's cache (never a shared temporary folder): the prove
    results only (lark's parser tables ship with the package: nothing is unpickled from here)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ptx-fragment-checker")
