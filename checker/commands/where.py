"""`checker where`: which lane, element, register and bits hold a matrix cell."""
from __future__ import annotations

import json

NAME = "where"


def add(sub) -> None:
    wh = sub.add_parser(NAME, help="which lane, element, register and bits hold a matrix cell")
    wh.add_argument("spec", metavar="SPEC")
    wh.add_argument("--fragment", required=True, metavar="ID")
    wh.add_argument("--row", required=True, type=int)
    wh.add_argument("--col", required=True, type=int)
    wh.add_argument("--compressed", action="store_true",
                    help="for a sparse A (mma.sp): --row/--col are in the compressed A, not in A")
    wh.add_argument("--format", choices=["text", "json"], default="text")


def run(args, out, err) -> int:
    from checker.export.where import where, where_text

    w = where(args.spec, args.fragment, args.row, args.col, args.compressed)
    if args.format == "json":
        json.dump(w, out, indent=1)
        out.write("\n")
    else:
        out.write(where_text(w))
    return 0 if w["holders"] else 1
