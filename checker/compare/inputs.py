"""A user's layout, read from the command line's inputs into a candidate
(checker.compare.candidates): a CuTe layout string, a Triton bases file, a CSV table, or a Python
function of the user's own module.

Files are untrusted: read bounded (checker.bounded), parsed as data (json, csv lines), every error
located at file:line:col and raised as a SpecError (exit 3). The Python function is the one input
that runs code: the user's own module, imported because the user asked for it on the command
line, called only over the fragment's domain (threads x elements, at most a few thousand calls).
"""
from __future__ import annotations

import json
import re

import checker.compare.candidates as candidates
from checker.bounded import shown
from checker.errors import SourceSpan, SpecError
from checker.families import FAMILIES
from checker.source import plain

MAX_FILE = 4 << 20
# JSON nesting of a bases file: Triton's bases are lists of [row, col] in an object, depth 3; json
# recurses per level and a file of 100,000 `[` raised RecursionError, so depth is counted first
MAX_DEPTH = 32
# a string (one left open runs to the end: its closing quote optional, so no start is tried twice --
# required, a file of `\"` had every quote scanned to the end, 2 MB taking hours), a bracket, a number
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]|-?[0-9]+')
MAX_DIGITS = 32  # json's int() refuses past 4300 digits with no position; no coordinate is near this
MAX_THREAD_BITS = 16  # lane and warp bases together: thread indices below candidates.MAX_COORD


def cute_tile(fragment) -> tuple:
    """(tile, transposed, names): CuTe's tile for a fragment. CuTe's A is M x K and C is M x N; an
    operand whose columns are N and rows not M (B, scale_B) it writes N x K: (row, col) is (col, row)."""
    rows, cols = FAMILIES[fragment.family].operand(fragment.operand).dims
    if cols == "n" and rows != "m":
        return (fragment.cols, fragment.rows), True, "N x K"
    return (fragment.rows, fragment.cols), False, "M x K" if fragment.operand == "A" else "M x N"


def cute(text: str, fragment, where: str = "--cute") -> candidates.Cute:
    import checker.compare.cute as cute_text

    layout = cute_text.parse(plain(text, SourceSpan(where, 1, 1)))
    tile, transposed, names = cute_tile(fragment)
    return candidates.Cute(layout, tile, transposed, names=names)


def _read(path: str) -> str:
    from checker.bounded import read_regular

    data = read_regular(path, MAX_FILE)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SpecError(SourceSpan(path, line, 1), "not UTF-8 text") from None


def _where(text: str, path: str, offset: int) -> SourceSpan:
    line = text.count("\n", 0, offset) + 1
    return SourceSpan(path, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


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


class _Twice(Exception):
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


def table(path: str) -> candidates.Table:
    """CSV `thread,i,row,col`, one entry a line; an optional header line of those four names, the
    first line that is neither blank nor a `#` comment (a file may open with a comment saying what
    it is)."""
    text = _read(path)
    entries: dict = {}
    lines: dict = {}  # (thread, i) -> the line that gave it, for the message when it comes again
    first = True
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header, first = first, False
        fields, at = [], 0
        for f in raw.split(","):
            fields.append((at, f))
            at += len(f) + 1
        if len(fields) != 4:
            raise SpecError(SourceSpan(path, n, 1), f"expected 4 fields (thread,i,row,col), found {len(fields)}")
        if header and [f.strip() for _, f in fields] == ["thread", "i", "row", "col"]:
            continue
        values = []
        for k, (at, f) in enumerate(fields):
            f = f.strip()
            if not re.fullmatch(r"[0-9]{1,6}", f) or int(f) >= candidates.MAX_COORD:
                what = ("thread", "i", "row", "col")[k]
                # a header of other names (`lane,i,row,col`) was answered as a bad number alone
                named = " (a header line, first, is exactly thread,i,row,col)" if header and not f.isdigit() else ""
                raise SpecError(SourceSpan(path, n, at + 1),
                                f"{what}: expected an integer in 0..{candidates.MAX_COORD - 1}, found {f!r}{named}")
            values.append(int(f))
        t, i, r, c = values
        lines.setdefault((t, i), n)
        if (t, i) in entries:
            raise SpecError(SourceSpan(path, n, 1), f"thread {t}, i {i} is given twice (first at line {lines[(t, i)]})")
        if len(entries) >= candidates.MAX_TABLE:
            raise SpecError(SourceSpan(path, n, 1), f"more than {candidates.MAX_TABLE} entries (a fragment "
                            "holds at most 16,384 points)")
        entries[(t, i)] = (r, c)
    if not entries:
        raise SpecError(SourceSpan(path, 1, 1), "no entries: expected lines thread,i,row,col")
    return candidates.Table(entries, f"the table {path}")


def function(target: str):
    """MODULE:FUNCTION -> the function. MODULE is a dotted name importable from the current
    directory, or a path to a .py file. This imports and runs the user's own code, on request."""
    import importlib
    import importlib.util
    import os
    import sys

    module, sep, name = target.rpartition(":")
    if not sep or not module or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        from checker.errors import UsageError

        raise UsageError(f"--python takes MODULE:FUNCTION (a module name or a .py file, then a function name), "
                         f"found {target!r}")
    source = module if module.endswith(".py") or os.sep in module else None  # the file that runs, once known
    try:
        if source is not None:
            mod = _load_file(module, module)
        else:
            sys.path.insert(0, os.getcwd())
            try:
                # a module name is found as the import system finds it, and its source read as a
                # file is: bounded (a FIFO or a link to /dev/zero named x.py hung or grew without end)
                found = importlib.util.find_spec(module)
                origin = getattr(found, "origin", None)
                if (found is not None and isinstance(origin, str) and origin.endswith(".py")
                        and found.submodule_search_locations is None):  # a package: the import system's
                    source = origin
                    mod = _load_file(origin, module)
                else:
                    mod = importlib.import_module(module)
            finally:
                sys.path.pop(0)
    except (SpecError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: BLE001 - the user's module failing to import is an input error, located
        at = _raised_at(exc, source, SourceSpan(source or module, 1, 1))
        raise SpecError(at, f"importing it failed: {type(exc).__name__}: {exc}") from None
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise SpecError(SourceSpan(module, 1, 1), f"has no function {name!r}")
    return fn


def _load_file(path: str, name: str):
    """The user's module from its .py file: the source read as every input is (a regular file, at
    most MAX_FILE bytes), compiled from the bytes read, a syntax error located at its line and
    column, then run: the user's own code, which they asked for on the command line."""
    import sys
    import types

    from checker.bounded import read_regular

    data = read_regular(path, MAX_FILE, "module")
    try:
        code = compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        # an encoding Python does not know is a SyntaxError at offset -1
        at = SourceSpan(path, max(1, exc.lineno or 1), max(1, exc.offset or 1))
        raise SpecError(at, f"not Python: {exc.msg}") from None
    except ValueError as exc:  # a NUL byte, or a source encoding Python does not know
        raise SpecError(SourceSpan(path, 1, 1), f"not Python: {exc}") from None
    mod = types.ModuleType("_checker_user_layout" if name == path else name)
    mod.__file__, mod.__package__ = path, ("" if name == path else name.rpartition(".")[0])
    sys.modules[mod.__name__] = mod  # as an import does: a dataclass in it looks its module up there
    exec(code, mod.__dict__)  # noqa: S102 - the user's own module, run on their request (docs/references.md)
    return mod


def from_function(fn, threads: int, elements: int, source: str) -> candidates.Table:
    """The function over the fragment's domain, as a table; None from it means "holds nothing"."""
    code = _code_of(fn)
    at = SourceSpan(code.co_filename, code.co_firstlineno, 1) if code is not None else _home(fn, source)
    entries = {}
    for t in range(threads):
        for i in range(elements):
            try:
                got = fn(t, i)
                cell = None if got is None else _cell(got)  # the value's own __len__ or __index__ run here
            except KeyboardInterrupt:
                raise  # the run ends (exit 130)
            # the user's code: anything it raises is reported, located at the point -- SystemExit
            # ended the checker with its own exit code, GeneratorExit and BaseException with a traceback
            except BaseException as exc:  # noqa: BLE001
                where = _raised_at(exc, code.co_filename, at) if code is not None else at
                raise SpecError(where, f"{source}({t}, {i}) raised {type(exc).__name__}: {exc}") from None
            if got is None:
                continue
            if cell is None:
                raise SpecError(at, f"{source}({t}, {i}) returned {str(got)[:60]!r}; expected (row, col), two "
                                f"integers in 0..{candidates.MAX_COORD - 1}, or None")
            entries[(t, i)] = cell
    return candidates.Table(entries, f"the function {source}")


def _code_of(fn):
    """The code that runs when fn is called: a function's own, a callable object's __call__, a
    functools.partial's function (each of them the user's, where a location is theirs to read)."""
    import types

    for candidate in (fn, getattr(type(fn), "__call__", None), getattr(fn, "func", None)):
        code = getattr(candidate, "__code__", None)
        if isinstance(code, types.CodeType):
            return code
    return None


def _home(fn, source: str) -> SourceSpan:
    """Where to say a function without Python code of its own (a builtin such as math.gcd) is:
    its module's file where it has one, else the name it was given by."""
    import sys

    name = getattr(fn, "__module__", None)
    path = getattr(sys.modules.get(name if isinstance(name, str) else ""), "__file__", None)
    return SourceSpan(path if isinstance(path, str) else f"--python {name}:{source}"[:200], 1, 1)


def _raised_at(exc, filename, default):
    """The line of the user's file where `exc` was raised (the innermost frame in it), or
    `default`: the line that failed, not only the function's first line."""
    if filename is None:
        return default
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return default if line is None else SourceSpan(filename, line, 1)


def _cell(got):
    """(row, col) from what a user's function returned (ints, numpy integers), or None if it is not one."""
    import operator

    if not isinstance(got, (tuple, list)) or len(got) != 2 or any(isinstance(x, bool) for x in got):
        return None
    try:
        r, c = operator.index(got[0]), operator.index(got[1])
    except TypeError:
        return None
    return (r, c) if 0 <= r < candidates.MAX_COORD and 0 <= c < candidates.MAX_COORD else None
