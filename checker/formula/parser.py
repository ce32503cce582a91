"""Parse formula blocks and element lists with lark (LALR); never evaluates anything."""
from __future__ import annotations

import functools

import lark
from lark import Lark, Token, Tree

from checker.bounded import shown
from checker.errors import SpecError
from checker.formula import ast, tables
from checker.formula.evaluate import values as evaluate_values
from checker.source import SourceText

MAX_TEXT = 4096
MAX_DEPTH = 48
MAX_LITERAL = 1 << 24


@functools.lru_cache(maxsize=None)
def _parser() -> Lark:
    return tables.load("formula")


def _describe(token) -> str:
    if token is None or getattr(token, "type", "") == "$END":
        return "end of text"
    if getattr(token, "type", "") == "_NL":
        return "end of line"
    return repr(str(token))


_PRETTY = {"RPAR": "')'", "LPAR": "'('", "_NL": "end of line", "NAME": "a name",
           "NUMBER": "a number", "LANEID": "%laneid", "OTHERWISE": "'otherwise'",
           "CMP_OP": "a comparison", "SHIFT_OP": "'<<' or '>>'", "ADD_OP": "'+' or '-'",
           "MUL_OP": "'*', '/' or '%'", "ELLIPSIS": "'...'", "ELEM_ALL": "'ai'", "ELEM_ONE": "'a0'"}
KEYWORDS = ("otherwise", "for", "where", "if", "and")


def _expected(names) -> str:
    # a terminal's own text where it is one string: lark names the anonymous ones __ANON_0 (`||`)
    terminals = {t.name: t.pattern for t in _parser().terminals}
    shown = {_PRETTY.get(n) or (repr(terminals[n].value) if n in terminals and terminals[n].type == "str"
                               else n.lower().strip("_")) for n in names}
    shown = sorted(shown, key=lambda x: (not x.strip("'").isalpha(), x))  # words (`otherwise`) before operators
    return ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")


def _keyword_slip(token) -> str:
    """' (did you mean 'otherwise'?)' for a name one letter from a keyword (`Otherwize`)."""
    import difflib

    if getattr(token, "type", "") != "NAME":
        return ""
    close = difflib.get_close_matches(str(token).lower(), KEYWORDS, n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def raise_located(src: SourceText, exc: Exception, what: str):
    if isinstance(exc, lark.UnexpectedToken):
        tok = exc.token
        off = tok.start_pos if getattr(tok, "start_pos", None) is not None else len(src.text)
        msg = f"cannot parse {what}: unexpected {_describe(tok)}{_keyword_slip(tok)}, expected {_expected(exc.expected)}"
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


def memoised(kind: str, parse):
    """A parse depends only on the text: AST nodes keep offsets into it, not file positions. So
    a text parsed once (the same element list in many tables, the same relation side in many
    equations) is not parsed again in this process. Failures are not kept: each is raised with
    its own file position."""
    def parse_once(src: SourceText, *args):
        key = (kind, src.text, *args)
        hit = _PARSED.get(key)
        if hit is None:
            hit = parse(src, *args)
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
        raise_located(src, exc, "formula")
    return _Build(src).block(tree)


def _parse_expr(src: SourceText):
    """One expression of the formula notation (relations use it), with the same bounds."""
    if len(src.text) > MAX_TEXT:
        raise SpecError(src.span(0), f"expression longer than {MAX_TEXT} characters")
    try:
        tree = _parser().parse(src.text, start="lone")
    except lark.exceptions.LarkError as exc:
        raise_located(src, exc, "expression")
    return _Build(src).expr(tree.children[0])


def number(src: SourceText, env: dict) -> int:
    """An integer expression in the shape's parameter (`N/2 - 4`, a register count `N/2`),
    evaluated; any other name, or a division by zero, is a located error."""
    node = parse_expr(src)
    try:
        return int(evaluate_values(node, {k: [v] for k, v in env.items()}, 1)[0])
    except (KeyError, ZeroDivisionError):
        raise SpecError(src.span(0), f"{shown(src.text, 40, False)} must be a number in "
                                     f"{', '.join(env) or 'no parameter'}") from None


parse_block = memoised("block", _parse_block)
parse_expr = memoised("expr", _parse_expr)


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
        return ast.ElemClause(str(first)[0], idx, None, first.start_pos, tuple(c.start_pos for c in t.children))

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
            made = ast.Lane(off, str(vals[0]))
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
