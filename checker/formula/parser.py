"""Parse formula blocks and element lists with lark (LALR); never evaluates anything."""
from __future__ import annotations

import functools
import hashlib
import json
from importlib import resources

import lark
from lark import Lark, Token, Tree

from checker.bounded import MAX_ELEMENTS, shown
from checker.errors import SpecError
from checker.formula import ast
from checker.spec.text import SourceText

MAX_TEXT = 4096
MAX_DEPTH = 48
MAX_LITERAL = 1 << 24


# The LALR tables of both grammars are built when the package is built, not when it runs: lark's
# own cache is a pickle in the user's cache folder, and unpickling a file that someone else could
# have written (a CI cache restored from another job) runs whatever it says. The tables are
# package data (`formula.tables.json`, `elements.tables.json`), JSON read with json and turned into
# lark's objects by lark's deserializer, which instantiates only the classes its namespaces name
# (Rule, TerminalDef, ...; `_deserialize` in lark/utils.py looks each `__type__` up in a dict and
# raises KeyError on any other name). A test regenerates them and requires identical bytes; a
# table written by another lark version or for another grammar is not used (the parser is built
# in memory instead, ~20-60 ms).
_FORMAT = "ptx-fragment-checker/lark-tables/1"
_OPTIONS = {
    "formula": dict(start=["start", "lone"], parser="lalr", lexer="contextual", propagate_positions=True,
                    maybe_placeholders=False),
    "elements": dict(parser="lalr", lexer="contextual"),
}
_ELEMENTS_GRAMMAR = r"""
start: item ("," item)*
?item: NAME | ELLIPSIS
NAME: /[a-zA-Z][0-9]+/
ELLIPSIS: "..." | "…"
%ignore /[ \t\r\n]+/
"""


def _grammar(name: str) -> str:
    if name == "elements":
        return _ELEMENTS_GRAMMAR
    return resources.files("checker.formula").joinpath("formula.lark").read_text(encoding="utf-8")


def _encode(x):
    """lark's serialized tables as JSON: dicts keyed by integers and tuples are tagged so that
    decoding gives back exactly what lark wrote."""
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            assert not any(k.startswith("$") for k in x), "a key that collides with the tags"
            return {k: _encode(v) for k, v in x.items()}
        assert all(type(k) is int for k in x), "dict keys are str or int"
        return {"$int_keys": [[k, _encode(v)] for k, v in sorted(x.items())]}
    if isinstance(x, tuple):
        return {"$tuple": [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    assert x is None or isinstance(x, (str, int, float, bool)), type(x)
    return x


def _decode(obj: dict):
    if len(obj) == 1:
        if "$int_keys" in obj:
            return {int(k): v for k, v in obj["$int_keys"]}
        if "$tuple" in obj:
            return tuple(obj["$tuple"])
    return obj


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tables_text(name: str) -> str:
    """The JSON the package ships for grammar `name`, built now from the grammar (what
    `python -m checker.formula.parser --write` writes and the test compares)."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    grammar = _grammar(name)
    data, memo = Lark(grammar, **_OPTIONS[name]).memo_serialize([TerminalDef, Rule])
    _canonical(data["parser"]["parser"])
    doc = {"format": _FORMAT, "lark": lark.__version__, "grammar_sha256": _sha(grammar), "data": data, "memo": memo}
    return json.dumps(_encode(doc), sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"


def _canonical(table: dict) -> None:
    """Number the parse table's tokens and states in one order whatever the build: lark numbers
    them in the order its analysis met them, which differs from process to process (an identity
    hash somewhere), and the shipped file must be the same bytes on every rebuild. Tokens go by
    name; states breadth first from the start states (by start name), each state's shifts by
    token name."""
    tokens, states = table["tokens"], table["states"]
    token_order = sorted(tokens.values())
    new_token = {old: token_order.index(name) for old, name in tokens.items()}
    order, seen = [], set()
    queue = [table["start_states"][s] for s in sorted(table["start_states"])]
    queue += [table["end_states"][s] for s in sorted(table["end_states"])]
    while queue:
        state = queue.pop(0)
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        for tok in sorted(states[state], key=lambda t: tokens[t]):
            action, arg = states[state][tok]
            if action == 0:
                queue.append(arg)
    order += [s for s in sorted(states) if s not in seen]
    new_state = {old: k for k, old in enumerate(order)}
    table["tokens"] = {k: name for k, name in enumerate(token_order)}
    table["states"] = {new_state[old]: {new_token[t]: ((0, new_state[arg]) if action == 0 else (action, arg))
                                        for t, (action, arg) in sorted(states[old].items(),
                                                                       key=lambda x: tokens[x[0]])}
                       for old in order}
    for ends in ("start_states", "end_states"):
        table[ends] = {s: new_state[v] for s, v in sorted(table[ends].items())}


def tables_file(name: str) -> str:
    return f"{name}.tables.json"


# the options lark lets a loaded parser take: all given here, so none of them comes from the file
_LOAD_OPTIONS = dict(postlex=None, transformer=None, lexer_callbacks={}, tree_class=None, use_bytes=False,
                     debug=False, g_regex_flags=0, regex=False, _plugins={})


def _lark(name: str) -> Lark:
    """Loading the shipped tables takes a millisecond or two; building them, tens."""
    grammar = _grammar(name)
    try:
        text = resources.files("checker.formula").joinpath(tables_file(name)).read_text(encoding="utf-8")
        doc = json.loads(text, object_hook=_decode)
        if (isinstance(doc, dict) and doc.get("format") == _FORMAT and doc.get("lark") == lark.__version__
                and doc.get("grammar_sha256") == _sha(grammar)):
            return Lark._load_from_dict(doc["data"], doc["memo"], **_LOAD_OPTIONS,
                                        propagate_positions=_OPTIONS[name].get("propagate_positions", False))
    except Exception:  # noqa: BLE001 - missing or unusable tables cost a build, never a proof
        pass
    return Lark(grammar, **_OPTIONS[name])


@functools.lru_cache(maxsize=None)
def _parser() -> Lark:
    return _lark("formula")


@functools.lru_cache(maxsize=None)
def _elements_parser() -> Lark:
    return _lark("elements")


def _describe(token) -> str:
    if token is None or getattr(token, "type", "") == "$END":
        return "end of text"
    if getattr(token, "type", "") == "_NL":
        return "end of line"
    return repr(str(token))


_PRETTY = {"RPAR": "')'", "LPAR": "'('", "_NL": "end of line", "NAME": "a name",
           "NUMBER": "a number", "LANEID": "%laneid", "OTHERWISE": "'otherwise'"}


def _expected(names) -> str:
    shown = sorted(_PRETTY.get(n, n.lower()) for n in names)
    return ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")


def _raise(src: SourceText, exc: Exception, what: str):
    if isinstance(exc, lark.UnexpectedToken):
        tok = exc.token
        off = tok.start_pos if getattr(tok, "start_pos", None) is not None else len(src.text)
        msg = f"cannot parse {what}: unexpected {_describe(tok)}, expected {_expected(exc.expected)}"
        raise SpecError(src.span(off), msg) from None
    if isinstance(exc, lark.UnexpectedCharacters):
        msg = f"cannot parse {what}: unexpected character {exc.char!r}"
        raise SpecError(src.span(exc.pos_in_stream), msg) from None
    if isinstance(exc, lark.UnexpectedEOF):
        raise SpecError(src.span(len(src.text)), f"cannot parse {what}: unexpected end of text") from None
    raise SpecError(src.span(0), f"cannot parse {what}: {type(exc).__name__}") from None


def _number(tok: Token, src: SourceText) -> ast.Num:
    text = str(tok)
    if len(text) > 26:
        raise SpecError(src.span(tok.start_pos), f"literal {text[:20]}... is too long")
    low = text.lower()
    value = int(low[2:], 16) if low.startswith("0x") else int(low[2:], 2) if low.startswith("0b") else int(low, 10)
    if value > MAX_LITERAL:
        raise SpecError(src.span(tok.start_pos), f"literal {text} exceeds the bound {MAX_LITERAL}")
    return ast.Num(value, text, tok.start_pos)


_PARSED: dict = {}
_PARSED_MAX = 4096


def _memo(kind: str, parse):
    """A parse depends only on the text: AST nodes keep offsets into it, not file positions. So
    a text parsed once (the same element list in many tables, the same relation side in many
    equations) is not parsed again in this process. Failures are not kept: each is raised with
    its own file position."""
    def parse_once(src: SourceText):
        key = (kind, src.text)
        hit = _PARSED.get(key)
        if hit is None:
            hit = parse(src)
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()  # a mutation campaign parses thousands of texts: stay bounded
            _PARSED[key] = hit
        return hit
    parse_once.__doc__ = parse.__doc__
    return parse_once


def _parse_block(src: SourceText) -> ast.Block:
    if len(src.text) > MAX_TEXT:
        raise SpecError(src.span(0), f"formula block longer than {MAX_TEXT} characters")
    try:
        tree = _parser().parse(src.text + "\n", start="start")
    except lark.exceptions.LarkError as exc:
        _raise(src, exc, "formula")
    return _Build(src).block(tree)


def _parse_expr(src: SourceText):
    """One expression of the formula notation (relations use it), with the same bounds."""
    if len(src.text) > MAX_TEXT:
        raise SpecError(src.span(0), f"expression longer than {MAX_TEXT} characters")
    try:
        tree = _parser().parse(src.text, start="lone")
    except lark.exceptions.LarkError as exc:
        _raise(src, exc, "expression")
    return _Build(src).expr(tree.children[0])


def _parse_elements(src: SourceText) -> tuple:
    """`a0, a1, …, a126, a127` -> ('a0', ..., 'a127'); a range is filled in only where both ends
    are written as in the document (two names before the ellipsis, the last after it)."""
    if len(src.text) > MAX_TEXT:
        raise SpecError(src.span(0), f"element list longer than {MAX_TEXT} characters")
    try:
        tree = _elements_parser().parse(src.text)
    except lark.exceptions.LarkError as exc:
        _raise(src, exc, "element list")
    items = [str(t) for t in tree.children]
    out: list[str] = []
    for k, item in enumerate(items):
        if item.strip(".…") != "":
            out.append(item)
            continue
        if k < 2 or k + 1 >= len(items) or items[k + 1].strip(".…") == "":
            raise SpecError(src.span(0), "an ellipsis must stand between two named elements and a following one")
        prev, nxt = out[-1], items[k + 1]
        letter, lo, hi = prev[0], int(prev[1:]), int(nxt[1:])
        step = lo - int(out[-2][1:])
        if nxt[0] != letter or step != 1 or hi <= lo:
            raise SpecError(src.span(0), f"cannot expand the ellipsis between {shown(prev, 24, False)} and "
                            f"{shown(nxt, 24, False)}")
        # counted before expanding: many short ellipses must not build a huge list
        if len(out) + (hi - lo - 1) + (len(items) - k - 1) > MAX_ELEMENTS:
            raise SpecError(src.span(0), f"element list expands to more than {MAX_ELEMENTS} elements")
        out.extend(f"{letter}{n}" for n in range(lo + 1, hi))
    if len(out) > MAX_ELEMENTS:
        raise SpecError(src.span(0), f"element list expands to more than {MAX_ELEMENTS} elements")
    return tuple(out)


parse_block = _memo("block", _parse_block)
parse_expr = _memo("expr", _parse_expr)
_elements = _memo("elements", _parse_elements)


def parse_elements(src: SourceText) -> list[str]:
    """`a0, a1, …, a126, a127` -> ['a0', ..., 'a127'] (a list of its own: callers may keep it)."""
    return list(_elements(src))


class _Build:
    """Lark tree -> AST, iteratively, with a depth bound (formulas come from pull requests)."""

    def __init__(self, src: SourceText):
        self.src = src

    def block(self, tree: Tree) -> ast.Block:
        defs, assigns, column_range = [], [], None
        for stmt in tree.children:
            if stmt.data == "range_assignment":
                column_range = self.column_range(stmt)
            elif stmt.data == "definition":
                head, expr = stmt.children
                defs.append(ast.Definition(_head_name(head), self.expr(expr), None, head.start_pos))
            else:
                head, *rest = stmt.children
                pieces = tuple(self.piece(p) for p in rest if p.data == "piece")
                locs = tuple(self.local(p) for p in rest if p.data == "local")
                assigns.append(ast.Assignment(_head_name(head), pieces, locs, head.start_pos))
        return ast.Block(tuple(defs), tuple(assigns), column_range)

    def column_range(self, t: Tree) -> ast.ColumnRange:
        head, first, _, last, where = t.children
        defs = []
        for d in where.children:
            dhead, *pieces = d.children
            defs.append(ast.Assignment(_head_name(dhead), tuple(self.piece(p) for p in pieces), (), dhead.start_pos))
        return ast.ColumnRange(_head_name(head), ast.Var(str(first), first.start_pos),
                               ast.Var(str(last), last.start_pos), tuple(defs), head.start_pos)

    def local(self, t: Tree) -> ast.Definition:
        head, expr, *rest = t.children
        elem = self.elem(rest[0]) if rest else None
        return ast.Definition(_head_name(head), self.expr(expr), elem, head.start_pos)

    def piece(self, t: Tree) -> ast.Piece:
        value, elem, cond, other = None, None, None, False
        for k, ch in enumerate(t.children):
            if k == 0:
                value = self.expr(ch)
            elif ch.data in ("for_all", "for_some"):
                elem = self.elem(ch)
            elif ch.data == "if_clause":
                cond = self.expr(ch.children[0])
            elif ch.data == "otherwise":
                other = True
        return ast.Piece(value, elem, cond, other, t.meta.start_pos)

    def elem(self, t: Tree) -> ast.ElemClause:
        first = t.children[0]
        if t.data == "for_all":
            where = self.expr(t.children[1]) if len(t.children) > 1 else None
            return ast.ElemClause(str(first)[0], None, where, first.start_pos)
        letters = {str(c)[0] for c in t.children}
        if len(letters) != 1:
            raise SpecError(self.src.span(first.start_pos), "elements of different operands in one 'for' clause")
        idx = tuple(int(str(c)[1:]) for c in t.children)
        return ast.ElemClause(str(first)[0], idx, None, first.start_pos)

    def expr(self, root):
        # post-order without recursion; results[id(node)] = (ast, depth)
        results: dict = {}
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if isinstance(node, Tree) and not done:
                stack.append((node, True))
                stack.extend((c, False) for c in node.children)
                continue
            results[id(node)] = self.make(node, results)
        out, depth = results[id(root)]
        return out

    def make(self, node, results):
        src = self.src
        if isinstance(node, Token):
            return node, 0
        kids = [results[id(c)] for c in node.children]
        depth = 1 + max((d for _, d in kids), default=0)
        if depth > MAX_DEPTH:
            raise SpecError(src.span(node.meta.start_pos), f"formula nests deeper than {MAX_DEPTH}")
        vals = [v for v, _ in kids]
        off = node.meta.start_pos if not node.meta.empty else 0
        kind = node.data
        if kind == "num":
            made = _number(vals[0], src)
        elif kind == "laneid":
            made = ast.Lane(off)
        elif kind == "var":
            made = ast.Var(str(vals[0]), off)
        elif kind in ("neg", "lnot"):
            made = ast.Unary("-" if kind == "neg" else "!", vals[-1], off)
        elif kind == "binop":
            made = ast.Bin(str(vals[1]), vals[0], vals[2], off)
        elif kind in ("bitor", "bitxor", "bitand", "lor", "land"):
            op = {"bitor": "|", "bitxor": "^", "bitand": "&", "lor": "||", "land": "&&"}[kind]
            made = ast.Bin(op, vals[0], vals[1], off)
        elif kind == "chain":
            made = ast.Chain(tuple(vals[0::2]), tuple(str(t) for t in vals[1::2]), off)
        elif kind in ("set_range", "set_list"):
            nums = [_number(t, src).value for t in vals if isinstance(t, Token) and t.type == "NUMBER"]
            if kind == "set_range":
                if nums[1] < nums[0] or nums[1] - nums[0] > 4096:
                    raise SpecError(src.span(off), f"bad range {{{nums[0]},..,{nums[1]}}}")
                nums = list(range(nums[0], nums[1] + 1))
            text = src.text[off: node.meta.end_pos]
            made = ast.SetLit(tuple(nums), text, off)
        else:  # pragma: no cover - grammar and builder are kept in step by tests
            raise SpecError(src.span(off), f"internal: unknown formula node {kind}")
        return made, depth


def _head_name(tok: Token) -> str:
    return str(tok).split("=")[0].strip()


if __name__ == "__main__":  # python -m checker.formula.parser --write: regenerate the shipped tables
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m checker.formula.parser --write")
    here = resources.files("checker.formula")
    for _name in _OPTIONS:
        with open(str(here.joinpath(tables_file(_name))), "w", encoding="utf-8", newline="\n") as _fh:
            _fh.write(tables_text(_name))
