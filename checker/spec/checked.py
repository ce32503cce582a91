"""The one gate a spec passes before any command uses it: what `checker validate` checks.

Loading (checker/spec/load.py) checks the structure and the file's own meaning; a formula, an
element list or an erratum's printed text is only parsed, lowered and bounded when its fragment
is read. A command that read one fragment (where, eval, export, table) or none (simulate's list,
probe --compile-only) would otherwise exit 0 on a spec that validate refuses with exit 3.
`checker prove` is the exception: it reads every fragment itself and reports each failure as
that fragment's located result (checker/loading.py).
"""
from __future__ import annotations


def check(spec) -> None:
    """Every fragment's reading, and each erratum's printed text, read as validate reads them: a
    located SpecError for the first that fails. (A printed text that does not parse is no error:
    that is what a `syntax` erratum declares, and the proof checks it.)"""
    from checker.spec.reading import materialize  # here: loading a spec must not import lark

    for frag in spec.fragments():
        reading = materialize(frag)
        for erratum in frag.errata:
            materialize(frag, erratum, reading.n)


def load_checked(path: str, data: bytes | None = None):
    """The spec of the file at `path`, through the gate."""
    from checker.spec.load import load_spec

    spec = load_spec(path, data)
    check(spec)
    return spec
