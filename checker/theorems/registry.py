"""The theorem families, found: every module of checker/theorems/ that defines FAMILY (family.py
says what one is). Modules are imported here, once; what is heavy in them (numpy for the
containers theorems) each imports when it is asked."""
from __future__ import annotations

import importlib
import pkgutil

import checker.theorems as _package
from checker.theorems.family import Asked


def _discover() -> tuple:
    found = []
    for info in pkgutil.iter_modules(_package.__path__):
        family = getattr(importlib.import_module(f"{_package.__name__}.{info.name}"), "FAMILY", None)
        if family is not None:
            found.append(family)
    for k, a in enumerate(found):  # one name may be two modules' (wgmma's warpgroup and wgmma.sp's), never for one spec
        for b in found[k + 1:]:
            if a.name == b.name and set(a.holds) & set(b.holds):
                raise RuntimeError(f"two theorem families named {a.name!r} hold {sorted(set(a.holds) & set(b.holds))}")
    return tuple(sorted(found, key=lambda f: (f.order, f.name, f.holds)))


REGISTRY = _discover()
# the families the readings alone decide, in order: a task each, and a stage of the mutation campaign
FAMILIES = tuple(dict.fromkeys(f.name for f in REGISTRY if f.readings_only))


def of(spec) -> tuple:
    """The families a spec is held to, in the order their results stand."""
    return tuple(f for f in REGISTRY if spec.family in f.holds)


def spec_theorems(spec, readings, opts, families=FAMILIES) -> list:
    """The theorems the readings alone decide, of the spec's own families among `families` (a task
    asks one; the mutation campaign each in turn)."""
    out = []
    for f in of(spec):
        if f.readings_only and f.name in families:
            out += f.prove(Asked(spec, readings, opts))
    return out


def meanings() -> dict:
    """name -> what it means, for SARIF's rules and the report's table."""
    return {f.name: f.meaning for f in REGISTRY}
