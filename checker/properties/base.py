"""What a property of a fragment is, and the witnesses that refute one.

A property lives in one module of this package and is registered in `checker.properties`: its
name, what it means, its plain-Python witness (the smallest, in (lane, i) order), its violation
as SMT-LIB text over the z3 engine's point, and the message a refutation prints. The prover, the
combined query, SARIF, the report and the mutation campaign read the registry, so adding a
property is one module and its mutant case (CONTRIBUTING)."""
from __future__ import annotations

from dataclasses import dataclass

from checker.witness import Hole, Pair, Point

# what a property module imports from here: the witnesses it gives, with the two classes above
__all__ = ("Finding", "Hole", "Pair", "Point", "Property")


@dataclass(frozen=True)
class Finding:
    """What a refutation says: the counterexample (JSON), where to point, and the sentence."""

    counterexample: dict
    location: str | None
    message: str


class Property:
    """A property of one reading over one domain of lanes.

    `kind` says how the engines decide it:
      table   from the transcribed table alone (`check`); no engine has anything to add
      point   some (lane, i) violates it: `violation(q)` and `enumerate(ev)` give a Point
      pair    two points violate it together: a Pair
      cell    about the matrix's cells (covers): its own `smt` and `enumerate`
    """

    name: str = ""
    order: int = 0  # where it is reported and asked: cheaper and more basic first
    meaning: str = ""  # one line: the SARIF rule's description and the report's
    kind: str = "point"
    sparse_only: bool = False  # asked only of a sparse A (mma.sp)

    def applies(self, reading) -> bool:
        """Whether the engines ask it of this reading (default: every reading with formulas)."""
        return reading.layout is not None

    def check(self, reading):  # kind == "table": (verdict, Finding | None)
        raise NotImplementedError

    def enumerate(self, ev):
        """The smallest witness in the evaluated domain (checker.properties.enumerate), or None."""
        raise NotImplementedError

    def violation(self, q) -> str:
        """SMT-LIB: true where a point (and, for a pair, the engine's second point) violates it.
        `q` is the z3 engine's query context (checker.smt.properties.FragmentProver)."""
        raise NotImplementedError

    def message(self, ex, witness) -> Finding:
        """A refutation a person can check by hand (ex: checker.properties.explain.Explain)."""
        raise NotImplementedError
