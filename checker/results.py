"""Verdicts and results, shared by the prover and every report format."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

class Verdict(str, Enum):
    """What a property, theorem, relation or comparison came to: the one vocabulary of both
    engines' answers and of results. A str, so that it is its own word in JSON and text."""

    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"  # z3 gave no answer (a resource limit): never a pass
    SPEC_ERROR = "SPEC_ERROR"  # the input could not be read: nothing was proved

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


PROVED, REFUTED, UNKNOWN, SPEC_ERROR = Verdict.PROVED, Verdict.REFUTED, Verdict.UNKNOWN, Verdict.SPEC_ERROR
EXIT = {PROVED: 0, REFUTED: 1, UNKNOWN: 1, SPEC_ERROR: 3}


@dataclass(frozen=True)
class Result:
    """One verdict: a property of a fragment, or a theorem, with where and why. Immutable once
    built: a later step that adds to it (where a relation is located, that a refutation is an
    erratum's) makes a new one with `but`."""

    spec: str
    fragment: str | None
    property: str
    verdict: Verdict
    seconds: float = 0.0
    location: str | None = None
    counterexample: dict | None = None
    erratum: bool = False  # a refutation of the printed text that a declared erratum predicts
    computation: int | None = None
    message: str = ""
    detail: dict = field(default_factory=dict)
    subject: str | None = None  # a theorem about several fragments: what it is about
    declared: bool = False  # a refutation the spec itself declares (a relation stated as not holding)

    def but(self, detail: dict | None = None, counterexample: dict | None = None, **changes) -> "Result":
        """This result with `changes`, and with `detail` and `counterexample` added to its own."""
        if detail:
            changes["detail"] = {**self.detail, **detail}
        if counterexample:
            changes["counterexample"] = {**(self.counterexample or {}), **counterexample}
        return replace(self, **changes)

    def failed(self) -> bool:
        return self.verdict != PROVED and not self.erratum and not self.declared

    def as_json(self) -> dict:
        return {"spec": self.spec, "fragment": self.fragment, "computation": self.computation,
                "property": self.property, "verdict": self.verdict, "seconds": round(self.seconds, 6),
                "location": self.location, "counterexample": self.counterexample,
                "erratum": self.erratum, "subject": self.subject, "declared": self.declared,
                "message": self.message,
                "cross_check_seconds": round(self.detail.get("python_seconds", 0.0), 6)}


def summary(results: list) -> dict:
    return {
        "proved": sum(r.verdict == PROVED for r in results),
        "refuted": sum(r.verdict == REFUTED and not r.erratum and not r.declared for r in results),
        "unknown": sum(r.verdict == UNKNOWN for r in results),
        "spec_errors": sum(r.verdict == SPEC_ERROR for r in results),
        "errata_confirmed": sum(r.erratum for r in results),
        "declared_refutations": sum(r.declared for r in results),
        "theorems": sum(r.subject is not None for r in results),
    }


def exit_code(results: list) -> int:
    return max((EXIT[r.verdict] for r in results if r.failed()), default=0)
