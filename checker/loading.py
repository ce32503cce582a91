"""Loading one spec for a proof: the spec, or the result that says why it could not be loaded.
Shared by the prover and the `same_as` theorems; it imports no prover."""
from __future__ import annotations

import hashlib

from checker.errors import SpecError

# (path as named, SHA-256 of its bytes) -> Spec: a proof reads some specs several times (those it
# proves, and the neighbours that same_as sentences, compositions and relations name, in every
# worker that needs them), and reading one (YAML, the JSON Schema check, the model) costs about
# 15 ms. Keyed by the bytes read, never by a file's name or time alone: a file that changed is
# loaded again. Bounded: the mutation campaign loads thousands of mutants.
_LOADED: dict = {}
MAX_LOADED = 64


def load(path: str) -> tuple:
    """(spec, None), or (None, [the result that says why it could not be loaded])."""
    from checker import recording
    from checker.spec.load import load_spec
    from checker.spec.yamlload import MAX_BYTES

    try:
        data = recording.read_regular(path, MAX_BYTES)  # recorded for the result cache on every read
        # the path as named, not made absolute: a Spec's locations quote it as it was given
        key = (path, hashlib.sha256(data).digest())
        spec = _LOADED.get(key)
        if spec is None:
            spec = load_spec(path, data)
            if len(_LOADED) >= MAX_LOADED:
                _LOADED.clear()
            _LOADED[key] = spec
        return spec, None
    except SpecError as exc:
        return None, [load_error(path, exc)]


def load_error(path: str, exc: SpecError):
    from checker.results import SPEC_ERROR, Result

    return Result(path, None, "load", SPEC_ERROR, location=str(exc.span) if exc.span else path,
                  message=exc.message + (f" ({exc.hint})" if exc.hint else ""))
