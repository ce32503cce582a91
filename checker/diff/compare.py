"""Two versions of spec files -> what changed: per fragment, the entries that move; fragments
added or removed; every property whose verdict changes (both versions are proved). Against a git
revision: checker/diff/git.py."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from checker import temps
from checker.diff.entries import compare
from checker.files import is_relations_file
from checker.errors import SpecError
from checker.prover import Options, prove_paths
from checker.spec.checked import load_checked
from checker.spec.reading import materialize
from checker.spec.yamlload import MAX_BYTES


@dataclass
class SpecDiff:
    path: str  # the new file's path (the old one's where the file is removed)
    status: str  # modified | added | removed | unchanged
    fragments: list = field(default_factory=list)  # FragmentDiff, changed ones only
    added: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)  # (what, old verdict or None, new verdict or None)
    errors: list = field(default_factory=list)  # a version that does not load: its message
    # the new version's, as validate says them: file:line:col first (exit 3). An old version that
    # does not load is listed in `errors` but fails nothing: an edit that mends a broken spec must pass
    refused: list = field(default_factory=list)
    why: dict = field(default_factory=dict)  # what -> (location, message, replay) of a verdict not good now
    related: list = field(default_factory=list)  # SpecDiff of the scope's other files whose verdicts changed
    changes: list = field(default_factory=list)  # what a section says beyond its fragments: "same as" targets
    by: list = field(default_factory=list)  # status "affected": the edited files whose scope it is in

    @property
    def worse(self) -> bool:
        # a proof that is gone is worse too: deleting the relation that pinned a reading and then
        # editing the reading passed, the relation's PROVED -> (absent) listed but counted as nothing
        return self.status != "removed" and (bool(self.refused) or any(
            (new is not None and new not in GOOD and (old is None or old in GOOD)) or (new is None and old in GOOD)
            for _, old, new in self.verdicts))


# verdicts that pass: a confirmed erratum and a refutation the spec declares are what the spec says
GOOD = ("PROVED", "ERRATUM-CONFIRMED", "REFUTED-AS-DECLARED")


def _key(r) -> str:
    where = r.fragment or r.subject or "spec"
    comp = f" (computation {r.computation})" if r.computation else ""
    # an erratum's verdict is about the printed text, the same property's about the reading: one
    # key for both let the erratum's hide the reading's (m16n8k256 A.b1 covers refuted, unseen)
    return f"{where} {r.property}{comp}" + (" as printed" if r.erratum else "")


def _verdict(r) -> str:
    if r.erratum:
        return "ERRATUM-CONFIRMED"
    if r.declared:
        return "REFUTED-AS-DECLARED"
    return r.verdict


def _verdicts(path, jobs: int = 1) -> dict:
    """file name -> {what: (verdict, result)} over the scope of `path` (checker/scope.py): its own
    verdicts and those of the relations and specs that depend on it or it on them. A scope lies
    in one folder, so a file's name says which file it is in either version."""
    if path is None:
        return {}
    from checker.scope import widen

    # a failed equation between the edited spec and one its scope brought in is pointed at the
    # edited side, as `prove` of the edited file points it (commands/prove.py): the diff is of
    # that file's edit, and a location in a file the edit did not touch hides where it went wrong
    return _verdicts_of(widen([path]).files, jobs, {os.path.splitext(os.path.basename(path))[0]})


def _survivors(old: str, folder: str) -> list:
    """The other files of a removed file's scope (at its old version) as they stand in `folder`
    now (folder "": the working folder), each relations file restricted to the same shapes: what
    the removal may break."""
    from checker.scope import Relations, widen

    out = []
    for f in widen([old]).files:
        now = os.path.join(folder, os.path.basename(f))
        if os.path.abspath(f) != os.path.abspath(old) and os.path.isfile(now):
            out.append(Relations(now, f.shapes, f.focus) if isinstance(f, Relations) else now)
    return out


def _verdicts_of(files: list, jobs: int = 1, edited=None) -> dict:
    from checker.theorems.relations import toward

    out: dict = {}
    results = prove_paths(files, Options(jobs=jobs)) if files else []
    for r in toward(results, edited) if edited else results:
        mine = out.setdefault(os.path.basename(r.spec), {})
        key, n = _key(r), 1
        while key in mine:  # two sentences or rows of one subject: numbered in the results' order
            n += 1
            key = f"{_key(r)} #{n}"
        mine[key] = (_verdict(r), r)
    return out


def _changes(va: dict, vb: dict, d: SpecDiff) -> None:
    for k in sorted(set(va) | set(vb)):
        o, n = (va.get(k) or (None, None))[0], (vb.get(k) or (None, None))[0]
        if o != n:
            d.verdicts.append((k, o, n))
            r = (vb.get(k) or (None, None))[1]
            if n is not None and n not in GOOD and r is not None:
                why = r.message
                cex = r.counterexample or {}
                if cex.get("relation_at"):
                    why += f" (declared at {cex['relation_at']})"
                d.why[k] = (r.location, why, cex.get("replay"))


def same_as_changes(old, new) -> list:
    """Each "same as" sentence whose fragments the edit changes, by section and operands: a
    changed target moves no entry of this spec, yet it is what mma.sp's B and C/D are."""
    def sentences(spec):
        return {(sec.section, "/".join(x.operands)): x.fragments for sec in spec.sections for x in sec.same_as}

    a, b = sentences(old), sentences(new)
    out = []
    for key in sorted(set(a) | set(b)):
        was, now = a.get(key), b.get(key)
        if was != now:
            out.append(f"same_as of {key[0]} {key[1]}: {', '.join(was) if was else '(none)'} -> "
                       f"{', '.join(now) if now else '(none)'}")
    return out


def _readings(spec) -> dict:
    out = {}
    for f in spec.fragments():
        try:
            out[f.id] = (f, materialize(f))
        except SpecError:
            out[f.id] = (f, None)
    return out


def _checked(path: str):
    """The spec at `path` through validate's gate, or None for a relations file once its loader
    accepts it: entries are computed from a version only where validate would accept it (a
    fragment it refuses is otherwise read as no map, and the diff says it moved nowhere)."""
    if is_relations_file(path):
        from checker.theorems.relations import load_relations

        load_relations(path)
        return None
    return load_checked(path)


def diff_files(old: str | None, new: str | None, label: str, old_label: str | None = None,
               old_error: SpecError | None = None, jobs: int = 1, folder: str | None = None) -> SpecDiff:
    """`old_label`: how to name the old file in messages (`REV:path` for a file from git history,
    which sits in a temporary folder); `old_error`: why the old version could not be read;
    `folder`: where a removed file stood, whose other files of its scope are proved as they are now."""
    status = "added" if old is None and old_error is None else "removed" if new is None else "modified"
    d = SpecDiff(label, status)
    specs = {}
    if old_error is not None:
        d.errors.append(f"old version: {old_error}")
    for name, path in (("old", old), ("new", new)):
        if path is None:
            continue
        try:
            spec = _checked(path)
        except SpecError as exc:
            message = str(exc)
            if name == "old" and old_label:
                message = message.replace(path, old_label)
            d.errors.append(f"{name} version: {message}")
            if name == "new":
                d.refused.append(message)
        else:
            if spec is not None:
                specs[name] = spec
    if "old" in specs and "new" in specs:
        a, b = _readings(specs["old"]), _readings(specs["new"])
        d.added = [f for f in b if f not in a]
        d.removed = [f for f in a if f not in b]
        for fid in (f for f in b if f in a):
            fd = compare(fid, b[fid][0].letter, a[fid][1], b[fid][1], a[fid][0], b[fid][0])
            if fd.changed:
                d.fragments.append(fd)
        d.changes = same_as_changes(specs["old"], specs["new"])
    elif "new" in specs:
        d.added = [f.id for f in specs["new"].fragments()]
    elif "old" in specs:
        d.removed = [f.id for f in specs["old"].fragments()]
    # every verdict of the scope: the file's own here, the other files' in d.related
    va = _verdicts(old, jobs)
    # the other files of the scope are compared where both sides have them: a removed file's
    # are proved as they stand now (relations.yaml no longer loads without it, and its bytes are
    # unchanged); an added file's scope has no old side
    both = bool(old) and (new is not None or folder is not None)
    if new is not None:
        vb = _verdicts(new, jobs)
    else:
        vb = _verdicts_of(_survivors(old, folder), jobs) if both else {}
    own = os.path.basename(new or old or label)
    _changes(va.pop(own, {}), vb.pop(own, {}), d)
    here = os.path.dirname(new) if new is not None else folder
    for name in sorted(set(va) | set(vb)) if both else ():
        if name not in vb and not os.path.isfile(os.path.join(here, name)):
            continue  # gone now as well: not a file the edit affects (a diff of its own says it is removed)
        other = SpecDiff(os.path.join(os.path.dirname(label), name), "affected", by=[label])
        _changes(va.get(name, {}), vb.get(name, {}), other)
        if other.verdicts:
            d.related.append(other)
    if not (d.fragments or d.added or d.removed or d.changes or d.verdicts or d.errors or d.related) \
            and status == "modified":
        d.status = "unchanged"
    return d


def diff_pair(old: str, new: str, jobs: int = 1) -> SpecDiff:
    """`checker diff OLD NEW`: what changes if OLD stood where NEW stands. OLD is judged in NEW's
    folder (a temporary folder with NEW's scope linked in and OLD's bytes in NEW's place), so the
    relations and specs of the scope are the same on both sides and only the edit differs.

    Nothing is copied whole: the scope's other files are linked (the loader reads them through the
    link with its bound, as it reads them in NEW's folder), and OLD is read as at most MAX_BYTES
    (a larger or non-regular OLD is the old version's located error, as from git history)."""
    from checker.bounded import read_regular
    from checker.scope import widen

    try:
        data = read_regular(old, MAX_BYTES)
    except SpecError as exc:
        return diff_files(None, new, new, old, old_error=exc, jobs=jobs)
    with temps.folder("checker-diff-") as tmp:
        for f in widen([new]).files:
            if os.path.abspath(f) != os.path.abspath(new):
                os.symlink(os.path.abspath(f), os.path.join(tmp, os.path.basename(f)))
        placed = os.path.join(tmp, os.path.basename(new))
        temps.write_new(placed, data)
        return diff_files(placed, new, new, old, jobs=jobs)


def flatten(diffs: list) -> list:
    """The edited files' diffs, then one for each other file of their scopes whose verdicts
    changed (a relation an edit broke is listed once, under the relations file, with every
    edited file whose scope it is in)."""
    out, others = list(diffs), {}
    for d in diffs:
        for r in d.related:
            mine = next((x for x in out if x.path == r.path), None) or others.get(r.path)
            if mine is None:
                others[r.path] = r
                continue
            mine.verdicts.extend(v for v in r.verdicts if v not in mine.verdicts)
            mine.why.update({k: w for k, w in r.why.items() if k not in mine.why})
            mine.by.extend(b for b in r.by if b not in mine.by)
    return out + [others[p] for p in sorted(others)]
