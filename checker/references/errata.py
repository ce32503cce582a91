"""Independent encodings of an erratum's fragment: which reference entries (CuTe, Triton, MLIR, ...)
agree with the reading the checker uses, and which with the document's printed text -- each
"agrees" proved by z3 and the enumeration (checker.references.conformance), never assumed.

A layout erratum is one that corrects a fragment's formula; an entry is asked about both sides:
the reading (the spec with every erratum applied) and the printed text (that erratum undone)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Agreement:
    reading: list = field(default_factory=list)  # "CuTe `SM80_...ALayout`" that equal the reading
    printed: list = field(default_factory=list)  # ... that equal the printed text
    neither: list = field(default_factory=list)  # ... that equal neither (a historical bug, say)
    note: str = ""  # the printed text does not parse, ...

    def to_json(self) -> dict:
        return {"reading": self.reading, "printed": self.printed, "neither": self.neither, "note": self.note}


def _label(ref) -> str:
    return f"{ref.library} `{ref.name}`" + (" (historical)" if ref.status == "historical" else "")


def agreement(specs: list, spec_files: list, reference_paths=None) -> dict:
    """{erratum location (str): Agreement} for every formula erratum of `specs` ((path, spec) pairs)
    whose fragment has reference entries."""
    from checker.references.conformance import Specs, judge
    from checker.references.load import load_all
    from checker.spec.reading import materialize

    refs = load_all(reference_paths)
    lookup = Specs(spec_files)
    out = {}
    for _path, spec in specs:
        for frag in spec.fragments():
            mine = [r for r in refs if r.spec == spec.shape and r.fragment_id == frag.id]
            for e in frag.errata:
                if e.field != "formula" or not mine:
                    continue
                a = Agreement()
                printed = materialize(frag, e)
                if printed.layout is None:
                    a.note = "the printed text does not parse, so no encoding can agree with it"
                for ref in mine:
                    now = judge(ref, lookup)
                    if now.verdict not in ("equal", "differs"):
                        continue
                    if now.verdict == "equal":
                        a.reading.append(_label(ref))
                    elif printed.layout is not None and judge(ref, lookup, printed).verdict == "equal":
                        a.printed.append(_label(ref))
                    else:
                        a.neither.append(_label(ref))
                out[str(e.span)] = a
    return out
