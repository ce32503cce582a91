"""`checker where`: which lane, element, register and bits hold a matrix cell."""
from __future__ import annotations

import json

from checker.commands.common import add_format, add_fragment, add_output, add_specs, command, integer, one_spec

NAME = "where"


def add(sub) -> None:
    wh = command(sub, NAME, "which lane, element, register and bits hold a matrix cell",
                 "Which lane and element hold the cell (--row, --col) of a fragment's matrix, and which "
                 "register and bits hold that element for each type; for a sparse A, which register's range "
                 "covers the cell and which element holds it for which metadata index.",
                 ["checker where specs/m16n8k16.yaml --fragment C.float --row 9 --col 3",
                  "checker where specs/m16n8k32.yaml --fragment A.sp.f16 --row 9 --col 13 --format json",
                  "checker where specs/m16n8k256.yaml --fragment A.b1 --row 8 --col 0 --as-printed 1"
                  "   # the document's text: no lane"])
    add_specs(wh, "spec", one=True)
    add_fragment(wh)
    wh.add_argument("--row", required=True, type=integer, metavar="R", help="the cell's row in the operand's matrix")
    wh.add_argument("--col", required=True, type=integer, metavar="C", help="the cell's column")
    wh.add_argument("--compressed", action="store_true",
                    help="for a sparse A (mma.sp): --row/--col are in the compressed A, not in A")
    wh.add_argument("--as-printed", type=integer, metavar="K",
                    help="ask the document's printed text of the fragment's K-th erratum (the replay of a "
                         "covers refutation of it)")
    add_format(wh)
    add_output(wh)


def run(args, out, err) -> int:
    from checker.export.where import where, where_text

    w = where(one_spec(args.spec), args.fragment, args.row, args.col, args.compressed, args.as_printed)
    if args.format == "json":
        json.dump(w, out, indent=1)
        out.write("\n")
    else:
        out.write(where_text(w))
    return 0 if w["holders"] else 1
