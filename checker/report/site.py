"""The coverage report's files, rendered from what was gathered (checker/report/gather.py): the
Markdown pages, index.html and the other HTML pages, the SVG figures, errata.md and timings.json. The folder they are
written to, or compared with, is checker/report/folder.py."""
from __future__ import annotations

import json

from checker.report import errata, html, isa, markdown
from checker.report.folder import ERRATA, FIGURES, TIMINGS
from checker.report.pages import TITLE, build


def render(report, timings: dict) -> dict:
    """-> {relative path: text}, every file the report owns."""
    pages, figs = build(report, timings, isa.rows(report.specs, report.hardware))
    outputs = {f"{p.name}.md": markdown.render(p) for p in pages}
    outputs.update(html.render(pages, TITLE))
    outputs.update({f"{FIGURES}/{name}": svg for name, svg in figs.items()})
    outputs[TIMINGS] = json.dumps(dict(sorted(timings.items())), indent=0) + "\n"
    outputs[ERRATA] = errata.render_markdown(errata.collect([(v.path, v.spec) for v in report.specs if v.spec],
                                                            report.results))
    return outputs
