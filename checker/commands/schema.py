"""`checker schema`: print the spec JSON Schema."""
from __future__ import annotations

import json

from checker.commands.common import add_output, command

NAME = "schema"


def add(sub) -> None:
    sc = command(sub, NAME, "print the spec JSON Schema",
                 "Print the JSON Schema of spec files (also committed at specs/schema/spec.schema.json, for "
                 "editors that validate YAML as it is typed).",
                 ["checker schema --output spec.schema.json"])
    add_output(sc)


def run(args, out, err) -> int:
    from checker.spec.validation import schema

    json.dump(schema(), out, indent=2)
    out.write("\n")
    return 0
