"""What proving a file proves: its scope. One rule, used by `prove`, `diff`, `mutate`, the
pre-commit hooks and the workflow (they pass the files they were given; this widens them):

    Proving a spec file proves everything its correctness depends on and everything that depends
    on it, within the folder it lives in: the relations of relations.yaml beside it that name one
    of its fragments, the `same_as` references that name its fragments (from other specs) or that
    it makes, the specs whose family theorems read its fragments or whose fragments its own
    theorems read (a wgmma spec and the mma.sync specs it is tied to: checker.families.reads),
    and the specs those relations and references name. Proving relations.yaml proves
    all its relations and every spec they name. One step, not a closure: a named spec is proved,
    its own relations to third specs are not.

A relation between a spec and itself is in its scope like any other. Output still reports per
file; the exit code covers the whole scope.

The relations file in a scope is a `Relations` path: a str (so every command and the cache treat
it as the path it is) that carries the shapes whose relations are in scope, or None for all of
them (checker/prover.py and checker/theorems/relations.py read it). Everything here is cheap: the
relations file is read as YAML once, sibling specs are scanned for "shape/" before being read.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from checker.bounded import read_regular
from checker.errors import SpecError
from checker.families import reads
from checker.files import RELATIONS_FILE, is_relations_file, is_untranscribed_file


class Relations(str):
    """The path of a relations file, with the shapes whose relations are in scope (None: all),
    and `focus`: the shapes of the spec files given beside it (a failed relation is blamed on a
    formula of one of them), or an empty set where the relations file alone was given (then the
    relation itself is the suspect), or None (not known: a plain path)."""

    shapes: frozenset | None = None
    focus: frozenset | None = None

    def __new__(cls, path: str, shapes=None, focus=None):
        self = super().__new__(cls, path)
        self.shapes = frozenset(shapes) if shapes is not None else None
        self.focus = frozenset(focus) if focus is not None else None
        return self

    def __reduce__(self):  # pickled to the prover process and its workers with its shapes
        return (Relations, (str(self), self.shapes, self.focus))


def shapes_of(path) -> frozenset | None:
    """The shapes whose relations a (possibly scoped) relations path proves; None: all."""
    return getattr(path, "shapes", None)


def focus_of(path) -> frozenset | None:
    """The shapes given beside a relations path (see Relations); None where not known."""
    return getattr(path, "focus", None)


def names_shape(relation: dict, shapes) -> bool:
    """Whether a relation (as YAML data) names a fragment of one of `shapes`."""
    if shapes is None:
        return True
    for tag in ("left", "right"):
        side = relation.get(tag) if isinstance(relation, dict) else None
        ref = side.get("fragment") if isinstance(side, dict) else None
        if isinstance(ref, str) and ref.split("/", 1)[0] in shapes:
            return True
    return False


@dataclass
class Scope:
    given: list  # the spec files given (relations files excluded), in order
    specs: list  # every spec file to prove: the given ones first, then those it widened to
    relations: list = field(default_factory=list)  # Relations paths
    added: list = field(default_factory=list)  # spec files widened to, for the report

    @property
    def files(self) -> list:
        return self.specs + self.relations

    def widened(self) -> bool:
        return bool(self.added) or any(r.shapes is not None for r in self.relations)

    def key(self) -> list:
        """For the result cache: what the relations files are restricted to."""
        return [[str(r), sorted(r.shapes) if r.shapes is not None else None] for r in self.relations]

    def note(self) -> str:
        """One line that says what the rule added to the files given; empty when nothing."""
        if not self.widened():
            return ""
        parts = []
        for r in self.relations:
            n = _count(r)
            what = "all relations" if r.shapes is None else f"{n} relation{'s' if n != 1 else ''}"
            parts.append(f"{what} of {r}")
        if self.added:
            parts.append(", ".join(self.added))
        return ("scope: " + ", ".join(self.given or [str(r) for r in self.relations])
                + " with what it depends on and what depends on it: " + "; ".join(parts)
                + " (README: what proving a file proves)")


_DOCS: dict = {}


def _relations_doc(path: str):
    """The relations file as YAML data, or None where it does not load (the prover says why)."""
    key = os.path.abspath(path)
    if key not in _DOCS:
        from checker.errors import SpecError
        from checker.spec import yamlload

        try:
            value = yamlload.load(path).value
            _DOCS[key] = value.get("relations") if isinstance(value, dict) else None
            if not isinstance(_DOCS[key], list):
                _DOCS[key] = None
        except (SpecError, OSError):
            _DOCS[key] = None
    return _DOCS[key]


def _count(r: Relations) -> int:
    rels = _relations_doc(r) or []
    return sum(1 for x in rels if names_shape(x, r.shapes))


def _refs(value) -> list:
    """Every shape/fragment reference under the `same_as` keys of a spec's YAML data, and the
    fragments its `compositions` (ldmatrix & co.) are proved equal to."""
    out, stack = [], [value]
    comps = value.get("compositions") if isinstance(value, dict) else None
    for c in comps if isinstance(comps, list) else ():
        ref = c.get("fragment") if isinstance(c, dict) else None
        if isinstance(ref, str) and "/" in ref:
            out.append(ref)
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "same_as" and isinstance(x, list):
                    for same in x:
                        frags = same.get("fragments") if isinstance(same, dict) else None
                        out.extend(f for f in frags or () if isinstance(f, str) and "/" in f)
                else:
                    stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)
    return out


def _same_as(path: str) -> list:
    """The shapes a spec's same_as references (and compositions) name (none where it does not load)."""
    from checker.spec import yamlload

    try:
        text = read_regular(path, yamlload.MAX_BYTES)
        if b"same_as" not in text and b"compositions" not in text:
            return []  # the common case, without composing the YAML
        return [r.split("/", 1)[0] for r in _refs(yamlload.load(path).value)]
    except (SpecError, OSError):
        return []


def _shape(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def widen(files: list) -> Scope:
    """The scope of the files given (spec and relations files, as spec_files returns them)."""
    seen = set()
    given, rel_given = [], []
    for f in files:
        k = os.path.abspath(f)
        if k in seen:
            continue
        seen.add(k)
        (rel_given if is_relations_file(f) else given).append(f)
    specs, added = list(given), []
    relations: dict = {}  # abspath -> [path, shapes or None]
    for r in rel_given:
        relations[os.path.abspath(r)] = [r, None]

    def add_spec(folder, shape):
        for ext in (".yaml", ".yml"):
            p = os.path.join(folder, shape + ext)
            # a FIFO, a device or a dangling link there is in scope too: proving it says, located,
            # that it is no regular file (it was passed over, and the spec naming it was told only
            # that no spec of that shape is beside it)
            if is_relations_file(p) or is_untranscribed_file(p):
                return  # a reference's prefix, not a shape (`untranscribed/x`): that file is no spec
            if os.path.lexists(p) and not os.path.isdir(p):
                if os.path.abspath(p) not in seen:
                    seen.add(os.path.abspath(p))
                    specs.append(p)
                    added.append(p)
                return

    by_folder: dict = {}
    for f in given:
        by_folder.setdefault(os.path.dirname(f), []).append(f)
    for folder, mine in by_folder.items():
        shapes = {_shape(f) for f in mine}
        rel = os.path.join(folder, RELATIONS_FILE)
        if os.path.isfile(rel):
            entry = relations.setdefault(os.path.abspath(rel), [rel, set()])
            if entry[1] is not None:
                entry[1] |= shapes
        named = set()
        for f in mine:
            named.update(_same_as(f))  # what it says it is the same as
            named.update(reads(_shape(f)))  # what its family's theorems read beside it
        for sibling in sorted(os.listdir(folder or ".")):
            path = os.path.join(folder, sibling)
            if (not sibling.endswith((".yaml", ".yml")) or is_relations_file(path) or is_untranscribed_file(path)
                    or os.path.abspath(path) in seen or not os.path.isfile(path)):
                continue
            if shapes & set(reads(_shape(path))):
                named.add(_shape(path))  # its theorems read one of our fragments (a wgmma spec's)
                continue
            from checker.spec.yamlload import MAX_BYTES

            try:
                text = read_regular(path, MAX_BYTES, "spec")
            except SpecError:
                continue  # proving it (or not) is what reports a file that cannot be read
            if any(f"{s}/".encode() in text for s in shapes) and shapes & set(_same_as(path)):
                named.add(_shape(path))  # its same_as names one of our fragments
        for shape in sorted(named - shapes):
            add_spec(folder, shape)
    for key, (path, shapes) in relations.items():
        rels = _relations_doc(path) or []
        folder = os.path.dirname(path)
        for x in rels:
            if not names_shape(x, shapes):
                continue
            for tag in ("left", "right"):
                side = x.get(tag) if isinstance(x, dict) else None
                ref = side.get("fragment") if isinstance(side, dict) else None
                if isinstance(ref, str) and "/" in ref:
                    add_spec(folder, ref.split("/", 1)[0])
    focus: dict = {}
    for f in given:
        focus.setdefault(os.path.abspath(os.path.join(os.path.dirname(f), RELATIONS_FILE)), set()).add(_shape(f))
    return Scope(given, specs, [Relations(p, s, focus.get(k, set())) for k, (p, s) in relations.items()], added)
