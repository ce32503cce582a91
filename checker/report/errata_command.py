"""`checker errata`: prove the specs given (and their scope), then list every confirmed erratum
with its evidence (checker.report.errata renders it)."""
from __future__ import annotations

from checker.files import is_relations_file
from checker.results import exit_code


def run(files: list, fmt: str, jobs: int, out) -> int:
    from checker import scope
    from checker.launch import Options
    from checker.prover import prove_paths
    from checker.report import errata
    from checker.spec.load import load_spec

    widened = scope.widen(files)
    results = prove_paths(widened.specs + widened.relations, Options(cross_check=True, jobs=jobs))
    specs = []
    for path in files:
        if not is_relations_file(path) and not any(r.property == "load" and r.spec == path for r in results):
            specs.append((path, load_spec(path)))
    entries = errata.collect(specs, results)
    render = {"text": errata.render_text, "markdown": errata.render_markdown, "json": errata.render_json}[fmt]
    out.write(render(entries))
    return exit_code(results)
