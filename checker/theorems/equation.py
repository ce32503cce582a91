"""A cell equation: for every lane and every value of some bound variables, the matrix cell one
fragment gives equals the cell another gives, each side allowed to move the lane, pick the
element and transform the (row, col) it finds.

    left:  F(lane', i') = (row, col)   then   (row_expr, col_expr)
    right: G(lane", i") = (row, col)   then   (row_expr, col_expr)

It is the one shape every cross-layout theorem here takes, so one z3 translation
(checker/smt/equation.py) and one plain-Python evaluation (below) serve them all, and the two
are compared point for point.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from checker.errors import SourceSpan, SpecError
from checker.formula.bounds import expression_widest
from checker.formula.evaluate import product_columns, values, warp_cells
from checker.formula.lower import check_type
from checker.results import PROVED, REFUTED

MAX_POINTS = 1 << 16


@dataclass(frozen=True)
class Side:
    """One side of a cell equation: a fragment applied at a lane and element given by expressions."""

    name: str  # "m16n8k16/A.f16"
    reading: object  # checker.spec.reading.Reading, proved on its own
    lane: object | None  # expression over %laneid and the variables; None: %laneid
    element: object  # expression: the element index i
    row: object | None  # expression over row, col, %laneid and the variables; None: row
    col: object | None
    src: dict  # field -> SourceText, for located errors


@dataclass(frozen=True)
class Equation:
    """Two sides that must give the same cell at every lane and choice of the variables."""

    id: str
    variables: tuple  # (name, values tuple)
    lanes: tuple
    left: Side
    right: Side
    span: SourceSpan

    def points(self):
        """(lane, *values) at every point, the lane slowest, then the variables in their order."""
        return itertools.product(self.lanes, *(vals for _, vals in self.variables))

    def size(self) -> int:
        out = len(self.lanes)
        for _, vals in self.variables:
            out *= len(vals)
        return out


def check_names(eq_vars: set, side: Side):
    """Names a side's expressions may use: the variables, and row/col in its own transforms."""
    for field in ("lane", "element", "row", "col"):
        node = getattr(side, field)
        if node is None:
            continue
        known = set(eq_vars) | ({"row", "col"} if field in ("row", "col") else set())
        check_type(side.src[field], known, node, "int")


def divisors_nonzero(eq: Equation) -> None:
    """That no divisor of a side's expressions can be zero over the variables' declared ranges: a
    located error when the file is loaded (validate, and every command that reads it), where the
    engines would otherwise meet a division by zero mid-proof. The interval bounds that size the
    bit-vectors find it, as they do for a fragment's formulas."""
    width(eq)


def width(eq: Equation) -> int:
    """A signed bit-vector width no subterm can overflow, from interval bounds."""
    env = {name: (min(vals), max(vals)) for name, vals in eq.variables}
    widest = 8
    for side in (eq.left, eq.right):
        reach = 1 << (side.reading.width - 2)
        for field in ("lane", "element", "row", "col"):
            node = getattr(side, field)
            if node is None:
                continue
            reached = expression_widest(side.src[field], (min(eq.lanes), max(eq.lanes)), node,
                                        env | {"row": (-reach, reach), "col": (-reach, reach)})
            widest = max(widest, reached.bit_length() + 2)
        widest = max(widest, side.reading.width)
    return widest


def _reach(eq: Equation, side: Side, env: dict, size: int) -> tuple:
    """(lanes', elements') a side reads at every point."""
    lanes = values(side.lane, env, size) if side.lane is not None else env["lane"]
    return lanes, values(side.element, env, size)


def _environment(eq: Equation) -> tuple:
    """(the number of points, the names, name -> its value at every point): the columns of
    eq.points(), made without the points."""
    size = eq.size()
    if size > MAX_POINTS:  # counted, not built
        raise SpecError(eq.span, f"{eq.id} ranges over {size} points; the bound is {MAX_POINTS}")
    names = ["lane"] + [v for v, _ in eq.variables]
    columns = product_columns((eq.lanes, *(vals for _, vals in eq.variables)))
    return size, names, dict(zip(names, columns))


def _at(names: list, env: dict, k: int) -> tuple:
    """The k-th point of eq.points()."""
    return tuple(env[n][k] for n in names)


def outside(eq: Equation) -> dict | None:
    """The first point (in the engines' order) where a side reads a lane or an element its
    fragment does not have, or None. The equation is false there whatever the cells: a side of a
    relation or theorem needs a7 of a fragment whose list ends at a6 (an edit that drops an
    element) cannot hold, and z3's macros, which give a cell for any i, would not see it. So
    both engines are asked only once every point is inside."""
    size, names, env = _environment(eq)
    reach = [(side, *_reach(eq, side, env, size)) for side in (eq.left, eq.right)]
    if all(_inside(*r) for r in reach):
        return None  # the common case, settled by min and max rather than a loop over the points
    for k in range(size):
        p = _at(names, env, k)
        for side, lanes, elems in reach:
            n, count = side.reading.n, side.reading.fragment.threads.count
            if 0 <= lanes[k] < count and 0 <= elems[k] < n:
                continue
            what, value, bound = ("lane", lanes[k], count) if not 0 <= lanes[k] < count else ("element", elems[k], n)
            return {"point": dict(zip(names, p)), "side": side.name, "what": what, "value": value,
                    "range": f"0..{bound - 1}", "at": str(side.src[what].span(0)) if what in side.src else None}
    return None


def unread(eq: Equation, side: Side | None = None) -> tuple | None:
    """The first (lane, element) of a side's fragment (the left one's by default) that no point of
    the equation reads, or None: a relation speaks of its left fragment whole, a composition of its
    layout (the right side) whole."""
    side = side or eq.left
    size, _, env = _environment(eq)
    lanes, elems = _reach(eq, side, env, size)
    seen = set(zip(lanes, elems))
    return next(((lane, i) for lane in range(side.reading.fragment.threads.count) for i in range(side.reading.n)
                 if (lane, i) not in seen), None)


def _inside(side: Side, lanes: list, elems: list) -> bool:
    """Whether every lane and element a side reads is its fragment's."""
    n, count = side.reading.n, side.reading.fragment.threads.count
    return not lanes or (0 <= min(lanes) and max(lanes) < count and 0 <= min(elems) and max(elems) < n)


def describe_outside(eq: Equation, w: dict) -> str:
    pt = _point(eq, w)
    side = eq.left if w["side"] == eq.left.name else eq.right
    f = side.reading.fragment
    if w["what"] == "element":
        has = f"{f.letter}0..{f.letter}{side.reading.n - 1}" if side.reading.n else "no elements"
        return (f"at {pt}: {w['side']} has no element {f.letter}{w['value']}: its element list gives {has} "
                f"({side.reading.n} elements)")
    unit = f.threads.unit
    return f"at {pt}: {w['side']} has no {unit} {w['value']}: its {unit}s are {w['range']}"


def _side_values(eq: Equation, side: Side, env: dict, size: int):
    """(lanes', elements', rows, cols) of a side at every point, checking it stays in its domain."""
    lanes, elems = _reach(eq, side, env, size)
    n, count = side.reading.n, side.reading.fragment.threads.count
    for k in range(0 if _inside(side, lanes, elems) else size):
        if not 0 <= lanes[k] < count or not 0 <= elems[k] < n:
            # equation_result asks `outside` first: here only for a caller that did not
            names = ["lane"] + [v for v, _ in eq.variables]
            point = {("%laneid" if n == "lane" else n): env[n][k] for n in names}
            what = ("lane", lanes[k], f"0..{count - 1}") if not 0 <= lanes[k] < count else \
                ("element", elems[k], f"0..{n - 1}")
            field = "lane" if what[0] == "lane" else "element"
            raise SpecError(side.src[field].span(0),
                            f"{eq.id}: {side.name} {what[0]} {what[1]} at {point} is outside {what[2]}")
    rows, cols = warp_cells(side.reading.layout, n, lanes, elems, count)
    local = dict(env, row=rows, col=cols)
    out_r = values(side.row, local, size) if side.row is not None else rows
    out_c = values(side.col, local, size) if side.col is not None else cols
    return lanes, elems, out_r, out_c


def evaluate(eq: Equation):
    """The plain-Python engine: ('proved', None) or ('refuted', witness) with the smallest point."""
    size, names, env = _environment(eq)
    left = _side_values(eq, eq.left, env, size)
    right = _side_values(eq, eq.right, env, size)
    if left[2] == right[2] and left[3] == right[3]:
        return PROVED, None  # every point's two cells alike: the rows and the columns compared whole
    for k in range(size):
        if (left[2][k], left[3][k]) != (right[2][k], right[3][k]):
            return REFUTED, witness(eq, _at(names, env, k), [x[k] for x in left], [x[k] for x in right])
    return PROVED, None


def witness(eq: Equation, point, left, right) -> dict:
    names = ["lane"] + [v for v, _ in eq.variables]
    return {"point": dict(zip(names, point)),
            "left": {"lane": left[0], "i": left[1], "cell": [left[2], left[3]]},
            "right": {"lane": right[0], "i": right[1], "cell": [right[2], right[3]]}}


def _point(eq: Equation, w: dict) -> str:
    """The point in the document's names: the thread variable is the left side's first name for
    its threads (`%laneid` for a warp, `%tid` for a warpgroup)."""
    thread = eq.left.reading.fragment.threads.names[0][0]
    return ", ".join(f"{thread if k == 'lane' else k} = {v}" for k, v in w["point"].items())


def describe(eq: Equation, w: dict) -> str:
    parts = []
    for tag, side in (("left", eq.left), ("right", eq.right)):
        s = w[tag]
        f = side.reading.fragment
        parts.append(f"{side.name} {f.threads.unit} {s['lane']} {f.letter}{s['i']} gives ({s['cell'][0]}, {s['cell'][1]})")
    return f"at {_point(eq, w)}: " + " but ".join(parts)



def difference(eq: Equation) -> str:
    """How two layouts differ, for a relation declared not to hold (compared's text)."""
    return compared(eq)[0]


def compared(eq: Equation) -> tuple:
    """(how two layouts differ, for a relation declared not to hold: how many points move, and
    whether each lane (and each MMA computation) still holds the same set of cells; (how many
    points give different cells, how many points there are)). Where a side reads outside its
    fragment the equation is refuted there (equation_result says so): no cells to count, None."""
    w = outside(eq)
    if w is not None:
        return describe_outside(eq, w), None
    size, _, env = _environment(eq)
    left = _side_values(eq, eq.left, env, size)
    right = _side_values(eq, eq.right, env, size)
    differ = sum((left[2][k], left[3][k]) != (right[2][k], right[3][k]) for k in range(size))
    groups = [("lane", {lane: (lane,) for lane in eq.lanes})]
    comps = eq.left.reading.fragment.computations
    if comps:
        groups.append(("MMA computation", {c.id: c.lanes for c in comps}))
    parts = [f"{differ} of {size} points give different cells"]
    for what, members in groups:
        same = 0
        for key, lanes in members.items():
            ks = [k for k in range(size) if env["lane"][k] in lanes]
            if {(left[2][k], left[3][k]) for k in ks} == {(right[2][k], right[3][k]) for k in ks}:
                same += 1
        parts.append(f"{same} of {len(members)} {what}s hold the same set of cells on both sides")
    return "; ".join(parts), (differ, size)
