"""The `cute-copy` encoding of a reference entry (CuTe's ldmatrix / stmatrix / movmatrix copy atoms),
read and validated field by field; every error located in the data file (a SpecError, exit 3).

    kind: cute-copy
    registers: CuTe layout       the register side, (thread, bit) -> bit of the tile
    memory: CuTe layout          optional: the shared-memory side, thread -> its row (128 bits)
    tile: [rows, 128]            rows of 128 bits
    element_bits: 8 | 16 | ...   the bits of one element of the spec's fragment
    shuffle: {path, line, registers: ["tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y", ...]}   optional

What the fields mean: checker.compare.copyatom.
"""
from __future__ import annotations

from checker.errors import SpecError
from checker.source import from_node

ELEMENT_BITS = (1, 2, 4, 8, 16, 32, 64, 128)  # an element never straddles a 128-bit row
MAX_ROWS = 4096
MAX_MEMORY_THREADS = 1024


def cute_copy(d, enc, path, expect) -> dict:
    """The fields of the encoding, with the candidate (`atom`) built. A layout that is not what an
    atom's side must be is an error, or, for an entry that expects `malformed`, its `problem`."""
    from checker.compare import candidates, copyatom, cute

    enc = d.mapping(enc, path, ("kind", "registers", "tile", "element_bits"), ("memory", "shuffle"))
    bits = d.integer(enc["element_bits"], path + ["element_bits"], 1, 128)
    if bits not in ELEMENT_BITS:
        d.err(path + ["element_bits"], f"expected a power of two that divides 128, found the number {bits}")
    tile = enc["tile"]
    if not isinstance(tile, list) or len(tile) != 2:
        d.err(path + ["tile"], "expected [rows, 128] (rows of 128 bits)")
    rows = d.integer(tile[0], path + ["tile", 0], 1, MAX_ROWS)
    if type(tile[1]) is not int or tile[1] != copyatom.ROW_BITS:  # 128.0 and true are not 128
        d.err(path + ["tile", 1], f"expected 128 (a tile row is 128 bits), found {tile[1]!r}")
    shuffle = _shuffle(d, enc["shuffle"], path + ["shuffle"], bits) if "shuffle" in enc else ()
    fields = {"registers_text": d.string(enc["registers"], path + ["registers"]), "tile": (rows, copyatom.ROW_BITS),
              "bits": bits, "problem": None, "atom": None}
    try:
        registers = cute.parse(_source(d, path + ["registers"]), "registers")
        if registers.values % bits:
            raise SpecError(d.doc.span(tuple(path + ["registers"])),
                            f"registers: the value mode has {registers.values} bits, not a whole number of "
                            f"{bits}-bit elements")
        # an atom holds only some points of its domain: compare asks each one beyond the spec's
        if registers.threads * (registers.values // bits) > candidates.MAX_SEARCHED:
            raise SpecError(d.doc.span(tuple(path + ["registers"])),
                            f"registers: {registers.threads} threads x {registers.values // bits} elements, more "
                            f"than {candidates.MAX_SEARCHED} points (an atom is one instruction's registers)")
        if shuffle and len(shuffle) != registers.values // bits:
            raise SpecError(d.doc.span(tuple(path + ["shuffle", "registers"])),
                            f"the shuffle moves {len(shuffle)} elements; the registers hold "
                            f"{registers.values // bits}")
        memory = None
        if "memory" in enc:
            d.string(enc["memory"], path + ["memory"])
            memory = cute.parse(_source(d, path + ["memory"]), "memory")
            if memory.threads > MAX_MEMORY_THREADS:
                # each thread's row is checked, and z3 reads the first addresser of a row through all
                # of them: 65536 threads did not end
                raise SpecError(d.doc.span(tuple(path + ["memory"])),
                                f"memory: {memory.threads} threads, more than {MAX_MEMORY_THREADS} (a block's "
                                "threads at most; an ldmatrix's addresses come from one warp)")
            problem = copyatom.memory_problem(memory, rows)
            if problem:
                raise SpecError(d.doc.span(tuple(path + ["memory"])), f"memory: {problem}")
    except SpecError as exc:
        if expect != "malformed":
            raise
        fields["problem"] = exc
        return fields
    fields["atom"] = copyatom.CopyAtom(registers, rows, bits, memory, shuffle)
    return fields


def _source(d, path):
    return from_node(d.doc.nodes[tuple(path)], d.doc.text, d.doc.path)


def _shuffle(d, value, path, bits) -> tuple:
    from checker.compare import copyatom

    value = d.mapping(value, path, ("path", "line", "registers"))
    d.string(value["path"], path + ["path"])
    d.integer(value["line"], path + ["line"], 1)
    regs = value["registers"]
    if bits != 8:
        d.err(path, f"a shuffle moves bytes (x, y, z, w of a 32-bit register): element_bits must be 8, not {bits}",
              key=True)
    if not isinstance(regs, list) or not regs or len(regs) > 64:
        d.err(path + ["registers"], "expected a list of 1..64 registers, each \"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y\"")
    for k, text in enumerate(regs):
        d.string(text, path + ["registers", k], what="a register's bytes, \"tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y\"")
    try:
        return copyatom.parse_shuffle(regs, bits)
    except ValueError as exc:
        k, message = exc.args
        d.err(path + ["registers", k], message)


def cute_tmem(d, enc, path, expect) -> dict:
    """The fields of a `cute-tmem` encoding (CuTe's tcgen05.ld / tcgen05.st atoms), with the
    candidate (`atom`) built:

        kind: cute-tmem
        registers: CuTe layout    the register side, (thread, bit) -> logical bit id
        val_id: CuTe layout       the atom's ValID, logical bit id -> TMEM bit address (DP_b = 1 << 21)
        thr_id: CuTe layout       optional: the atom's ThrID, which must be the identity (_32:_1)

    `val_id` and `thr_id` may have any rank (CuTe's print() of a ThrID is `_32:_1`). What the
    fields mean: checker.compare.tmem."""
    from checker.compare import candidates, cute, tmem

    enc = d.mapping(enc, path, ("kind", "registers", "val_id"), ("thr_id",))
    fields = {"registers_text": d.string(enc["registers"], path + ["registers"]),
              "val_id_text": d.string(enc["val_id"], path + ["val_id"]), "problem": None, "atom": None}
    if "thr_id" in enc:
        d.string(enc["thr_id"], path + ["thr_id"])
    try:
        registers = cute.parse(_source(d, path + ["registers"]), "registers")
        val_id = cute.parse_any(_source(d, path + ["val_id"]), "val_id")
        wrong = tmem.problem(registers, val_id)
        if wrong is None and registers.threads * (registers.values // tmem.BITS) > candidates.MAX_SEARCHED:
            wrong = (f"registers: {registers.threads} threads x {registers.values // tmem.BITS} registers, more than "
                     f"{candidates.MAX_SEARCHED} points (an atom is one instruction's registers)")
        if wrong is None and "thr_id" in enc:
            wrong = tmem.thr_problem(cute.parse_any(_source(d, path + ["thr_id"]), "thr_id"), registers)
        if wrong is not None:
            raise SpecError(d.doc.span(tuple(path + [wrong.split(":")[0]])), wrong)
    except SpecError as exc:
        if expect != "malformed":
            raise
        fields["problem"] = exc
        return fields
    fields["atom"] = tmem.TmemAtom(registers, val_id)
    return fields
