"""The coverage report's files, rendered from what was gathered (checker/report/gather.py): the
Markdown pages, index.html and the other HTML pages, the SVG figures, errata.md and timings.json. The folder they are
written to, or compared with, is checker/report/folder.py."""
from __future__ import annotations

import json

from checker.report import errata, html, isa, isa_movement, isa_wgmma, markdown
from checker.report.folder import CONFORMANCE, ERRATA, FIGURES, TIMINGS
from checker.report.pages import TITLE, build


def render(report, timings: dict, references=None) -> dict:
    """-> {relative path: text}, every file the report owns. `references`: (the conformance verdicts,
    the errata's agreements) when the command computed them (checker/references/)."""
    pages, figs = build(report, timings, isa.rows(report.specs, report.hardware),
                        isa_movement.rows(report.specs, report.hardware), isa_wgmma.rows(report.specs, report.hardware))
    outputs = {f"{p.name}.md": markdown.render(p) for p in pages}
    outputs.update(html.render(pages, TITLE))
    outputs.update({f"{FIGURES}/{name}": svg for name, svg in figs.items()})
    outputs[TIMINGS] = json.dumps(dict(sorted(timings.items())), indent=0) + "\n"
    verdicts, agreements = references or (None, None)
    outputs[ERRATA] = errata.render_markdown(errata.collect([(v.path, v.spec) for v in report.specs if v.spec],
                                                            report.results, agreements))
    if verdicts is not None:
        from checker.references.render import render_markdown

        outputs[CONFORMANCE] = render_markdown(verdicts)
    return outputs
