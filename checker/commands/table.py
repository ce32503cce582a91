"""`checker table`: the layouts as a grid, or as data."""
from __future__ import annotations

import json

from checker.commands.common import add_format, add_fragment, add_output, add_specs, command, integer, load_fragment, one_spec

from checker.errors import UsageError

NAME = "table"


def add(sub) -> None:
    ta = command(sub, NAME, "the layouts as a grid, or as data with --format json",
                 "Draw each fragment as the document's figures do: the matrix as a grid, `T<lane>:<element>` "
                 "in each cell, one grid per MMA computation. Wide fragments are drawn in bands of --band "
                 "columns. --format json gives the same as data: entries [lane, i, row, col] (a warpgroup's thread 0..127, not the lane, for wgmma), from the "
                 "reading the checker proves (not the printed text).",
                 ["checker table specs/m16n8k16.yaml --fragment C.float",
                  "checker table specs/m16n8k256.yaml --fragment A.b1 --band 8",
                  "checker table specs/m16n8k16.yaml --format json --output m16n8k16.json"])
    add_specs(ta, "spec", one=True)
    add_fragment(ta, required=False, help="one fragment (default: every fragment of the spec)")
    ta.add_argument("--band", type=integer, default=16, metavar="N",
                    help="columns per band of the grid (default: 16; 0: the whole width in one)")
    add_format(ta)
    add_output(ta)


def run(args, out, err) -> int:
    from checker.report.tables import fragment_table, render_text
    from checker.spec.checked import load_checked
    from checker.spec.reading import materialize

    spec = load_checked(one_spec(args.spec))
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
        if args.band < 0:
            raise UsageError("--band takes 0 (no bands) or a number of columns")
        out.write("\n\n".join(render_text(t, f.letter, args.band) for f, t in tables) + "\n")
    return 0
