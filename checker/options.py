"""How `checker prove` proves: the options of the command, read by the prover and by the commands
that call it (prove, errata, report, diff), which need not import the prover to build them."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Options:
    """How `checker prove` proves: the options of the command."""

    cross_check: bool = True
    dump_smt: str | None = None
    jobs: int = 1
