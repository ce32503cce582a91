"""z3's half of `checker compare` and `checker conformance`: is there a (t, i) in the box where the
spec's map and a candidate layout differ -- one holds the point and the other does not, or both
do and give different cells? One quantifier-free query; unsat is the proof of equality, a model
the smallest counterexample (lexicographic in (t, i), as the enumeration finds it).

The candidate arrives as plain data (checker.compare.candidates: `form()`): CuTe modes, GF(2)
bases, a formula layout, or a table. Everything is 32-bit: the CuTe parser bounds every index
below 2**30 and the formulas are sign-extended from their own proved-wide width."""
from __future__ import annotations

import time

from checker.smt.solver import RLIMIT, Session, Var, bv
from checker.smt.symbolic import Answer, signed, symbolic
from checker.smt.terms import conj
from checker.results import PROVED, REFUTED, UNKNOWN

W = 32


def _ext(term: str, width: int) -> str:
    return term if width == W else f"((_ sign_extend {W - width}) {term})"


def _low(term: str, width: int) -> str:
    return term if width == W else f"((_ extract {width - 1} 0) {term})"


def _below(x, k: int) -> str:
    return f"(bvult {x} {bv(k, W)})"


def _lane(t, lanes: tuple) -> str:
    """The lane of thread index t: itself, or the position among a computation's lanes."""
    if lanes == tuple(range(len(lanes))):
        return str(t)
    out = bv(0, W)
    for k in reversed(range(len(lanes))):
        out = f"(ite (= {t} {bv(k, W)}) {bv(lanes[k], W)} {out})"
    return out


def _strided(x, modes) -> str:
    idx, rest = bv(0, W), str(x)
    for size, stride in modes:
        idx = f"(bvadd {idx} (bvmul (bvurem {rest} {bv(size, W)}) {bv(stride, W)}))"
        rest = f"(bvudiv {rest} {bv(size, W)})"
    return idx


def _xor(x, bases, k) -> str:
    acc = bv(0, W)
    for j, b in enumerate(bases):
        acc = f"(bvxor {acc} (ite (= ((_ extract {j} {j}) {x}) #b1) {bv(b[k], W)} {bv(0, W)}))"
    return acc


def _tree(key: str, width: int, items: list, pick, vw: int = W) -> str:
    """A balanced search over the table's keys (`width` bits): depth log2 of its size, whatever its
    size; its values are `vw`-bit, -1 where no key matches."""
    if len(items) == 1:
        k, v = items[0]
        return f"(ite (= {key} {bv(k, width)}) {bv(pick(v), vw)} {bv(-1, vw)})"
    mid = len(items) // 2
    return (f"(ite (bvult {key} {bv(items[mid][0], width)}) {_tree(key, width, items[:mid], pick, vw)} "
            f"{_tree(key, width, items[mid:], pick, vw)})")


def candidate_terms(form: tuple, t, i, whole: bool = False) -> tuple:
    """(holds, row, col) of the candidate at (t, i), 32-bit terms (`whole`: a TMEM atom's registers
    are proved whole, _tmem_whole)."""
    kind = form[0]
    if kind == "cute":
        _, thread, value, rows, transposed, threads, elements, sparse = form
        if sparse > 1:
            return _sparse_cute(thread, value, rows, transposed, threads, elements, sparse, t, i)
        idx = f"(bvadd {_strided(t, thread)} {_strided(i, value)})"
        r, c = f"(bvurem {idx} {bv(rows, W)})", f"(bvudiv {idx} {bv(rows, W)})"
        r, c = (c, r) if transposed else (r, c)
        return conj([_below(t, threads), _below(i, elements)]), r, c
    if kind == "bases":
        _, thread, register, threads, elements = form
        r = f"(bvxor {_xor(t, thread, 0)} {_xor(i, register, 0)})"
        c = f"(bvxor {_xor(t, thread, 1)} {_xor(i, register, 1)})"
        return conj([_below(t, threads), _below(i, elements)]), r, c
    if kind == "formula":
        _, layout, width, transposed, threads, elements = form
        at = symbolic(layout, width).at(_low(str(t), width), _low(str(i), width))
        r, c = _ext(at.row, width), _ext(at.col, width)
        r, c = (c, r) if transposed else (r, c)
        return conj([_below(t, threads), _below(i, elements)]), r, c
    if kind == "cute-copy":
        return _copy_atom(form, t, i)
    if kind == "cute-tmem":
        return _tmem_atom(form, t, i, whole)
    if kind == "table":
        _, entries, threads, elements = form
        if not entries:
            return "false", bv(-1, W), bv(-1, W)
        # the key is t and i side by side in as few bits as the table's own indices need, and the
        # values as few as theirs, not 32: z3 bit-blasts every comparison and choice of the search
        # (the seven reference tables of 1024 entries and more: 4.6 s at 32 bits, 3.3 s so).
        # Outside the table's threads x elements the key would wrap: nothing is held there.
        kt, ki = max(1, (threads - 1).bit_length()), max(1, (elements - 1).bit_length())
        key = f"(concat ((_ extract {kt - 1} 0) {t}) ((_ extract {ki - 1} 0) {i}))"
        items = [((tt << ki) | ii, cell) for (tt, ii), cell in entries]
        vw = min(W, 1 + max(max(abs(x), 1).bit_length() for _, cell in entries for x in cell))  # signed, -1 too
        r = _ext(_tree(key, kt + ki, items, lambda v: v[0], vw), vw)
        c = _ext(_tree(key, kt + ki, items, lambda v: v[1], vw), vw)
        return conj([_below(t, threads), _below(i, elements), f"(distinct {r} {bv(-1, W)})"]), r, c
    raise ValueError(f"unknown candidate form {kind!r}")  # pragma: no cover


def _sparse_cute(thread, value, rows, transposed, threads, elements, sparse, t, i) -> tuple:
    """CuTe's sparse_elem<S, T>: stored element i is logical values S*i .. S*i + S-1 of the layout
    over the uncompressed tile; held where they share a row and a run of S columns, at column / S.
    K is the tile's column: the compressed cell is transposed after dividing it, as
    candidates.Cute._stored does (a transposed B's N must not be divided)."""
    cells = []
    for k in range(sparse):
        v = f"(bvadd (bvmul {i} {bv(sparse, W)}) {bv(k, W)})"
        idx = f"(bvadd {_strided(t, thread)} {_strided(v, value)})"
        cells.append((f"(bvurem {idx} {bv(rows, W)})", f"(bvudiv (bvudiv {idx} {bv(rows, W)}) {bv(sparse, W)})"))
    r, c = cells[0]
    same = [f"(and (= {x} {r}) (= {y} {c}))" for x, y in cells[1:]]
    return (conj([_below(t, threads), _below(i, elements)] + same),) + ((c, r) if transposed else (r, c))


def _copy_atom(form: tuple, t, i) -> tuple:
    """A CuTe copy atom (checker.compare.copyatom): the bit of the tile its registers give element i,
    held when the element's bits are consecutive, aligned, inside the tile and in a row some thread
    addresses; the row renumbered to the first thread whose memory row it is."""
    _, thread, value, bits, tile_rows, shuffle, memory, threads, elements = form
    e = str(i)
    for k in reversed(range(len(shuffle))):
        e = f"(ite (= {i} {bv(k, W)}) {bv(shuffle[k], W)} {e})"
    first = f"(bvmul {e} {bv(bits, W)})"
    at_t = _strided(t, thread)
    b = f"(bvadd {at_t} {_strided(first, value)})"
    held = [_below(t, threads), _below(i, elements), f"(= (bvurem {b} {bv(bits, W)}) {bv(0, W)})",
            _below(b, tile_rows * 128)]
    held += [f"(= (bvadd {at_t} {_strided(f'(bvadd {first} {bv(k, W)})', value)}) (bvadd {b} {bv(k, W)}))"
             for k in range(1, bits)]
    row = f"(bvudiv {b} {bv(128, W)})"
    col = f"(bvudiv (bvurem {b} {bv(128, W)}) {bv(bits, W)})"
    if memory is not None:
        modes, addressers = memory
        # the first u whose row it is: one nested ite, written in one pass (built inside out, the
        # text was copied once per thread)
        row = "".join(f"(ite (= (bvudiv {_strided(bv(u, W), modes)} {bv(128, W)}) {row}) {bv(u, W)} "
                      for u in range(addressers)) + bv(-1, W) + ")" * addressers
        held.append(f"(distinct {row} {bv(-1, W)})")
    return conj(held), row, col


def _tmem_parts(form: tuple, t, i, k) -> tuple:
    """A TMEM atom's (address of register i's first bit, address of its bit k, logical bit id)."""
    _, thread, value, val_id, _total, _threads, _elements = form
    first = f"(bvmul {i} {bv(32, W)})"
    at_t = _strided(t, thread)
    b = f"(bvadd {at_t} {_strided(first, value)})"
    bit_k = f"(bvadd {at_t} {_strided(f'(bvadd {first} {k})', value)})"
    return _strided(b, val_id), _strided(bit_k, val_id), b


def _tmem_atom(form: tuple, t, i, whole: bool = False) -> tuple:
    """A CuTe TMEM copy atom (checker.compare.tmem): register i's logical bit id through the
    registers layout, its bit address through the ValID (one layout: its modes strided over the
    bit id), held when its 32 bits are 32 consecutive addresses starting at a column; the cell is
    (address / DP_b, (address % DP_b) / 32), DP_b = TMEM::DP_b = 1 << 21. `whole`: z3 has proved
    (_tmem_whole) that every register of the domain is 32 consecutive addresses, so that clause,
    31 equations of each point, is left out."""
    _, _thread, _value, _val_id, total, threads, elements = form
    dp_b = 1 << 21
    a, _, b = _tmem_parts(form, t, i, bv(0, W))
    held = [_below(t, threads), _below(i, elements), _below(b, total), f"(= (bvurem {a} {bv(32, W)}) {bv(0, W)})"]
    if not whole:
        held += [f"(= {_tmem_parts(form, t, i, bv(k, W))[1]} (bvadd {a} {bv(k, W)}))" for k in range(1, 32)]
    return conj(held), f"(bvudiv {a} {bv(dp_b, W)})", f"(bvudiv (bvurem {a} {bv(dp_b, W)}) {bv(32, W)})"


def _tmem_whole(name: str, form: tuple, dump_dir) -> str:
    """Is every register of the atom's domain 32 consecutive addresses? One query over (t, i, k),
    k the bit: sat where some bit k of some register is not its first bit's address + k. Its
    answer (unsat, sat or unknown): only unsat lets `differ` leave the equations out."""
    t, i, k = Var("cmp.t", W), Var("cmp.i", W), Var("cmp.k", W)
    a, a_k, _ = _tmem_parts(form, t, i, k)
    session = Session(name, dump_dir, rlimit=RLIMIT * 20)
    return session.check("registers", _below(t, form[5]), _below(i, form[6]), _below(k, 32),
                         f"(bvuge {k} {bv(1, W)})", f"(distinct {a_k} (bvadd {a} {k}))").status


def differ(name: str, reading, lanes: tuple, n: int, form: tuple, box: tuple, expect=None,
           dump_dir=None) -> Answer:
    """The smallest (t, i) of the box (t < box[0], i < box[1]) where the spec's reading (thread t is
    lane lanes[t]; elements 0..n-1) and the candidate differ. `expect`: the enumeration's point."""
    t0 = time.perf_counter()
    t, i = Var("cmp.t", W), Var("cmp.i", W)
    w = reading.width
    at = symbolic(reading.layout, w).at(_low(_lane(t, lanes), w), _low(str(i), w))
    s_has = conj([_below(t, len(lanes)), _below(i, n)])
    s_row, s_col = _ext(at.row, w), _ext(at.col, w)
    whole = form[0] == "cute-tmem" and _tmem_whole(f"{name}.whole", form, dump_dir) == "unsat"
    c_has, c_row, c_col = candidate_terms(form, t, i, whole)
    # a table or function candidate is a lookup over every point (4096 for m16n8k256 A): confirming
    # the smallest witness of one that differs everywhere needs ~10x a fragment query's resources
    session = Session(name, dump_dir, rlimit=RLIMIT * 20)
    session.add(_below(t, box[0]), _below(i, box[1]))
    wrong = (f"(or (distinct {s_has} {c_has}) (and {s_has} (or (distinct {s_row} {c_row}) "
             f"(distinct {s_col} {c_col}))))")
    values = (s_has, s_row, s_col, c_has, c_row, c_col)
    out = session.minimize("differ", [t, i], wrong, values=values, expect=expect)
    if out.status == "unsat":
        answer = Answer(PROVED, queries=["differ"])
    elif out.status == "sat":
        m = out.model
        cell = lambda has, r, c: [signed(m[r], W), signed(m[c], W)] if m[has] else None  # noqa: E731
        answer = Answer(REFUTED, {"t": m[str(t)], "i": m[str(i)], "spec": cell(s_has, s_row, s_col),
                                    "candidate": cell(c_has, c_row, c_col)}, queries=["differ"])
    else:
        answer = Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=["differ"])
    answer.seconds = time.perf_counter() - t0
    return answer
