"""What to say when a fragment id, from a command line or from code, names no fragment of a spec.

A wgmma spec has one fragment per value of N (`D.float[N=8]` .. `D.float[N=256]`): listing them
all buries the answer, and the id a kernel engineer types first is the one without the value, or
the type's name (`D.f32`) rather than the document's fragment name (`D.float`). So the message
names the likeliest meant ids first, and the rest in one line, each fragment's instances once.
"""
from __future__ import annotations

import difflib
import re

from checker.bounded import shown

# one parameter value at the end of an id; ids come from command lines and code, so the id is
# taken apart from its end, a bounded piece at a time (a pattern over the whole id backtracks
# quadratically on a long run of brackets)
_PARAM = re.compile(r"\[([A-Za-z]{1,8})=(-?[0-9]{1,9})\]\Z")
_MAX_PARAMS = 4


def split(fid: str) -> tuple:
    """(id without its parameter values, ((name, value), ...)): `D.float[N=64]` ->
    (`D.float`, (("N", 64),))."""
    base, params = fid, []
    while len(params) < _MAX_PARAMS:
        m = _PARAM.search(base[-24:])
        if m is None:
            break
        params.append((m[1], int(m[2])))
        base = base[:len(base) - len(m[0])]
    return base, tuple(reversed(params))


def _values(values: list) -> str:
    """8, 16, ..., 256 for an arithmetic run of at least four; the values otherwise."""
    values = sorted(set(values))
    steps = {b - a for a, b in zip(values, values[1:])}
    if len(values) >= 4 and len(steps) == 1:
        return f"{values[0]}, {values[1]}, ..., {values[-1]}"
    return ", ".join(map(str, values))


def _grouped(spec) -> dict:
    """base id -> {parameter name: [values]} ({} for a fragment without a parameter), in spec order."""
    out: dict = {}
    for f in spec.fragments():
        base, params = split(f.id)
        entry = out.setdefault(base, {})
        for name, value in params:
            entry.setdefault(name, []).append(value)
    return out


def _round(values: list) -> int:
    """A round value to show: the largest power of two up to the middle one (N = 128 of 8..256),
    the smallest value where none is."""
    values = sorted(values)
    round_ = [v for v in values if v > 0 and v & (v - 1) == 0 and v <= values[len(values) // 2]]
    return round_[-1] if round_ else values[0]


def typed(base: str, values: dict) -> str:
    """How a command line names an instance: 'D.float[N=128]'."""
    return repr(base + "".join(f"[{name}={value}]" for name, value in values.items()))


def called(base: str, values: dict) -> str:
    """How Python code names one: fragment("D.float", N=128)."""
    return f"fragment({base!r}" + "".join(f", {name}={value}" for name, value in values.items()) + ")"


def _example(base: str, params: dict, style=typed, asked=()) -> str:
    """One instance: at the value asked for where the fragment has it, else at a round one."""
    asked = dict(asked)
    return style(base, {name: asked[name] if asked.get(name) in values else _round(values)
                        for name, values in params.items()})


def _shown(base: str, params: dict) -> str:
    if not params:
        return base
    return base + "".join(f"[{name}=...]" for name in params) + " (" + "; ".join(
        f"{name} = {_values(values)}" for name, values in params.items()) + ")"


def listing(spec) -> str:
    """The ids of a spec's fragments with a formula, each fragment's instances once:
    `A.f16, D.float[N=...] (N = 8, 16, ..., 256)`."""
    return ", ".join(_shown(b, params) for b, params in _grouped(spec).items())


def unknown(spec, path: str, fid: str, style=typed) -> str:
    """The message for a fragment id `fid` that no fragment of `spec` (read from `path`) has;
    `style` writes an instance the way the reader names one (`typed` or `called`)."""
    groups = _grouped(spec)
    base, given = split(fid)
    drawn = [f.id for s in spec.sections for f in s.figures_only]
    if fid in drawn:  # it is in the spec, as a table: "did you mean 'A.sp.tf32'?" sent the user elsewhere
        return (f"{path}: {shown(fid)} is given only as a figure in the document: its table is checked, but "
                f"there is no formula, so no map to ask about; the fragments with one: {', '.join(groups)}.")
    hints = []
    # a case slip (`a.b1`) is the fragment itself, which difflib's character ratio ranked below
    # another (`B.b1`)
    folded = [b for b in groups if b.lower() == base.lower()]
    if fid.count("[") > fid.count("]") and any(f.id == fid + "]" for f in spec.fragments()):
        # `D.float[N=64`, the bracket left open: that instance, not the round value (N=128) that
        # difflib's nearest base gave
        closed, values = split(fid + "]")
        hints.append(f"the bracket is not closed: did you mean {style(closed, dict(values))}?")
    elif given and any(f.id == base + "".join(f"[{k}={v}]" for k, v in given) for f in spec.fragments()):
        # `D.float[N=0008]`: the instance is there, its value spelled otherwise (leading zeros, -0);
        # "no instance at N=8; name one, as in 'D.float[N=8]'" contradicted itself
        hints.append(f"the value is written as a plain number: did you mean {style(base, dict(given))}?")
    elif base in groups and not groups[base]:  # `A.b1[N=64]`: a fragment that is one map, not one per value
        hints.append(f"{base} takes no {', '.join(k for k, _ in given)}; name it {style(base, {})}")
    elif base not in groups and folded:
        hints.append(f"did you mean {_example(folded[0], groups[folded[0]], style, given)}?")
    elif base in groups and groups[base]:
        # the fragment exists, per parameter value: the value is missing or not one it has
        what = (f"{base} has no instance at {', '.join(f'{k}={v}' for k, v in given)}" if given
                else f"{base} is one fragment per value of {', '.join(groups[base])}")
        hints.append(f"{what}; name one, as in {_example(base, groups[base], style, given)}")
    else:
        operand, _, kind = base.partition(".")
        # `D.f32`: the type's name, where the document names the fragment after a family of types
        holders = [b for b in groups if kind and b.split(".")[0] == operand
                   and any(kind in row.types for f in spec.fragments() if split(f.id)[0] == b for row in f.table)]
        if holders:
            hints.append(f".{kind} is held by {' and '.join(holders)}" + "".join(
                f"; name a value of {', '.join(groups[b])}, as in {_example(b, groups[b], style, given)}"
                for b in holders[:1] if groups[b]))
        else:
            close = difflib.get_close_matches(base, list(groups), n=1, cutoff=0.6)
            if close:
                hints.append(f"did you mean {_example(close[0], groups[close[0]], style, given)}?")
    return f"{path} has no fragment {shown(fid)}. " + "".join(f"{h[0].upper()}{h[1:]}{'' if h.endswith('?') else '.'} "
                                                        for h in hints if h) + f"It has {listing(spec)}."
