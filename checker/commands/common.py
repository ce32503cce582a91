"""What several commands share: the spec files their paths name, the output paths they were
given, --jobs, one fragment of one spec."""
from __future__ import annotations

import os

from checker import outputs
from checker.errors import UsageError


def add_jobs(parser, help=None) -> None:
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N", help=help)


def positive_jobs(args) -> None:
    if args.jobs < 1:
        raise UsageError("--jobs takes a positive number")


def check_outputs(args) -> None:
    """Every output path the command was given, checked before it does its work (checker/outputs.py):
    one that cannot be written is a usage error naming it."""
    for option, attr, kind in (("--output", "output", outputs.file), ("--dump-smt", "dump_smt", outputs.folder),
                               ("--out", "out", outputs.folder)):
        path = getattr(args, attr, None)
        if path is not None:
            kind(path, option)


def spec_files(paths) -> list:
    from checker.files import under

    files = under(paths, (".yaml", ".yml"))
    if not files:
        raise UsageError(f"no spec file (*.yaml) matched {' '.join(paths)}: nothing was checked")
    return files


def load_fragment(path, fid):
    """(spec, fragment) of fragment `fid` of the spec file; a usage error naming the ones it has."""
    from checker.spec.load import load_spec

    spec = load_spec(spec_files([path])[0])
    frag = spec.fragment(fid)
    if frag is None:
        ids = ", ".join(f.id for f in spec.fragments())
        raise UsageError(f"{path} has no fragment {fid!r}; it has {ids}")
    return spec, frag
