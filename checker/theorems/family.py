"""What a theorem family is: theorems of one kind, asked of the specs of some instruction families.

A family lives in one module of this package that defines `FAMILY`, an instance of
TheoremFamily, and is found by checker/theorems/registry.py: its name, where its results stand, what
it means (SARIF's rule and the report's table), the instruction families whose specs it is asked of,
whether it reads the fragments' results (asked in the spec's own process once they are proved) or
is a task of the workers of its own, and the function that proves it. The prover, the mutation
campaign, SARIF and the report read the registry, so adding a family is one module (CONTRIBUTING)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Asked:
    """What a family is asked with: the spec, its readings (checker.prover reads them lazily), the
    run's options; and, where it is asked after the fragments, their results and the spec's
    neighbours (`resolve`: shape -> its spec, for a "same as" sentence)."""

    spec: object
    readings: object
    opts: object
    fragment_results: tuple | None = None
    resolve: Callable | None = None


@dataclass(frozen=True)
class TheoremFamily:
    name: str
    order: int  # where its results stand among a spec's, and when the mutation campaign asks it
    meaning: str  # one line: the SARIF rule's description and the report's
    holds: tuple  # the instruction families (checker/families.py) whose specs it is asked of
    prove: Callable  # Asked -> [Result]
    # asked in the spec's own process once its fragments are proved (it reads their results, or the
    # spec's neighbours), not as a task of the workers
    after_fragments: bool = False
    # decided from the readings alone, so that the mutation campaign can ask it of a mutant's
    readings_only: bool = True
