"""The export texts. Forward functions are printed from the proved reading's AST, fully
parenthesised (the document's precedence is not C's: `a & b == c` groups differently), with
floor division and modulo as the formula language defines them. Inverses come from the GF(2)
inverse bases where one fits the map (affine where cell (0, 0) is not thread 0's element 0), and
from a table where none does.

The thread argument is named as the spec's formulas name the thread index: `laneid` for a warp's
lanes, `tid` for a warpgroup's 128 threads (the figures' T0..T127), whose %laneid is `tid % 32`. A
warpgroup export that asked for `laneid` would get %laneid passed to it, and give every warp
warp 0's cells."""
from __future__ import annotations

from checker.export import derive, safe
from checker.formula import ast

def _name(name: str, names) -> str:
    if name in ("%laneid", "%tid"):  # the thread index (the parameter) and a warpgroup's %laneid = tid % 32:
        return name[1:]  # safe.OWN, so no name of the spec's own is renamed to either of them
    return names(name)


def namer(layout, lang: str) -> safe.Names:
    """The exported names of every name the layout's formulas use or define."""
    found = {name for name, _ in layout.definitions}
    exprs = [e for _, e in layout.definitions]
    for f in layout.formulas():
        found.add(f.target)
        found.update(name for name, _ in f.locals)
        exprs += [e for _, e in f.locals] + [x for p in f.pieces for x in (p.guard, p.value)]
    for e in exprs:
        found |= ast.names(e)
    found -= {"%laneid", "%tid", "i", "row", "col"}  # the arguments, and the two formulas' own targets
    return safe.Names(found, lang, [f"{f.target}_of" for f in layout.bound])


def expr(node, lang: str, names) -> str:
    py = lang == "python"
    if isinstance(node, ast.Num):
        return str(node.value)
    if isinstance(node, ast.Lane):
        return _name(node.name, names)
    if isinstance(node, ast.Var):
        return "i" if node.name == "i" else _name(node.name, names)
    if isinstance(node, ast.Unary):
        inner = expr(node.arg, lang, names)
        return f"(-{inner})" if node.op == "-" else (f"(not {inner})" if py else f"(!{inner})")
    if isinstance(node, ast.Bin):
        a, b = expr(node.left, lang, names), expr(node.right, lang, names)
        if node.op == "/":
            return f"({a} // {b})" if py else f"floor_div({a}, {b})"
        if node.op == "%":
            return f"({a} % {b})" if py else f"floor_mod({a}, {b})"
        op = {"&&": "and", "||": "or"}.get(node.op, node.op) if py else node.op
        return f"({a} {op} {b})"
    if isinstance(node, ast.Chain):
        parts, left = [], expr(node.operands[0], lang, names)
        for op, rhs in zip(node.ops, node.operands[1:]):
            if isinstance(rhs, ast.SetLit):
                members = [f"({left} == {v})" for v in rhs.values] or ["False" if py else "false"]
                parts.append("(" + (" or " if py else " || ").join(members) + ")")
                continue
            right = expr(rhs, lang, names)
            parts.append(f"({left} {'==' if op == '=' else op} {right})")
            left = right
        return parts[0] if len(parts) == 1 else "(" + (" and " if py else " && ").join(parts) + ")"
    raise TypeError(type(node).__name__)  # pragma: no cover


def _body(layout, formula, lang: str, indent: str, param: str, names) -> list:
    py = lang == "python"
    lines = []
    # a sparse layout's Where formulas (firstcol, lastcol) are functions of their own, bound to
    # their names before any formula that may use them
    before = layout.bound[:layout.bound.index(formula)] if formula in layout.bound else layout.bound
    values = [(name, expr(e, lang, names)) for name, e in layout.definitions]
    values += [(f.target, f"{names.functions[f.target + '_of']}({param}, i)") for f in before]
    values += [(name, expr(e, lang, names)) for name, e in formula.locals]
    for name, value in values:
        lines.append(f"{indent}{_name(name, names)} = {value}" if py
                     else f"{indent}[[maybe_unused]] const int {_name(name, names)} = {value};")
    for p in formula.pieces:
        g, v = expr(p.guard, lang, names), expr(p.value, lang, names)
        lines.append(f"{indent}if {g}:\n{indent}    return {v}" if py else f"{indent}if ({g}) return {v};")
    lines.append(f"{indent}return -1  # no piece applies: outside the fragment" if py
                 else f"{indent}return -1;  // no piece applies: outside the fragment")
    return lines


def _functions(layout, names) -> list:
    """(name, formula) of every exported forward function: a sparse A's range ends first, then
    row and col (its col is the column in the compressed A)."""
    ends = [(names.functions[f"{f.target}_of"], f) for f in layout.bound]
    return ends + [("row", layout.row), ("col", layout.col)]


def _xor_terms(bases: tuple, var: str, pick: int) -> str:
    terms = [f"(({var} >> {j}) & 1) * {b[pick]}" for j, b in enumerate(bases) if b[pick]]
    return " ^ ".join(f"({t})" for t in terms) or "0"


def _param(m: derive.Map) -> str:
    """The thread argument's name: the spec's name for the whole thread index, without its %."""
    return next(n for n, d, mod in m.fragment.threads.names if d == 1 and mod is None)[1:]


def _wide(m: derive.Map) -> bool:
    """More than a warp holds the fragment (a warpgroup): its thread index is not %laneid."""
    return m.fragment.threads.count > 32


def _who(m: derive.Map) -> str:
    """Whose element a forward function's (thread, i) names (a warp's wording as it always was)."""
    return (f"warpgroup thread `{_param(m)}` (0..{m.fragment.threads.count - 1}, not %laneid)" if _wide(m)
            else "lane `laneid`")


def _warpgroup_note(m: derive.Map, comment: str, names) -> list:
    """Why `tid` is not %laneid, and how a kernel computes it (9.7.15.1: a warpgroup is four
    contiguous warps whose first warp's rank is a multiple of 4)."""
    if not _wide(m):
        return []
    return [f"{comment} tid, the thread argument of {', '.join(t for t, _ in _functions(m.reading.layout, names))} and what "
            "lane(row, col) returns, is the thread's index in the warpgroup,",
            f"{comment} 0..127 (the figures' T0..T127): (%tid.x + %tid.y * %ntid.x + %tid.z * %ntid.x * %ntid.y) % 128, "
            "threadIdx.x % 128 in a 1-D block.",
            f"{comment} It is not %laneid (that is tid % 32): passed %laneid, every warp would get warp 0's cells.",
            f"{comment} lane(row, col) and element(row, col) take a cell of the matrix: 0 <= row < {m.shape[0]}, "
            f"0 <= col < {m.shape[1]}."]


def provenance(f) -> str:
    """Where the exported formula comes from: the document's printed text (errata applied), or,
    for a layout the document gives only as a figure (ldmatrix, stmatrix, movmatrix, wgmma), the
    spec's reading of that figure and what it was read from; never the first for the second."""
    fr = f.figure_reading
    if fr is not None:
        names = ", ".join(f"{s.library} {s.name.split(' (')[0]}" for s in fr.sources) or "no published encoding"
        return (f"the formula is a reading of {fr.figure}, not the document's text (it prints none; "
                f"standing: {fr.standing}); read from {names}")
    if f.reading_only:
        return (f"the formula is a reading of {', '.join(f.figures)}, not the document's text; read from "
                f"{', '.join(f.read_from) or 'no published encoding'}" + ("; its basis is in the spec" if f.basis else ""))
    return "the source text is the document's, errata applied"


def header(m: derive.Map, checks: list, command: str, comment: str, ranges: bool = False) -> list:
    """`ranges`: the export defines firstcol_of/lastcol_of (C++ and Python), so a sparse A's header
    may send the reader to them; a CuTe or Triton layout has no such function."""
    f = m.fragment
    scope = ""
    if m.computation:
        # the thread numbering is not the lane's: say which computation, and that it was a default
        how = (f"the default, no --computation given; --computation 1..{len(f.computations)} picks one" if m.defaulted
               else f"--computation {m.computation}")
        scope = (f" (MMA computation {m.computation} of {len(f.computations)}: lanes {', '.join(map(str, m.lanes))}; "
                 f"{how})")
    what = f"{f.operand} ({f.rows} x {f.cols})"
    if f.sparsity is not None:
        sp = f.sparsity
        what = (f"the compressed {f.operand} ({f.rows} x {f.cols}: the non-zero elements of a {f.rows} x {sp.k} "
                f"{f.operand} at {sp.nonzero}:{sp.chunk}); "
                + (f"firstcol_of/lastcol_of give the range of {f.operand}'s columns an element lies in"
                   if ranges else f"`checker where` gives the range of {f.operand}'s columns an element lies in")
                + ", the metadata says where")
    out = [f"{f.id} of {m.reading.fragment.span.file}: {what}, types {', '.join('.' + t for t in f.types_here())}{scope}",
           f"generated by `{command}`; {provenance(f)}",
           "checked against the spec:"]
    out += [f"  {c}" for c in checks]
    # the path and the command line are the user's text, the checks quote the path: one line each
    return [safe.comment(comment, line) for line in out]


def python(m: derive.Map, inv, checks: list, command: str) -> str:
    f, layout = m.fragment, m.reading.layout
    whose = "each warpgroup thread's element" if _wide(m) else "each lane's element"
    lines = [safe.docstring(f"{f.id}: which cell of {f.operand} {whose} holds, and back.")]
    names = namer(layout, "python")
    lines += header(m, checks, command, "#", ranges=True) + _warpgroup_note(m, "#", names)
    lines += ["", f"ROWS, COLS, ELEMENTS = {f.rows}, {f.cols}, {m.n}", ""]
    for target, formula in _functions(layout, names):
        lines += ["", f"def {target}({_param(m)}, i):",
                  "    " + safe.docstring(f"The {formula.target} of element {f.letter}i of {_who(m)}.")]
        lines += _body(layout, formula, "python", "    ", _param(m), names)
        lines.append("")
    lines += _python_inverse(m, inv)
    return "\n".join(lines).rstrip() + "\n"


def _holder(m) -> tuple:
    """How the inverse's docs name the holder it returns: (who, that one)."""
    if _wide(m):
        return (f"thread of the warpgroup (its index {_param(m)}, 0..{m.fragment.threads.count - 1}, as row and col "
                "take it; not %laneid)", "thread")
    return m.fragment.threads.unit, "lane"


def _xor_both(inv, pick: int) -> str:
    """One output of the inverse: the XOR of the bases of the set bits of row and col, and the offset
    of an affine one (none where it is linear, so a linear inverse prints as it always did)."""
    off = f" ^ {inv.offset[pick]}" if inv.offset[pick] else ""
    return f"{_xor_terms(inv.row, 'row', pick)} ^ {_xor_terms(inv.col, 'col', pick)}{off}"


def _python_inverse(m, inv) -> list:
    lanes = m.lanes
    where = f" in MMA computation {m.computation}" if m.computation else ""
    who, that = _holder(m)
    if inv is not None:
        t = "_thread_element(row, col)[0]"
        lane_of = t if lanes == tuple(range(len(lanes))) else f"{list(lanes)}[{t}]"
        return ["", "def _thread_element(row, col):",
                f"    t = {_xor_both(inv, 0)}",
                f"    i = {_xor_both(inv, 1)}",
                "    return t, i", "", "",
                "def lane(row, col):", f'    """The {who} that holds cell (row, col){where}."""',
                f"    return {lane_of}",
                "", "", "def element(row, col):", f'    """The element index i ({m.fragment.letter}i) of that {that} that holds (row, col){where}."""',
                "    return _thread_element(row, col)[1]", ""]
    table = {}
    for t, lane in enumerate(lanes):
        for i in range(m.n):
            table[m.cell(t, i)] = (lane, i)
    items = ", ".join(f"({r}, {c}): {v}" for (r, c), v in sorted(table.items()))
    return ["", f"_INVERSE = {{{items}}}  # (row, col) -> ({that}, i): no GF(2) inverse fits the map", "", "",
            "def lane(row, col):", f'    """The {who} that holds cell (row, col){where}."""',
            "    return _INVERSE[(row, col)][0]", "", "",
            "def element(row, col):", f'    """The element index i ({m.fragment.letter}i) of that {that} that holds (row, col){where}."""',
            "    return _INVERSE[(row, col)][1]", ""]


def cpp(m: derive.Map, inv, checks: list, command: str) -> str:
    f, layout = m.fragment, m.reading.layout
    # namespaces named after the file and the fragment: ASCII, and never a keyword or a macro
    spec = safe.identifier(f.span.file.rsplit("/", 1)[-1].rsplit(".", 1)[0], "cpp")
    ns = safe.identifier(f.id + (f"_computation{m.computation}" if m.computation else ""), "cpp")
    names = namer(layout, "cpp")
    lines = header(m, checks, command, "//", ranges=True) + _warpgroup_note(m, "//", names)
    lines += ["#pragma once", "", "#if defined(__CUDACC__)", "#define PTX_FRAGMENT_HD __host__ __device__ __forceinline__",
              "#else", "#define PTX_FRAGMENT_HD inline", "#endif", "",
              f"namespace ptx_fragments {{ namespace {spec} {{ namespace {ns} {{", "",
              f"constexpr int kRows = {f.rows}, kCols = {f.cols}, kElements = {m.n};", "",
              "// the formula language's floor division and modulo (C++ truncates toward zero)",
              "[[maybe_unused]] PTX_FRAGMENT_HD int floor_div(int a, int b) {",
              "  const int q = a / b;",
              "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;",
              "}",
              "[[maybe_unused]] PTX_FRAGMENT_HD int floor_mod(int a, int b) {",
              "  const int r = a % b;",
              "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;",
              "}", ""]
    for target, formula in _functions(layout, names):
        lines += [safe.comment("//", f"the {formula.target} of element {f.letter}i of {_who(m)}"),
                  f"PTX_FRAGMENT_HD int {target}([[maybe_unused]] int {_param(m)}, [[maybe_unused]] int i) {{"]
        lines += _body(layout, formula, "cpp", "  ", _param(m), names)
        lines += ["}", ""]
    where = f" in MMA computation {m.computation}" if m.computation else ""
    if inv is not None:
        lanes = m.lanes
        lines += [f"// the {_holder(m)[0]} that holds cell (row, col){where}, and the element index i of it",
                  "PTX_FRAGMENT_HD int lane([[maybe_unused]] int row, [[maybe_unused]] int col) {",
                  f"  const int t = {_xor_both(inv, 0)};"]
        if lanes == tuple(range(len(lanes))):
            lines.append("  return t;")
        else:
            lines.append(f"  constexpr int kLanes[{len(lanes)}] = {{{', '.join(map(str, lanes))}}};")
            lines.append("  return kLanes[t];")
        lines += ["}", "", "PTX_FRAGMENT_HD int element([[maybe_unused]] int row, [[maybe_unused]] int col) {",
                  f"  return {_xor_both(inv, 1)};", "}"]
    else:
        grid = [[(0, 0)] * f.cols for _ in range(f.rows)]
        for t, lane in enumerate(m.lanes):
            for i in range(m.n):
                r, c = m.cell(t, i)
                grid[r][c] = (lane, i)
        rows = ",\n".join("  {" + ", ".join(str(lane << 16 | i) for lane, i in row) + "}" for row in grid)
        lines += [f"// (row, col) -> {_holder(m)[1]} << 16 | i: no GF(2) inverse fits the map, so the inverse is a table",
                  "// (host code; in a kernel, copy it to __constant__ memory)",
                  f"constexpr int kInverse[{f.rows}][{f.cols}] = {{\n{rows}\n}};",
                  "inline int lane(int row, int col) { return kInverse[row][col] >> 16; }",
                  "inline int element(int row, int col) { return kInverse[row][col] & 0xFFFF; }"]
    lines += ["", f"}} }} }}  // namespace ptx_fragments::{spec}::{ns}", ""]
    return "\n".join(lines)


def _cute_shape(modes: tuple, part: int) -> str:
    vals = [f"_{m[part]}" for m in modes]
    return vals[0] if len(vals) == 1 else f"{'Shape' if part == 0 else 'Stride'}<{','.join(vals)}>"


def _tuple(modes: tuple, part: int) -> str:
    vals = [str(m[part]) for m in modes]
    return vals[0] if len(vals) == 1 else "(" + ",".join(vals) + ")"


def cute(m: derive.Map, c: derive.Cute, checks: list, command: str) -> str:
    f = m.fragment
    # wgmma's D is CuTe's CLayout; ldmatrix & co. (operands r, a, d): the memory tile, rows x cols, column-major like C
    what = {"A": f"(M{f.rows},K{f.cols})", "B": f"(N{f.cols},K{f.rows})", "C": f"(M{f.rows},N{f.cols})",
            "D": f"(M{f.rows},N{f.cols})"}.get(f.operand, f"(rows {f.rows},cols {f.cols})")
    name = {"A": "ALayout", "B": "BLayout", "C": "CLayout", "D": "CLayout"}.get(f.operand, f"{f.operand.upper()}Layout")
    threads = f"(T{len(m.lanes)},V{m.n}) -> {what}"
    lines = header(m, checks, command, "//")
    lines += [f"// CuTe TV layout: (thread, value) -> column-major index into {what}"
              + ("; CuTe indexes B as N x K, so B[k][n] is at n + k * N" if f.operand == "B" else ""),
              "// the thread index is " + (("the lane" if len(m.lanes) == 32 else "the thread of the warpgroup")
                                          if not m.computation else
                                          f"the position among MMA computation {m.computation}'s lanes ({', '.join(map(str, m.lanes))})"
                                          + _read_back(m)),
              f"// {threads}",
              f"using {name} = Layout<Shape <{_cute_shape(c.thread, 0)},{_cute_shape(c.value, 0)}>,",
              f"{' ' * (len(name) + 15)}Stride<{_cute_shape(c.thread, 1)},{_cute_shape(c.value, 1)}>>;",
              "",
              f"// CuTe DSL / pycute: ({_tuple(c.thread, 0)},{_tuple(c.value, 0)}):({_tuple(c.thread, 1)},{_tuple(c.value, 1)})",
              ""]
    return "\n".join(lines)


def _read_back(m: derive.Map) -> str:
    """`checker compare` numbers threads by the lane unless told the computation: say how to read it back."""
    return (f"; `checker compare` reads it back with --computation {m.computation} (without it, its thread index "
            "is the lane)")


def triton(m: derive.Map, b: derive.Bases, checks: list, command: str) -> str:
    f = m.fragment
    reg = ", ".join(f"[{r}, {c}]" for r, c in b.element)
    # a warpgroup's thread index: its low 5 bits are the lane, the rest the warp (Triton's in dims)
    lane = ", ".join(f"[{r}, {c}]" for r, c in b.thread[:5])
    warp = ", ".join(f"[{r}, {c}]" for r, c in b.thread[5:])
    lines = header(m, checks, command, "#")
    lines += ["# Triton linear layout over GF(2): in dims register (the element index i)"
              + (", lane and warp" if _wide(m) else " and lane") + ", out dims",
              "# (dim0, dim1) = (row, col); a point's cell is the XOR of the bases of its set bits",
              "# (Gluon: triton.experimental.gluon.language.DistributedLinearLayout)"]
    if _wide(m):  # Triton's lane is %laneid, as it should be; say which warp index its warp dim is
        lines.append("# for the warpgroup's thread tid (0..127): lane is %laneid = tid % 32, warp the warp of the "
                     "warpgroup, tid / 32")
    if m.computation:
        lines.append(f"# the lane index is the position among MMA computation {m.computation}'s lanes "
                     f"({', '.join(map(str, m.lanes))})" + _read_back(m))
    lines += ["layout = dict(",
              f"    reg_bases=[{reg}],",
              f"    lane_bases=[{lane}],",
              f"    warp_bases=[{warp}],",
              "    block_bases=[],",
              f"    shape=[{f.rows}, {f.cols}],",
              ")",
              ""]
    return "\n".join(lines)
