"""`checker.load(path)`: a spec file as a `Spec`, whose fragments are `Layout`s."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from checker.api.layout import Layout, LayoutError


@dataclass(frozen=True)
class Erratum:
    """One erratum of a spec: a text of the document kept as printed, and the reading used."""

    subject: str  # the fragment id, "title" (a section title) or "same as" (an mma.sp sentence)
    field: str  # formula, header, elements, caption, fragment, title, same_as
    printed: str  # "" where the document leaves an Elements cell empty
    reading: str
    breaks: tuple  # the properties or word checks the printed text fails
    kind: str  # contradiction (cannot be true as printed) or judgment (odd, the reading a choice)
    why: str
    where: str  # file:line:col in the spec


class Spec:
    """A spec file: one instruction shape, its sections and fragments.

    `fragment(id)` gives a fragment as a `Layout`; `ids` lists those with a formula,
    `figures_only` those the document gives only as a figure (no map to compute with).
    """

    def __init__(self, path: str, model, as_printed: bool = False):
        self._model = model  # checker.spec.model.Spec: the internal form, not part of the API
        self.path = path
        self.as_printed = as_printed
        self._layouts: dict = {}

    @property
    def shape(self) -> str:
        """`m16n8k16`."""
        return self._model.shape

    @property
    def family(self) -> str:
        """`mma`, `mma.sp` or `wgmma`."""
        return self._model.family

    @property
    def mnk(self) -> tuple:
        """(M, N, K); N is None for a shape whose N is a parameter."""
        return self._model.m, self._model.n, self._model.k

    @property
    def sections(self) -> tuple:
        """(section number, title) of each section of the document the spec transcribes."""
        return tuple((s.section, s.title) for s in self._model.sections)

    @property
    def ids(self) -> tuple:
        """The ids of the fragments that have a formula, in the order of the spec."""
        return tuple(dict.fromkeys(f.id for f in self._model.fragments()))

    @property
    def figures_only(self) -> tuple:
        """The ids of fragments the document gives only as figures: their tables are transcribed
        and checked, but there is no formula, so no map."""
        return tuple(f.id for s in self._model.sections for f in s.figures_only)

    @property
    def errata(self) -> tuple:
        """Every erratum the spec declares (section titles, "same as" sentences, fragments,
        figure-only fragments), in file order. `checker.prove` confirms each one."""
        out, seen = [], set()
        for s in self._model.sections:
            owners = [("title", e) for e in s.errata] + [("same as", e) for x in s.same_as for e in x.errata]
            owners += [(f.id, e) for f in s.fragments + s.figures_only for e in f.errata]
            for subject, e in owners:
                # a fragment with a parameter is one instance per value (D.float[N=8] .. [N=256]), each
                # carrying the erratum its spec declares once: named, as `checker errata` does, at the first
                if (e.field, str(e.span)) in seen:
                    continue
                seen.add((e.field, str(e.span)))
                out.append(Erratum(subject, e.field, e.printed, e.value.text, tuple(e.breaks), e.kind,
                                   " ".join(e.erratum.split()), str(e.span)))
        return tuple(out)

    @property
    def model(self):
        """The checker's internal form of the spec (checker.spec.model.Spec): not part of the stable API."""
        return self._model

    def fragment(self, id: str, **params) -> Layout:
        """The fragment `id` (`A.f16`, `C.float`) as a `Layout`. For a shape with a parameter,
        name its value: `fragment("D.float", N=64)`, or `fragment("D.float[N=64]")` as the
        command line does. A fragment that is given only as a figure, or that the spec does not
        have, raises `checker.LayoutError` saying what was likely meant and naming the ones it has."""
        from checker.bounded import shown
        from checker.errors import UsageError
        from checker.spec.lookup import called, split, unknown

        if not isinstance(id, str):
            raise UsageError(f"fragment() takes an id as text (one of {', '.join(self.ids)}), "
                             f"found {type(id).__name__} {id!r:.60}")
        for k, v in params.items():  # N=64.0 was taken for 64, and N="64" refused naming N=64 as the fix
            if type(v) is not int:
                raise UsageError(f"fragment({id!r}, {k}=...) takes an integer, found {type(v).__name__} {v!r:.40}")
        base, given = split(id)
        want = dict(given)
        clash = {k: v for k, v in params.items() if k in want and want[k] != v}
        if clash:
            raise LayoutError(f"{self.path}: {shown(id)} and {', '.join(f'{k}={v}' for k, v in clash.items())} "
                              "name two instances")
        want.update(params)
        found = [f for f in self._model.fragments() if split(f.id)[0] == base
                 and all(dict(f.params).get(k) == v for k, v in want.items())]
        if not found:
            if id in self.figures_only:
                raise LayoutError(f"{self.path}: {id} is given only as a figure in the document: there is no "
                                  "formula, so no map to compute with")
            asked = base + "".join(f"[{k}={v}]" for k, v in want.items())
            raise LayoutError(unknown(self._model, self.path, asked, called))
        if len(found) > 1:
            raise LayoutError(unknown(self._model, self.path, base, called))
        return self._layout_of(found[0])

    def fragments(self) -> list:
        """Every fragment with a formula, as `Layout`s, in the order of the spec."""
        return [self._layout_of(f) for f in self._model.fragments()]

    def _layout_of(self, frag) -> Layout:
        key = (frag.id, frag.params)
        if key not in self._layouts:
            self._layouts[key] = _layout(self, frag)
        return self._layouts[key]

    def __iter__(self):
        return iter(self.fragments())

    def __repr__(self) -> str:
        how = ", as printed" if self.as_printed else ""
        figs = f"; figure only: {', '.join(self.figures_only)}" if self.figures_only else ""
        return f"<Spec {self.shape} ({self.path}{how}): {', '.join(self.ids)}{figs}>"


def _layout(spec: Spec, frag) -> Layout:
    from checker.errors import SpecError
    from checker.spec.reading import materialize

    reading = materialize(frag)
    if not spec.as_printed:
        return Layout(spec, frag, reading)
    # the document as printed: every erratum of the layout's text undone at once (reading.py
    # undoes one at a time, for the prover); errata of the words change no map and stay applied
    printed = dataclasses.replace(frag, errata=tuple(e for e in frag.errata if e.words))
    try:
        return Layout(spec, frag, materialize(printed, None, reading.n), as_printed=True)
    except SpecError as exc:
        return Layout(spec, frag, None, as_printed=True,
                      error=f"{frag.id} as printed does not parse: {exc.span}: {exc.message}")


def load(path: str, as_printed: bool = False) -> Spec:
    """Load a spec file (`specs/m16n8k16.yaml`).

    as_printed=False: the reading, every erratum applied: the layouts the checker proves.
    as_printed=True: the document's text, every erratum of a layout undone: what the printed
    text says (a layout whose printed text does not parse raises `checker.LayoutError` when asked
    for a cell).

    A path that does not exist raises `checker.UsageError`; a file that cannot be read, is
    malformed, or that `checker validate` refuses raises `checker.SpecError` with its file:line:col.
    """
    import os

    from checker.errors import UsageError
    from checker.files import is_relations_file
    from checker.spec.checked import load_checked

    if not isinstance(path, (str, os.PathLike)):  # str(None) was read as a file named "None"
        raise UsageError(f"checker.load takes a path (a str or os.PathLike), found {type(path).__name__} {path!r:.60}")
    path = os.fspath(path)
    if not isinstance(path, str):
        raise UsageError(f"checker.load takes a path as text, found {type(path).__name__} {path!r:.60}")
    if not isinstance(as_printed, bool):  # "no" is truthy: it would load the printed text
        raise UsageError(f"checker.load's as_printed is True or False, found {type(as_printed).__name__} {as_printed!r:.60}")
    if is_relations_file(path):
        raise UsageError(f"{path} holds relations between fragments, not a spec: checker.prove({path!r}) proves them")
    if not os.path.lexists(path):  # as checker.prove and every command say it: a bad argument, not a spec's error
        raise UsageError(f"no such file: {path}")
    # validate's gate, as every command's: a formula, element list or erratum is otherwise read
    # only when its fragment is asked for, so a spec validate refuses would load and answer
    return Spec(path, load_checked(path), as_printed)
