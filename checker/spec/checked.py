"""The one gate a spec passes before any command uses it: what `checker validate` checks.

Loading (checker/spec/load.py) checks the structure and the file's own meaning; a formula, an
element list or an erratum's printed text is only parsed, lowered and bounded when its fragment
is read. A command that read one fragment (where, eval, export, table), the fragments something
else names (conformance's reference entries, diff's moved entries) or none (simulate's list,
probe --compile-only) would otherwise exit 0 on a spec that validate refuses with exit 3, and
`checker.load` would answer from it. `checker prove` is the exception (and `errata`, which
proves): it reads every fragment itself and reports each failure as that fragment's located
result (checker/loading.py). `report` proves too, but draws pages from the specs it is given,
so it gates them first (checker/commands/common.py `gate`).
"""
from __future__ import annotations

from checker.bounded import shown
from checker.errors import SpecError
from checker.spec.model import named_types


def check(spec) -> None:
    """Every fragment's reading, and each erratum's printed text, read as validate reads them: a
    located SpecError for the first that fails. (A printed text that does not parse is no error:
    that is what a `syntax` erratum declares, and the proof checks it.) And each `same_as` name
    a fragment of its operand in the spec of its shape beside, where that spec loads."""
    from checker.spec.reading import materialize  # here: loading a spec must not import lark

    for frag in spec.fragments():
        reading = materialize(frag)
        for erratum in frag.errata:
            materialize(frag, erratum, reading.n)
    if any(sec.same_as for sec in spec.sections):
        resolve = beside(spec.path)
        for sec in spec.sections:
            for same in sec.same_as:
                for where, why in unresolved(same, resolve, spec):
                    raise SpecError(where, why)


def unresolved(same, resolve, spec=None) -> list:
    """(where, why) of each name in a same_as list that is not a fragment of the operands it is
    given for, in a spec of its shape that loads (`resolve`: shape -> its Spec, or None, as
    checker/theorems/same_as.py's referee gives). The list is the spec's own words, not the
    document's, so each is a located spec error, in validate as in prove. A shape with no spec
    beside is not among them: a spec copied alone still reads, and prove says what is missing."""
    out, covered, resolved = [], set(), 0
    named = named_shape(same)
    for k, ref in enumerate(same.fragments):
        shape, fid = ref.split("/", 1)
        if ref in same.fragments[:k]:  # a name given twice says nothing more, but looks like two
            where = same.fragment_spans[k] if k < len(same.fragment_spans) else same.span
            out.append((where, f"{shown(ref, 60, False)} is named twice"))
            continue
        if named is not None and shape != named:
            # the sentence names the section it points to: a fragment of another shape is not
            # the one it means, however alike their operands (m16n8k64's C is 16x8 like m16n8k8's)
            where = same.fragment_spans[k] if k < len(same.fragment_spans) else same.span
            out.append((where, f"{shown(ref, 60, False)}: the sentence names the fragments of {named}, "
                               f"not of {shown(shape, 40, False)}"))
            continue
        other = resolve(shape)
        if other is None:
            continue
        if spec is not None and spec.parameters and other.parameters and spec.parameters != other.parameters:
            # a parametric fragment named for all its N (the sparse wgmma's D) is the same at
            # every N of this spec only where both give the same N
            (name, mine), (_, theirs) = spec.parameters[0], other.parameters[0]
            diff = sorted(set(mine) ^ set(theirs))
            out.append((spec.parameters_span or same.span,
                        f"{name} = {diff[0]} is a value of {'this spec' if diff[0] in mine else shape}'s parameter "
                        f"but not of {shape if diff[0] in mine else 'this spec'}'s, whose {shown(ref, 60, False)} "
                        "this section is the same as"))
            continue
        frag = other.fragment(fid)
        if frag is None:  # a parametric fragment (wgmma D) named for all its N
            frag = next((f for f in other.fragments() if f.id.startswith(fid + "[")), None)
        where = same.fragment_spans[k] if k < len(same.fragment_spans) else same.span
        if frag is None:
            ids = ", ".join(dict.fromkeys(f.id.split("[")[0] for f in other.fragments()))
            out.append((where, f"{shown(ref, 60, False)}: expected a fragment of {shape} ({shown(ids, 200, False)}), "
                               f"found none named {shown(fid, 40)}"))
        elif frag.operand not in same.operands:
            out.append((where, f"{shown(ref, 60, False)}: expected a fragment of operand "
                               f"{' or '.join(same.operands)}, found operand {frag.operand}"))
        elif (why := _other_section(same, other, fid)) is not None:
            out.append((where, f"{shown(ref, 60, False)}: {why}"))
        elif (why := _other_types(same, spec, frag)) is not None:
            out.append((where, f"{shown(ref, 60, False)}: {why}"))
        else:
            covered.add(frag.operand)
            resolved += 1
    if not out and resolved == len(same.fragments):
        # every name resolved: the sentence's operands each need one (a name dropped from the
        # list leaves an operand the section says is "the same as" with nothing it is the same as)
        left = [op for op in same.operands if op not in covered]
        if left:
            where = same.fragment_spans[-1] if same.fragment_spans else same.span
            out.append((where, f"operand {left[0]} is given for {', '.join(same.operands)}, but no fragment of "
                               f"{left[0]} is named"))
    return out


def _words(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def _other_section(same, other, fid: str) -> str | None:
    """Why fragment `fid` of spec `other` is not in the section the sentence names, or None. The
    sentence names a section by its title ("... mma.m16n8k16 with floating point type"): the one
    whose title it holds, the longest where several do (a title "mma.m16n8k16" would be held by
    "mma.m16n8k16 with integer type" too). m16n8k16 has a C of each: the shape alone let
    `m16n8k16/C.int` stand where the sentence says floating point."""
    text = _words(sentence(same))
    held = [sec for sec in other.sections if _words(sec.title) in text]
    if not held:
        return f"the sentence names no section of {other.shape} by its title"
    named = max(held, key=lambda sec: len(_words(sec.title)))
    ids = {f.id.split("[")[0] for f in (*named.fragments, *named.figures_only)}
    if fid in ids:
        return None
    return (f"the sentence names the section {shown(named.title, 80)} of {other.shape}, which has no {fid} "
            f"({shown(', '.join(sorted(ids)), 120, False)})")


def _other_types(same, spec, frag) -> str | None:
    """Why multiplicand fragment `frag` cannot be the one a "same as" sentence means, or None. The
    sparse section's own A gives the types the mma.sp has (its .atype and .btype are the same
    kind), and its B "the same as" a fragment of another section is that section's B of those
    types: m16n8k32's "same as in case of Matrix Fragments for mma.m16n8k32" has a B of .s4/.u4
    and one of .u8/.s8, and the shape and the section alone let the .s4/.u4 one stand for the
    sparse .u8/.s8 mma."""
    if spec is None or frag.operand != "B":
        return None
    if named_types(same.printed or ""):
        return None  # a sentence that names types: the words theorem holds the name to them (at the name, refuted)
    sec = next((sec for sec in spec.sections if any(x is same for x in sec.same_as)), None)
    own = {t for f in (sec.fragments if sec is not None else ()) if f.operand == "A" for row in f.table for t in row.types}
    theirs = {t for row in frag.table for t in row.types}
    lacking = sorted(own - theirs)
    if not own or not lacking:
        return None
    return (f"the section's A has {', '.join('.' + t for t in sorted(own))}, but {frag.id} has no row of "
            f"{', '.join('.' + t for t in lacking)} (its types: {', '.join('.' + t for t in sorted(theirs))}): the B "
            "the sentence means is the one of the section's types")


def sentence(same) -> str:
    """A "same as" sentence with its errata's readings in place."""
    text = same.printed
    for e in same.errata:
        if e.printed:
            text = text.replace(e.printed, e.value.text, 1)
    return text


def named_shape(same) -> str | None:
    """The shape a "same as" sentence names ("... the same as in case of Matrix Fragments for
    mma.m16n8k16 ..."), its errata's readings in place; None where it names none."""
    import re

    text = sentence(same)
    m = re.search(r"Matrix Fragments for (?:wgmma\.mma_async|mma)\.(m\w+?)\.?(?:\s|$)", text, re.I)
    return m.group(1) if m else None


def beside(path: str, load_one=None):
    """shape -> the spec of that shape in the file beside `path`, read once; None where there is
    none or it does not load (its own errors are its own: validating it says them). `load_one`:
    how a file is read (prove's: checker/loading.py, whose errors are results)."""
    import os

    from checker import recording

    found: dict = {}

    def resolve(shape):
        if shape not in found:
            sibling = os.path.join(os.path.dirname(path), f"{shape}.yaml")
            found[shape] = (load_one or _load_or_none)(sibling) if recording.isfile(sibling) else None
        return found[shape]
    return resolve


def _load_or_none(path: str):
    from checker.spec.load import load_spec

    try:
        return load_spec(path)
    except SpecError:
        return None


def load_checked(path: str, data: bytes | None = None, written=None):
    """The spec of the file at `path`, through the gate (`written`: the file as yamlload read it)."""
    from checker.spec.load import load_spec

    spec = load_spec(path, data, written)
    check(spec)
    return spec
