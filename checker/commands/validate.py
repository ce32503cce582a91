"""`checker validate`: structure and meaning of the spec files, without proving."""
from __future__ import annotations

import json

from checker.commands.common import add_format, add_output, add_specs, command, spec_files
from checker.errors import SpecError

NAME = "validate"


def add(sub) -> None:
    va = command(sub, NAME, "check structure and meaning without proving",
                 "Check each spec's structure (the JSON Schema) and meaning (names, types, bounds, that every "
                 "formula and erratum parses), without proving anything. Exit 3 names the first problem's "
                 "file:line:col.",
                 ["checker validate specs/", "checker validate specs/m16n8k16.yaml --format json"])
    add_specs(va)
    add_format(va)
    add_output(va)


def run(args, out, err) -> int:
    from checker.spec.checked import load_checked
    from checker.files import is_relations_file
    from checker.terminal import lines
    from checker.theorems.relations import load_relations

    worst = 0
    report = []
    for f in spec_files(args.paths):
        try:
            if is_relations_file(f):
                n = len(load_relations(f))
                report.append({"spec": f, "ok": True, "relations": n})
                if args.format == "text":
                    out.write(lines([f"{f}: ok ({n} relations)"]))
                continue
            spec = load_checked(f)  # the gate every command passes a spec through
            # counted as `checker prove` counts them: with formulas and given only as figures
            drawn = sum(len(s.figures_only) for s in spec.sections)
            report.append({"spec": f, "ok": True, "fragments": len(spec.fragments()) + drawn, "figures_only": drawn})
            if args.format == "text":
                shown = f", {drawn} given only as figures" if drawn else ""
                out.write(lines([f"{f}: ok ({report[-1]['fragments']} fragments{shown})"]))
        except SpecError as exc:
            worst = 3
            report.append({"spec": f, "ok": False, "location": str(exc.span), "message": exc.message})
            if args.format == "text":
                err.write(lines([str(exc)]))
    if args.format == "json":
        json.dump(report, out, indent=1)
        out.write("\n")
    return worst
