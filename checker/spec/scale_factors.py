"""`scale_factors:` of an mma block-scaling spec (9.7.14.3) -> the model.

The document gives the scale factors in sentences, Tables 35-37 and Figures 43-45, no fragment
table: which lanes contribute SF_A / SF_B ("thread-pair satisfying: `%laneid` % 4 == 0 or 1
provides the SF_A"), which bytes of the register (byte-id), and the shape of scale_A / scale_B.
An entry is one .scale_vec of one operand; it becomes one Fragment per value of its thread
selector (thread-id-a, thread-id-b: Table 37), whose domain is the lanes that selector picks, so
that every property is proved of it by both engines over exactly those lanes. Element i of a lane
is SF element i, the register's byte byte-id + i.

The selector's lane condition is a formula (`lanes:`), in which the printed name thread-id-a is
written thread_id_a (a name of the formula language has no '-'); the loader evaluates it at every
lane for every value and holds it to the condition each `printed` quote of the document gives
(the residues mod 4 after "==": numbers, or the selector itself), as the lanes of an m8n8k4
computation are held to its printed ranges."""
from __future__ import annotations

import re

from checker.errors import SpecError
from checker.families import FAMILIES
from checker import source
from checker.spec import model, provenance

SELECTORS = {"SF_A": ("thread-id-a", "byte-id-a"), "SF_B": ("thread-id-b", "byte-id-b")}


def fragments(meaning, fr: dict, fpath: list, sec: dict, family: str) -> list:
    section, stated = sec["section"], tuple(sec.get("stated", ()))
    fam = FAMILIES[family]
    if fam.name != "mma.block_scale":
        raise SpecError(meaning.span(fpath, key=True), f"scale_factors: are for mma block-scaling specs, not {family}")
    op = fam.operand(fr["operand"])
    if op is None:
        raise SpecError(meaning.span(fpath + ["operand"]), f"{family} has no operand {fr['operand']}; its operands "
                        f"are {', '.join(o.name for o in fam.operands)}")
    if not fr["id"].startswith(fr["operand"] + "."):
        raise SpecError(meaning.span(fpath + ["id"]), f"{fr['id']} is a scale factor {fr['operand']}: its id starts "
                        f"with {fr['operand']}.")
    rows, cols = _shape(meaning, fr, fpath, op, stated)
    _stypes(meaning, fr, fpath, stated)
    per = fr["registers"]["per_register"]  # SF elements, one byte each; the count against the matrix is fragment-shape's
    thread_id, byte_id = SELECTORS[fr["operand"]]
    sel, spath = fr["selector"], fpath + ["selector"]
    if sel["name"] != thread_id:
        raise SpecError(meaning.span(spath + ["name"]), f"{fr['operand']}'s lanes are chosen by {thread_id}, not {sel['name']}")
    lanes = _lanes(meaning, sel, spath, stated)
    _bytes(meaning, fr, fpath, byte_id, per)
    x, rpath = fr["reading"], fpath + ["reading"]
    if x["figure"] not in fr["figures"]:
        raise SpecError(meaning.span(rpath + ["figure"]), f"{x['figure']} is not one of the entry's figures "
                        f"({', '.join(fr['figures'])})")
    standings = _standings(meaning, x, rpath, sel["values"], fr["id"])
    # the bytes the selector picks, as the value they are (CuTe passes a uint8, uint16 or uint32)
    kind = {1: "b8", 2: "b16", 4: "b32"}[per]
    row = model.TableRow(tuple(fr["stype"]), fr["operand_text"], 1, kind, per, meaning.stext(fpath + ["elements"]),
                         meaning.span(fpath), None, None, None, meaning.span(fpath + ["operand_text"]))
    out = []
    for v in sel["values"]:
        out.append(model.Fragment(
            id=f"{fr['id']}[{thread_id}={v}]", operand=fr["operand"], layout=None,
            header=source.plain(op.headers[0], meaning.span(fpath + ["stype"])), table=(row,),
            figures=tuple(fr["figures"]), caption=fr["caption"], formula=meaning.stext(rpath + ["formula"]),
            errata=(), section=section, computations=(), rows=rows, cols=cols, span=meaning.span(fpath),
            caption_span=meaning.span(fpath + ["caption"]), family=family, threads=fam.threads,
            params=((thread_id, v),), figure_reading=standings[v], lanes=lanes[v]))
    return out


def _shape(meaning, fr, fpath, op, stated) -> tuple:
    """rows x cols of scale_A (M x SFA_N) or scale_B (SFB_M x N): Table 35's cell for the entry's
    .scale_vec, which must be a stated row of that .scale_vec."""
    cell, at = fr["shape"], meaning.span(fpath + ["shape"])
    found = re.fullmatch(r"(M|[0-9]+) x (N|[0-9]+)", cell)
    dims = FAMILIES["mma.block_scale"].dims(meaning.doc.value["shape"], {})
    if found is None or (found.group(1) == "M") != (op.dims[0] == "m") or (found.group(2) == "N") != (op.dims[1] == "n"):
        raise SpecError(at, f"{fr['operand']}'s shape is Table 35's cell, {'M x SFA_N' if op.dims[0] == 'm' else 'SFB_M x N'} "
                        f"with the number written; found {cell!r}")
    vec = fr["scale_vec"]
    if not any(f"`{vec}`" in s and f"| {cell} |" in s for s in stated):
        raise SpecError(at, f"no stated row of Table 35 gives {cell} for `{vec}` (quote the row under stated:)")
    rows = dims["m"] if found.group(1) == "M" else int(found.group(1))
    cols = dims["n"] if found.group(2) == "N" else int(found.group(2))
    return rows, cols


def _stypes(meaning, fr, fpath, stated) -> None:
    """Each scale type is Table 36's for the entry's .scale_vec: a stated row of it names both."""
    vec = fr["scale_vec"]
    for k, t in enumerate(fr["stype"]):
        if not any(f"`.{t}`" in s and f"`{vec}`" in s for s in stated if s.startswith("|")):
            raise SpecError(meaning.span(fpath + ["stype", k]), f"no stated row of Table 36 gives .{t} with `{vec}` "
                            "(quote the row under stated:)")


def _lanes(meaning, sel, spath, stated) -> dict:
    """value -> the lanes the condition picks, held to the printed sentence's."""
    from checker.formula.evaluate import values as evaluate
    from checker.formula.parser import parse_expr

    name = sel["name"].replace("-", "_")
    src = meaning.stext(spath + ["lanes"])
    node = parse_expr(src)
    printed = sel["printed"]
    if len(printed) not in (1, len(sel["values"])):
        raise SpecError(meaning.span(spath + ["printed"]), "printed: one condition for every value, or one naming "
                        f"the selector for all ({len(sel['values'])} values, {len(printed)} given)")
    out = {}
    lanes = list(range(32))
    for k, v in enumerate(sel["values"]):
        text, at = printed[k if len(printed) > 1 else 0], spath + ["printed", k if len(printed) > 1 else 0]
        if not any(text in s for s in stated):
            raise SpecError(meaning.span(at), f"{text!r} is in no stated sentence of the section")
        said = re.fullmatch(r"`?%laneid`? % 4 == (.+?)", text.strip())
        residues = set()
        for part in (said.group(1).split(" or ") if said else ()):
            part = part.strip("` ")
            if part.isdigit():
                residues.add(int(part))
            elif part == sel["name"]:
                residues.add(v)
            else:
                residues = None
                break
        if not said or residues is None:
            raise SpecError(meaning.span(at), f"expected the sentence's condition, `%laneid` % 4 == <numbers or "
                            f"{sel['name']} joined by 'or'>; found {text!r}")
        try:
            picked = evaluate(node, {"lane": lanes, name: [v] * 32}, 32)
        except KeyError as exc:
            raise SpecError(src.span(0), f"unknown name {exc.args[0]!r} in the lane condition: it may name "
                            f"%laneid and {name} (the printed {sel['name']})") from None
        mine = tuple(lane for lane, hit in zip(lanes, picked) if hit)
        theirs = tuple(lane for lane in lanes if lane % 4 in residues)
        if mine != theirs:
            first = min(set(mine) ^ set(theirs))
            raise SpecError(src.span(0), f"at {sel['name']} = {v} the condition picks lanes {list(mine)[:8]}..., the "
                            f"printed sentence ({text!r}) lanes {list(theirs)[:8]}...: lane {first} is in "
                            f"{'the condition only' if first in mine else 'the sentence only'}")
        out[v] = mine
    return out


def _bytes(meaning, fr, fpath, byte_id, per) -> None:
    """Every byte-id value Table 37 allows selects `per` whole bytes of the 4-byte register: at
    .scale_vec::2X the lower or the upper pair, at 4X all four from 0."""
    for k, b in enumerate(fr["byte_id"]):
        if b % per or b + per > 4:
            raise SpecError(meaning.span(fpath + ["byte_id", k]), f"{byte_id} = {b} with {per} byte(s) a lane selects "
                            f"bytes {b}..{b + per - 1}, not {per} whole bytes of the 4-byte register")


def _standings(meaning, x, rpath, values, fid) -> dict:
    """value -> FigureReading: agreed (with its sources) at the values a source covers, extrapolated
    (none) at the others."""
    out = {}
    for k, st in enumerate(x["standings"]):
        at = rpath + ["standings", k]
        for v in st["values"]:
            if v not in values or v in out:
                raise SpecError(meaning.span(at + ["values"]), f"{v} is {'given a standing twice' if v in out else 'no value of the selector'}")
        reading = provenance.standing(meaning, st, at, fid, x["figure"])
        for v in st["values"]:
            out[v] = reading
    missing = [v for v in values if v not in out]
    if missing:
        raise SpecError(meaning.span(rpath + ["standings"]), f"no standing for {missing[0]}: every value is agreed or extrapolated")
    return out
