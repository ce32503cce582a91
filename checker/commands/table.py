"""`checker table`: the layouts as a grid, or as data."""
from __future__ import annotations

import json

from checker.commands.common import load_fragment, spec_files

NAME = "table"


def add(sub) -> None:
    ta = sub.add_parser(NAME, help="the layouts as a grid, or as data with --format json")
    ta.add_argument("spec")
    ta.add_argument("--fragment")
    ta.add_argument("--format", choices=["text", "json"], default="text")


def run(args, out, err) -> int:
    from checker.report.tables import fragment_table, render_text
    from checker.spec.load import load_spec
    from checker.spec.reading import materialize

    spec = load_spec(spec_files([args.spec])[0])
    frags = list(spec.fragments())
    if args.fragment:
        frags = [load_fragment(args.spec, args.fragment)[1]]
    tables = [(f, fragment_table(spec, f, materialize(f))) for f in frags]
    for f, t in tables:
        t["types"] = list(f.types_here())  # wgmma: the types this instance's N has (.s32 not at N = 40)
    if args.format == "json":
        json.dump([t for _, t in tables], out, separators=(",", ":"))
        out.write("\n")
    else:
        out.write("\n\n".join(render_text(t, f.letter) for f, t in tables) + "\n")
    return 0
