"""The statements of the `ldmatrix-blocks/...` relations say how large a block is; the equations
say it too (the right side moves lane 0's cell by %laneid / 4 along one dimension and by
(%laneid % 4) chunks of 32 bits along the other), so the words are held to the layouts: every
32-bit register of the warp is 8 lines (rows of A, columns of B) of 128 bits, four 32-bit chunks
to a line. The statements had called the blocks "8-row x 32-bit", a quarter of what is proved."""
import os

import pytest
import yaml

from conftest import SPECS

from checker.spec.load import load_spec

WIDTH = {"f16": 16, "bf16": 16, "u8": 8, "s8": 8, "e4m3": 8, "e5m2": 8, "s4": 4, "u4": 4, "b1": 1}

with open(os.path.join(SPECS, "relations.yaml"), encoding="utf-8") as fh:
    RELATIONS = [r for r in yaml.safe_load(fh)["relations"]
                 if r["id"].startswith("ldmatrix-blocks/") and r["expect"] == "holds"]


def test_there_are_blocks_to_check():
    assert len(RELATIONS) == 8


@pytest.mark.parametrize("rel", RELATIONS, ids=[r["id"] for r in RELATIONS])
def test_a_block_statement_gives_the_size_the_layout_has(rel):
    shape, fid = rel["left"]["fragment"].split("/", 1)
    f = load_spec(os.path.join(SPECS, shape + ".yaml")).fragment(fid)
    from checker.spec.reading import materialize
    from checker.formula.evaluate import at
    reading = materialize(f)
    width = {WIDTH[t] for t in f.types}
    assert len(width) == 1
    width = width.pop()
    per = 32 // width
    for reg in range(reading.n // per):
        cells = set()
        for lane in range(32):
            for i in range(reg * per, (reg + 1) * per):
                rows, cols = at(reading.layout, lane, i)
                cells.add((rows[0][1], cols[0][1]))
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        lines, along = (rows, cols) if f.operand == "A" else (cols, rows)
        assert len(lines) == 8 and len(along) * width == 128, (reg, sorted(rows), sorted(cols))
    words = rel["statement"]
    assert "x 32-bit block" not in words
    assert "x 128-bit block" in words or "8x8 block of 16-bit elements" in words
