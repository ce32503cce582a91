"""The witnesses that refute a property of a fragment: typed, so both engines, the messages and
the comparison of the two engines speak of the same thing."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """One (lane, i): where a pointwise property fails."""

    lane: int
    i: int

    def key(self) -> tuple:
        return self.lane, self.i

    def as_json(self) -> dict:
        return {"lane": self.lane, "i": self.i}


@dataclass(frozen=True)
class Pair:
    """Two points, the first smaller, that hold one cell."""

    lane: int
    i: int
    lane2: int
    i2: int
    cell: tuple

    def key(self) -> tuple:
        return self.lane, self.i, self.lane2, self.i2

    def as_json(self) -> dict:
        return {"lane": self.lane, "i": self.i, "lane2": self.lane2, "i2": self.i2, "cell": list(self.cell)}


@dataclass(frozen=True)
class Hole:
    """A cell no point holds."""

    cell: tuple

    def key(self) -> tuple:
        return self.cell

    def as_json(self) -> dict:
        return {"cell": list(self.cell)}
