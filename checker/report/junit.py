"""JUnit XML, for CI systems that draw test reports: one test suite per spec file, one test case
per (fragment or theorem, property); a refuted or unknown result is a <failure>, a spec that
cannot be loaded an <error>, a confirmed erratum or declared refutation passes with its note."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from checker.results import PROVED, SPEC_ERROR


def render(results: list, seconds: float) -> str:
    suites: dict = {}
    for r in results:
        suites.setdefault(r.spec, []).append(r)
    root = ET.Element("testsuites", name="checker prove", tests=str(len(results)),
                      failures=str(sum(r.failed() and r.verdict != SPEC_ERROR for r in results)),
                      errors=str(sum(r.verdict == SPEC_ERROR for r in results)), time=f"{seconds:.3f}")
    for spec, rs in suites.items():
        suite = ET.SubElement(root, "testsuite", name=spec, tests=str(len(rs)),
                              failures=str(sum(r.failed() and r.verdict != SPEC_ERROR for r in rs)),
                              errors=str(sum(r.verdict == SPEC_ERROR for r in rs)),
                              time=f"{sum(r.seconds for r in rs):.4f}")
        for r in rs:
            what = r.fragment or r.subject or "spec"
            comp = f" (computation {r.computation})" if r.computation else ""
            case = ET.SubElement(suite, "testcase", classname=f"{spec}.{what}", name=f"{r.property}{comp}",
                                 time=f"{r.seconds:.4f}")
            if r.verdict == SPEC_ERROR:
                ET.SubElement(case, "error", message=r.message[:500], type="spec-error").text = \
                    f"{r.location}: {r.message}"
            elif r.failed():
                ET.SubElement(case, "failure", message=r.message[:500], type=r.verdict).text = \
                    f"{r.location}: {r.message}" + (f"\nreplay: {r.counterexample['replay']}"
                                                    if r.counterexample and r.counterexample.get("replay") else "")
            elif r.verdict != PROVED:
                ET.SubElement(case, "system-out").text = (f"{'erratum confirmed' if r.erratum else 'refuted as declared'}: "
                                                         f"{r.location}: {r.message}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
