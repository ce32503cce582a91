"""The Python API: what `import checker` offers (checker/__init__.py names it lazily).

    >>> import checker
    >>> spec = checker.load("specs/m16n8k16.yaml")
    >>> a = spec.fragment("A.f16")
    >>> a.cell(5, 2), a.holders(9, 3)
    ((1, 2), [(17, 3)])

Importing this package imports only these small modules; the spec loader, the formula parser
and z3 are imported by the first call that needs them. docs/api.md is the reference.
"""
from checker.api.layout import Layout, LayoutError
from checker.api.proof import Proof, prove
from checker.api.spec import Erratum, Spec, load

__all__ = ["load", "prove", "Spec", "Layout", "Proof", "Erratum", "LayoutError"]
