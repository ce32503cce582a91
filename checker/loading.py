"""Loading one spec for a proof: the spec, or the result that says why it could not be loaded.
Shared by the prover and the `same_as` theorems; it imports no prover."""
from __future__ import annotations

from checker.errors import SpecError


def load(path: str) -> tuple:
    """(spec, None), or (None, [the result that says why it could not be loaded]). Each spec's
    bytes are read, and recorded for the result cache, every time; its model is made once per
    process (checker.spec.load keeps it by the bytes read)."""
    from checker.spec.load import load_spec

    try:
        return load_spec(path), None
    except SpecError as exc:
        return None, [load_error(path, exc)]


def load_error(path: str, exc: SpecError):
    from checker.results import SPEC_ERROR, Result

    return Result(path, None, "load", SPEC_ERROR, location=str(exc.span) if exc.span else path,
                  message=exc.message + (f" ({exc.hint})" if exc.hint else ""))
