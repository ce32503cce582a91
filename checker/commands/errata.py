"""`checker errata`: prove the specs given (and their scope), then list every confirmed erratum
with its evidence (checker/report/errata.py renders it)."""
from __future__ import annotations

from checker.commands.common import add_format, add_jobs, add_output, add_specs, command, positive_jobs, spec_files

NAME = "errata"


def add(sub) -> None:
    er = command(sub, NAME, "every confirmed erratum of the document, with its evidence and versions",
                 "Prove the specs, then list every erratum the checker confirms: where it is (section, "
                 "figure), the printed text, the reading, what the printed text breaks with its smallest "
                 "counterexample and a replay command, contradiction or judgment, and the document versions "
                 "that print it.",
                 ["checker errata specs/", "checker errata specs/ --format markdown --output errata.md"])
    add_specs(er)
    add_format(er, ("text", "markdown", "json"))
    add_output(er)
    add_jobs(er)


def run(args, out, err) -> int:
    positive_jobs(args)
    files = spec_files(args.paths)

    from checker import scope
    from checker.files import is_relations_file
    from checker.options import Options
    from checker.prover import prove_paths
    from checker.report import errata
    from checker.report.text import failures
    from checker.results import exit_code
    from checker.spec.load import load_spec

    widened = scope.widen(files)
    results = prove_paths(widened.specs + widened.relations, Options(cross_check=True, jobs=args.jobs))
    specs = []
    for path in files:
        if not is_relations_file(path) and not any(r.property == "load" and r.spec == path for r in results):
            specs.append((path, load_spec(path)))
    from checker.references.errata import agreement

    entries = errata.collect(specs, results, agreement(specs, [p for p, _ in specs]))
    render = {"text": errata.render_text, "markdown": errata.render_markdown, "json": errata.render_json}[args.format]
    out.write(render(entries))
    # what failed, located as `prove` says it: the list above shows only what was confirmed
    err.write(failures(results))
    return exit_code(results)
