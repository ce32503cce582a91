"""JUnit XML, for CI systems that draw test reports: one test suite per spec file, one test case
per (fragment or theorem, property); a refuted or unknown result is a <failure>, a spec that
cannot be loaded an <error>, a confirmed erratum or declared refutation passes with its note."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from checker.results import PROVED, SPEC_ERROR

# what XML 1.0 cannot hold at all, escaped or not (controls but tab, newline and carriage return;
# lone surrogates, as a path that is not UTF-8 decodes to; U+FFFE, U+FFFF): ElementTree writes them
# as they are, and the file no longer parses
_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _legal(value: str | None) -> str | None:
    """`value` with each character XML cannot hold written as Python's repr escape (\\x01)."""
    return None if value is None else _ILLEGAL.sub(lambda m: repr(m.group(0))[1:-1], value)


def _clean(root) -> None:
    """Every text, tail and attribute of the tree made legal: a spec's path, a fragment's id and a
    message all come from the input."""
    for el in root.iter():
        el.text, el.tail = _legal(el.text), _legal(el.tail)
        for k, v in el.attrib.items():
            el.attrib[k] = _legal(v)


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
    _clean(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
