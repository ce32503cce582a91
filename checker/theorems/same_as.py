"""mma.sp sections say B and C/D are "the same as" fragments of another section: each name must
exist, as a fragment of that operand, in the spec of its shape."""
from __future__ import annotations

import time

from checker.loading import load
from checker.results import PROVED, REFUTED, SPEC_ERROR, Result
from checker.spec.checked import beside, unresolved
from checker.theorems.family import TheoremFamily


def referee(path, loaded):
    """shape -> the spec of that shape: loaded, or the file beside `path` (read once), or None."""
    siblings = beside(path, lambda sibling: load(sibling)[0])

    def resolve(shape):
        other = next((s for s, _ in loaded.values() if s is not None and s.shape == shape), None)
        return other if other is not None else siblings(shape)
    return resolve


def same_as(spec, path, resolve) -> list:
    """mma.sp sections name the fragments B and C/D are "the same as": each name must be a
    fragment of that operand, in the spec of its shape (`resolve`: see referee)."""
    out = []
    for sec in spec.sections:
        for same in sec.same_as:
            t0 = time.perf_counter()
            subject = f"{sec.section} {'/'.join(same.operands)}"
            wrong = unresolved(same, resolve, spec)
            if wrong:
                where, why = wrong[0]
                out.append(Result(spec.path, None, "same-as", SPEC_ERROR, time.perf_counter() - t0, str(where),
                                  subject=subject, message="; ".join(w for _, w in wrong)))
                continue
            missing = [f"{ref}: no spec of shape {ref.split('/', 1)[0]} is loaded or beside {path}"
                       for ref in same.fragments if resolve(ref.split("/", 1)[0]) is None]
            if missing:
                out.append(Result(spec.path, None, "same-as", REFUTED, time.perf_counter() - t0, str(same.span),
                                  {"message": "; ".join(missing)}, subject=subject, message="; ".join(missing)))
            else:
                out.append(Result(spec.path, None, "same-as", PROVED, time.perf_counter() - t0, str(same.span),
                                  subject=subject, message=f"the fragments the document gives {' and '.join(same.operands)} "
                                                           f"of {sec.section} as exist: {', '.join(same.fragments)}"))
    return out


FAMILY = TheoremFamily("same-as", 10, "A \"same as\" sentence names fragments that exist, of the operands it says, "
                        "with the types it names", ("mma", "wgmma.sp"), lambda a: same_as(a.spec, a.spec.path, a.resolve),
                        after_fragments=True, readings_only=False)
