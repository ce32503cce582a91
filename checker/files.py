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


def is_relations_file(path: str) -> bool:
    return os.path.basename(path) == RELATIONS_FILE
