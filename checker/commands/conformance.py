"""`checker conformance`: every published layout of checker/references/data/ (or --references)
against its spec fragment: equal (proved), differs (with the counterexample), malformed, or not
modelled. Exit 0 when every verdict is what its entry expects (current: equal; historical: differs);
2 when the references hold no entry: nothing was checked."""
from __future__ import annotations

from checker import outputs
from checker.commands.common import add_jobs, check_outputs, command, gate, positive_jobs, spec_files
from checker.errors import UsageError

NAME = "conformance"


def add(sub) -> None:
    cf = command(sub, NAME, "published layouts (CuTe, Triton, MLIR, ...) against the specs: equal, differs, "
                             "not modelled",
                 "Every published layout transcribed in checker/references/data/ (each pinned to the upstream "
                 "file and commit it was read at) against its spec fragment: equal (proved by z3 and the "
                 "enumeration), differs (with the smallest counterexample), malformed, or not modelled.",
                 ["checker conformance specs/                      # the matrix, as text",
                  "checker conformance specs/ --format markdown --output conformance.md"])
    cf.add_argument("paths", nargs="*", metavar="SPEC", help="spec files, or folders of them (default: specs)")
    cf.add_argument("--references", action="append", metavar="FILE|DIR",
                    help="reference data files or folders (default: the shipped checker/references/data)")
    cf.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    cf.add_argument("--output", metavar="FILE", help="write it here instead of stdout")
    add_jobs(cf)
    cf.set_defaults(own_output=True)


def run(args, out, err) -> int:
    from checker.references import conformance, render

    positive_jobs(args)
    check_outputs(args)
    files = spec_files(args.paths or ["specs"])
    gate(files)
    verdicts = conformance.run(files, args.references, args.jobs)
    if not verdicts:  # as crosscheck with no dump: a run that checked nothing is not a pass
        raise UsageError(f"no reference entry in {' '.join(args.references or ['checker/references/data'])}: "
                         "nothing was checked")
    text = {"text": render.render_text, "markdown": render.render_markdown, "json": render.render_json}[args.format](
        verdicts)
    if args.output:
        outputs.write_text(args.output, text, "--output")
    else:
        out.write(text)
    return conformance.exit_code(verdicts)
