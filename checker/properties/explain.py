"""What every refutation message is made of: the pieces of the formulas that apply at a point,
with their file:line:col, and the command that replays it."""
from __future__ import annotations

from dataclasses import dataclass

from checker.formula.evaluate import at, bound_at


@dataclass(frozen=True)
class Explain:
    """One reading of one spec, over one computation's lanes (None: the whole domain)."""

    spec_path: str
    reading: object
    computation: int | None = None

    @property
    def fragment(self):
        return self.reading.fragment

    @property
    def letter(self) -> str:
        return self.fragment.letter

    @property
    def matrix(self) -> str:
        f = self.fragment
        return f"the compressed {f.operand}" if f.sparsity is not None else f.operand

    def pieces_at(self, lane: int, i: int) -> tuple:
        """(row hits, col hits, the applying pieces with their places, every formula's hits)."""
        layout = self.reading.layout
        rows, cols = at(layout, lane, i)
        out = []
        named = [("row", rows, layout.row), ("col", cols, layout.col)]
        named += [(name, hits, formula) for (name, hits), formula in zip(bound_at(layout, lane, i), layout.bound)]
        for target, hits, formula in named:
            for k, value, _ in hits:
                out.append({"point": f"lane {lane} {self.letter}{i}", "formula": target, "piece": k + 1, "value": value,
                            "at": str(layout.src.span(formula.pieces[k].off))})
        return rows, cols, out, named

    def _printed(self) -> str:
        reverted = self.reading.reverted
        return f" --as-printed {self.fragment.errata.index(reverted) + 1}" if reverted is not None else ""

    def replay(self, lane: int, i: int) -> str:
        return f"checker eval {self.spec_path} --fragment {self.fragment.id} --lane {lane} --i {i}{self._printed()}"

    def replay_cell(self, row: int, col: int) -> str:
        """The replay of a cell no point holds: `where` answers "no lane holds it"."""
        f = self.fragment
        compressed = " --compressed" if f.sparsity is not None else ""
        return f"checker where {self.spec_path} --fragment {f.id} --row {row} --col {col}{compressed}{self._printed()}"

    def finish(self, message: str) -> str:
        """The message with the computation and the printed-text marks every refutation carries."""
        if self.computation is not None:
            message += f" (MMA computation {self.computation})"
        if self.reading.reverted is not None:
            message = "as printed: " + message
        return message
