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
    from checker.spec.lookup import listing
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
            drawn = [x.id for s in spec.sections for x in s.figures_only]
            ids = list(dict.fromkeys(x.id for x in spec.fragments()))
            # the ids too: every `--fragment ID` help sends the reader here for them
            report.append({"spec": f, "ok": True, "fragments": len(spec.fragments()) + len(drawn),
                           "figures_only": len(drawn), "ids": ids, "figures_only_ids": drawn})
            if args.format == "text":
                shown = f", {len(drawn)} given only as figures" if drawn else ""
                only = f"; figures only: {', '.join(drawn)}" if drawn else ""
                out.write(lines([f"{f}: ok ({report[-1]['fragments']} fragments{shown}): {listing(spec)}{only}"]))
        except SpecError as exc:
            worst = 3
            report.append({"spec": f, "ok": False, "location": str(exc.span), "message": exc.message})
            if args.format == "text":
                err.write(lines([str(exc)]))
    if args.format == "json":
        json.dump(report, out, indent=1)
        out.write("\n")
    return worst
