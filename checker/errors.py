"""One root exception; every error about a spec carries where it happened."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceSpan:
    """A place in a file, as file:line:col."""

    file: str
    line: int  # 1-based
    col: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class CheckerError(Exception):
    """Root of every error the checker raises on purpose."""


class UsageError(CheckerError):
    """Bad command line: exit code 2."""


class SpecError(CheckerError):
    """A spec that cannot be loaded or is malformed: exit code 3."""

    def __init__(self, span: SourceSpan | None, message: str, hint: str | None = None):
        super().__init__(message)
        self.span = span
        self.message = message
        self.hint = hint

    def __reduce__(self):
        # a forked worker hands a spec error back to the process that reports it (checker/workers.py)
        return type(self), (self.span, self.message, self.hint)

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}error: {self.message}{hint}"
