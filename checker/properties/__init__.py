"""The properties every fragment must have, in the order they are reported.

A property is one module of this package that defines `PROPERTY` (an instance of
checker.properties.base.Property): it is found here, so adding one is adding its module (and its
mutant case, CONTRIBUTING). The prover, both engines' combined queries, the report, SARIF and the
mutation campaign read this registry."""
from __future__ import annotations

import importlib
import pkgutil

# modules of this package that are machinery, not properties
_MACHINERY = frozenset({"base", "enumerate", "explain"})


def _discover() -> tuple:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _MACHINERY:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        prop = getattr(module, "PROPERTY", None)
        if prop is not None:
            found.append(prop)
    names = [p.name for p in found]
    if len(set(names)) != len(names):
        raise RuntimeError(f"two property modules register one name: {sorted(names)}")
    return tuple(sorted(found, key=lambda p: (p.order, p.name)))


REGISTRY = _discover()
PROPERTIES = tuple(p.name for p in REGISTRY)


def get(name: str):
    return next(p for p in REGISTRY if p.name == name)


def table_properties(reading) -> tuple:
    """Decided from the transcribed table alone, before any engine runs."""
    return tuple(p for p in REGISTRY if p.kind == "table" and p.applies(reading))


def engine_properties(reading=None) -> tuple:
    """Those both engines decide for `reading`; without one, those of every dense layout."""
    engine = tuple(p for p in REGISTRY if p.kind != "table")
    if reading is None:
        return tuple(p for p in engine if not p.sparse_only)
    return tuple(p for p in engine if p.applies(reading))
