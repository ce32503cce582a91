"""Triton linear-layout bases over (row, col), read from a user's file as data: a JSON object
(register/lane/warp or Triton's reg_bases/lane_bases/warp_bases) or the text `checker export --to
triton` writes. Every error is located at file:line:col and raised as a SpecError (exit 3)."""
from __future__ import annotations

import json
import re

import checker.compare.candidates as candidates
from checker.bounded import shown
from checker.compare.textfile import read as _read
from checker.compare.textfile import where as _where
from checker.errors import CheckerError, SourceSpan, SpecError

# JSON nesting of a bases file: Triton's bases are lists of [row, col] in an object, depth 3; json
# recurses per level and a file of 100,000 `[` raised RecursionError, so depth is counted first
MAX_DEPTH = 32
# a string (one left open runs to the end: its closing quote optional, so no start is tried twice --
# required, a file of `\"` had every quote scanned to the end, 2 MB taking hours), a bracket, a number
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]|-?[0-9]+')
MAX_DIGITS = 32  # json's int() refuses past 4300 digits with no position; no coordinate is near this
MAX_THREAD_BITS = 16  # lane and warp bases together: thread indices below candidates.MAX_COORD

_KEYS = {"register": ("register", "reg_bases"), "lane": ("lane", "lane_bases"), "warp": ("warp", "warp_bases"),
         "block": ("block", "block_bases")}


def _json(text: str, path: str, start: int, end: int):
    """json.loads of text[start:end], its nesting counted before it is parsed (strings skipped,
    their brackets are not nesting); a ValueError of json's, or a SpecError located at the bracket
    that goes past MAX_DEPTH."""
    depth = 0
    for m in _JSON_TOKENS.finditer(text, start, end):
        ch = m.group()
        if len(ch) > MAX_DIGITS and ch[0] != '"':
            raise SpecError(_where(text, path, m.start()), f"a number of more than {MAX_DIGITS} digits")
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise SpecError(_where(text, path, m.start()), f"JSON nested more than {MAX_DEPTH} deep")
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text[start:end], object_pairs_hook=_unique)
    except _Twice as twice:  # json keeps the last of two; the user meant one of them
        at = text.find(json.dumps(twice.key), text.find(json.dumps(twice.key), start, end) + 1, end)
        raise SpecError(_where(text, path, max(at, start)), f"key {twice.key!r} is given twice") from None


class _Twice(CheckerError):
    """A key given twice in one JSON object: caught above, where its place in the text is found."""

    def __init__(self, key):
        self.key = key


def _unique(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _Twice(k)
        out[k] = v
    return out


def _export_text(text: str, path: str) -> tuple:
    """The `layout = dict(reg_bases=[...], ...)` that `checker export --to triton` writes, read as
    data: one `name=[JSON]` per line, comments and the dict( ) lines skipped."""
    out, offsets = {}, {}
    pos = 0
    for raw in text.split("\n"):
        line = raw.split("#", 1)[0].rstrip()
        m = re.fullmatch(r"\s*(\w+)\s*=\s*(.*?),?\s*", line)
        if line.strip() in ("", ")") or re.fullmatch(r"\s*layout\s*=\s*dict\(\s*", line):
            pass
        elif m is None:
            raise SpecError(_where(text, path, pos), "expected `name=[...]` (the export's form) or a JSON object")
        else:
            start = pos + m.start(2)
            if m.group(1) in out:
                raise SpecError(_where(text, path, pos + m.start(1)), f"{m.group(1)} is given twice")
            try:
                out[m.group(1)] = _json(text, path, start, pos + m.end(2))
            except ValueError as exc:
                raise SpecError(_where(text, path, start + getattr(exc, "pos", 0)),
                                f"{m.group(1)}: not a list of [row, col] bases") from None
            offsets[m.group(1)] = pos + m.start(1)
        pos += len(raw) + 1
    return out, offsets


def triton(path: str, fragment=None) -> candidates.Bases:
    """Linear-layout bases over (row, col): a JSON object with register/lane/warp (or Triton's
    reg_bases/lane_bases/warp_bases/block_bases), or the text `checker export --to triton` writes.
    `shape` and `out_dims`, where given, must say what the bases are read as (the fragment's rows
    and cols, in that order): they were accepted and ignored, so bases given as (col, row) with
    `out_dims: [col, row]` were proved equal read as (row, col)."""
    text = _read(path)
    if text.lstrip().startswith("{"):
        try:
            obj = _json(text, path, 0, len(text))
        except ValueError as exc:
            raise SpecError(_where(text, path, getattr(exc, "pos", 0)), f"not JSON: {getattr(exc, 'msg', exc)}") from None
        offsets = None  # each key where it is written, found once asked (an object of 200,000 keys
        #                 searched the text once for each: minutes)
    else:
        obj, offsets = _export_text(text, path)
    if not isinstance(obj, dict):
        raise SpecError(SourceSpan(path, 1, 1), "expected an object of bases: register, lane, warp")
    known = {k for names in _KEYS.values() for k in names} | {"shape", "out_dims"}
    unknown = next((k for k in obj if k not in known), None)
    if offsets is None:
        offsets = {k: _key_at(text, k) for k in known | {unknown} if k in obj}
    if unknown is not None:
        raise SpecError(_where(text, path, offsets[unknown]), f"unknown key {shown(unknown)}; expected "
                        "register/reg_bases, lane/lane_bases, warp/warp_bases, block/block_bases, shape")
    _read_as(obj, text, path, offsets, fragment)
    bases = {}
    for dim, names in _KEYS.items():
        given = [n for n in names if n in obj]
        if len(given) > 1:
            raise SpecError(_where(text, path, offsets.get(given[1], 0)), f"{dim} bases are given twice")
        key = given[0] if given else None
        bases[dim] = _bases(obj[key], text, path, offsets.get(key, 0), key) if key else ()
    if "lane" not in [d for d, names in _KEYS.items() if any(n in obj for n in names)]:
        raise SpecError(SourceSpan(path, 1, 1), "no lane bases (lane or lane_bases)")
    if len(bases["lane"]) + len(bases["warp"]) > MAX_THREAD_BITS:
        # z3 reads the thread index as 32 bits and compare searches thread indices below 2**16
        key = next((n for n in _KEYS["warp"] if n in obj), next(n for n in _KEYS["lane"] if n in obj))
        raise SpecError(_where(text, path, offsets.get(key, 0)), f"{len(bases['lane'])} lane and {len(bases['warp'])} "
                        f"warp bases: a thread index of more than {MAX_THREAD_BITS} bits")
    if bases["block"]:
        raise SpecError(_where(text, path, offsets.get("block_bases", offsets.get("block", 0))),
                        "block bases: a fragment is held within one block; give none")
    return candidates.Bases(bases["register"], bases["lane"] + bases["warp"], len(bases["lane"]))


def _key_at(text: str, key: str) -> int:
    """Where a key of the object is written: as itself ("régister") or escaped ("r\\u00e9gister"), the
    form json.dumps gives; the text's start where it is written otherwise (escapes of plain letters)."""
    found = [i for i in (text.find(json.dumps(key, ensure_ascii=False)), text.find(json.dumps(key))) if i >= 0]
    return min(found, default=0)


def _read_as(obj: dict, text: str, path: str, offsets: dict, fragment) -> None:
    """`out_dims` and `shape` agree with how the bases are read, or a located SpecError."""
    if "out_dims" in obj and obj["out_dims"] not in (["row", "col"], ["dim0", "dim1"]):
        raise SpecError(_where(text, path, offsets.get("out_dims", 0)),
                        f"out_dims: the bases are read as (row, col), Triton's (dim0, dim1); found "
                        f"{json.dumps(obj['out_dims'])[:40]}")
    if "shape" not in obj:
        return
    shape = obj["shape"]
    if not (isinstance(shape, list) and len(shape) == 2 and all(type(x) is int and x > 0 for x in shape)):
        raise SpecError(_where(text, path, offsets.get("shape", 0)),
                        f"shape: expected [rows, cols], two positive integers, found {json.dumps(shape)[:40]}")
    if fragment is not None and shape != [fragment.rows, fragment.cols]:
        raise SpecError(_where(text, path, offsets.get("shape", 0)),
                        f"shape: {json.dumps(shape)} is not {fragment.id}'s [{fragment.rows}, {fragment.cols}] "
                        "(rows, cols)")


def _bases(value, text, path, offset, key) -> tuple:
    at = _where(text, path, offset)
    if not isinstance(value, list) or len(value) > candidates.MAX_BASES:
        raise SpecError(at, f"{key}: expected a list of at most {candidates.MAX_BASES} [row, col] bases")
    out = []
    for k, b in enumerate(value):
        if (not isinstance(b, list) or len(b) != 2 or not all(type(x) is int and 0 <= x < candidates.MAX_COORD
                                                              for x in b)):
            raise SpecError(at, f"{key}[{k}]: expected [row, col], two integers in 0..{candidates.MAX_COORD - 1}, "
                            f"found {json.dumps(b)[:40]}")
        out.append((b[0], b[1]))
    return tuple(out)
