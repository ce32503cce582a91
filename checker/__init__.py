"""ptx-fragment-checker: machine-checked PTX matrix fragment layouts.

The Python API (docs/api.md), stable within a minor version of `__version__`:

    import checker
    spec = checker.load("specs/m16n8k256.yaml")           # as_printed=True: the document's text
    a = spec.fragment("A.b1")                              # a Layout
    a.cell(4, 98)                                          # (row, col) of lane 4's a98
    a.holders(9, 130)                                      # [(thread, i), ...]
    print(a.to_cute())                                     # also to_triton, to_cpp, to_python
    proof = checker.prove("specs/")                        # verdicts and counterexamples

`import checker` stays cheap: the names below are imported on first use, and nothing imports
z3, lark or YAML until a spec is loaded or proved.
"""

__version__ = "0.1.0"

# name -> the module that defines it; `checker.load` etc. resolve on first use (PEP 562)
_API = {"load": "checker.api.spec", "Spec": "checker.api.spec", "Erratum": "checker.api.spec",
        "Layout": "checker.api.layout", "LayoutError": "checker.api.layout",
        "prove": "checker.api.proof", "Proof": "checker.api.proof",
        "Result": "checker.results", "CheckerError": "checker.errors", "SpecError": "checker.errors",
        "UsageError": "checker.errors"}

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'checker' has no attribute {name!r}")
    # importlib, not an import statement: every module of the package imports `checker` itself
    # (`from checker import outputs`), and the package must not import them back when it loads
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
