"""Entry-level diff of one fragment: every (lane, element) whose (row, col) the edit changes,
summarised the way a reviewer reads it: "1024 of 4096 entries move: lanes 0-31, a32-a63, col +32"."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from checker.formula.evaluate import cells


@dataclass
class FragmentDiff:
    fragment: str
    letter: str
    total: int  # entries in the new fragment (old where it has more)
    moved: list = field(default_factory=list)  # (lane, i, old (row, col) or None, new (row, col) or None)
    header: list = field(default_factory=list)  # other changes: types, registers, computations

    @property
    def changed(self) -> bool:
        return bool(self.moved or self.header)


def table(reading, lanes=None) -> dict:
    """(lane, i) -> (row, col); -1 where no piece applies."""
    if reading is None or reading.layout is None:
        return {}
    lanes = reading.fragment.holders() if lanes is None else lanes
    pts = [(lane, i) for lane in lanes for i in range(reading.n)]
    rows, cols = cells(reading.layout, pts)
    return {p: (r, c) for p, r, c in zip(pts, rows, cols)}


def compare(fid: str, letter: str, old, new, old_frag, new_frag) -> FragmentDiff:
    a, b = table(old), table(new)
    d = FragmentDiff(fid, letter, max(len(a), len(b)))
    for p in sorted(set(a) | set(b)):
        if a.get(p) != b.get(p):
            d.moved.append((p[0], p[1], a.get(p), b.get(p)))
    ot, nt = set(old_frag.types), set(new_frag.types)
    if ot != nt:
        d.header.append(f"types {', '.join(sorted(ot))} -> {', '.join(sorted(nt))}")
    for t in sorted(ot & nt):
        ro = next(r for r in old_frag.table if t in r.types)
        rn = next(r for r in new_frag.table if t in r.types)
        if (ro.count, ro.kind, ro.per_register) != (rn.count, rn.kind, rn.per_register):
            d.header.append(f".{t}: {ro.count} x .{ro.kind} -> {rn.count} x .{rn.kind} registers")
    if [c.lanes for c in old_frag.computations] != [c.lanes for c in new_frag.computations]:
        d.header.append("the lanes of the MMA computations change")
    return d


def ranges(values, prefix: str = "") -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8' (an en dash, as a reader writes it); with a prefix
    'a': 'a0-a2, a5, a7-a8'."""
    vals = sorted(set(values))
    out, start = [], None
    for k, v in enumerate(vals):
        if start is None:
            start = v
        if k + 1 == len(vals) or vals[k + 1] != v + 1:
            out.append(f"{prefix}{start}" if start == v else f"{prefix}{start}\u2013{prefix}{v}")
            start = None
    return ", ".join(out)


def _shift(old, new) -> str:
    if old is None:
        return "now defined"
    if new is None:
        return "no longer defined"
    if -1 in old or -1 in new:
        return "defined differently"
    parts = [f"{name} {delta:+d}" for name, delta in (("row", new[0] - old[0]), ("col", new[1] - old[1])) if delta]
    return ", ".join(parts)


def summary(d: FragmentDiff) -> str:
    if not d.moved:
        return f"{d.fragment}: " + "; ".join(d.header)
    lanes = ranges(m[0] for m in d.moved)
    elems = ranges((m[1] for m in d.moved), d.letter)
    shifts = Counter(_shift(m[2], m[3]) for m in d.moved)
    if len(shifts) == 1:
        how = next(iter(shifts))
    else:
        top = shifts.most_common(3)
        how = ", ".join(f"{s} ({n})" for s, n in top) + (f", {len(shifts) - 3} other moves" if len(shifts) > 3 else "")
    text = f"{d.fragment}: {len(d.moved)} of {d.total} entries move: lanes {lanes}, {elems}, {how}"
    return text + ("; " + "; ".join(d.header) if d.header else "")
