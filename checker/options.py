"""How `checker prove` proves: the options of the command. Its own module so that the prover and
the process that launches it (checker/launch.py) both read it and neither imports the other for it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Options:
    """How `checker prove` proves: the options of the command."""

    cross_check: bool = True
    dump_smt: str | None = None
    jobs: int = 1
