"""`checker schema`: print the spec JSON Schema."""
from __future__ import annotations

import json

NAME = "schema"


def add(sub) -> None:
    sub.add_parser(NAME, help="print the spec JSON Schema")


def run(args, out, err) -> int:
    from checker.spec.load import schema

    json.dump(schema(), out, indent=2)
    out.write("\n")
    return 0
