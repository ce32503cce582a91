"""The files a command is given: files as named, folders walked in sorted order for the suffixes
asked for. A path that does not exist is a usage error."""
from __future__ import annotations

import os

from checker.errors import UsageError


def under(paths, suffixes: tuple) -> list:
    out = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                out.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(suffixes))
        elif os.path.exists(path):
            out.append(path)
        else:
            raise UsageError(f"no such file or folder: {path}")
    return out


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
