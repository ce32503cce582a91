"""YAML file -> Spec: structure first (JSON Schema: checker/spec/structure.py), then meaning, each
error located."""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace

from checker.bounded import MAX_ELEMENTS, shown
from checker.errors import SpecError
from checker.families import FAMILIES
from checker import source
from checker.recording import read_regular
from checker.spec import errata, layouts, model, provenance, scale_factors, yamlload
from checker.spec.errata import merged as merged_cell
from checker.spec.structure import check_structure

SCHEMA_ID = "ptx-fragment-checker/1"
MAX_DIM = 1024


# (path as named, SHA-256 of its bytes) -> Spec. One command reads a spec in several places: a
# proof reads the neighbours that same_as sentences, compositions and relations name, in every
# worker that needs them, and `report` read each spec seven times (the gate, the proof, the
# figures, the published layouts, the probe's agreement, the wgmma kernels). Reading one (YAML,
# the JSON Schema check, the model) costs 5-15 ms. Keyed by the bytes read, never by a file's name
# or time alone: a file that changed is read again. A Spec is immutable, so every caller may hold
# the same one. Bounded: the mutation campaign reads thousands of mutants.
_LOADED: dict = {}
MAX_LOADED = 64


def load_spec(path: str, data: bytes | None = None, written: yamlload.Document | None = None) -> model.Spec:
    """The spec of the file at `path` (its bytes `data`, or the file as yamlload read it, `written`,
    where the caller has them)."""
    if written is not None:
        return _spec(written)
    if data is None:
        data = read_regular(path, yamlload.MAX_BYTES)  # recorded for the result cache on every read
    # the path as named, not made absolute: a Spec's locations quote it as it was given
    # and by the data its readings' sources are held to, as it is now (a data file edited since)
    key = (path, hashlib.sha256(data).digest(), provenance.generation())
    spec = _LOADED.get(key)
    if spec is None:
        spec = _spec(yamlload.load(path, data))
        if len(_LOADED) >= MAX_LOADED:
            _LOADED.clear()
        _LOADED[key] = spec
    return spec


def _spec(doc: yamlload.Document) -> model.Spec:
    check_structure(doc)
    return _Meaning(doc).spec()


class _Meaning:
    def __init__(self, doc: yamlload.Document):
        self.doc = doc

    def span(self, path, key=False):
        return self.doc.span(tuple(path), key)

    def stext(self, path) -> source.SourceText:
        return source.from_node(self.doc.nodes[tuple(path)], self.doc.text, self.doc.path)

    def spec(self) -> model.Spec:
        v = self.doc.value
        shape = v["shape"]
        stem = os.path.splitext(os.path.basename(self.doc.path))[0]
        if stem != shape:
            raise SpecError(self.span(["shape"]), f"shape {shape!r} does not match the file name {stem!r}",
                            f"rename the file to {shape}.yaml or fix the shape")
        family = FAMILIES[v.get("family", "mma")]
        if re.fullmatch(family.shape, shape) is None:
            raise SpecError(self.span(["shape"]), f"shape {shape!r} is not a {family.name} shape")
        dims = family.dims(shape, {})
        for name, d in dims.items():
            if d is not None and not 1 <= d <= MAX_DIM:
                raise SpecError(self.span(["shape"]), f"{name} = {d} is outside 1..{MAX_DIM}")
        params = self.parameters(v, family, shape)
        self.parameter_values = frozenset(params[1]) if params else frozenset()
        # one instance per value of the shape's parameter (a shape without one has one instance)
        instances = [((), dims)] if not params else [
            (((params[0], value),), dict(dims, **{d: value for d, x in dims.items() if x is None}))
            for value in params[1]]
        seen: dict = {}
        sections = []
        for si, sec in enumerate(v["sections"]):
            base = ["sections", si]
            sparse = any("sparsity" in fr for fr in sec.get("fragments", []))
            sec_family = "mma.sp" if family.name == "mma" and sparse else family.name
            comps = self.computations(sec, base, family.threads.count)
            # fragments with formulas, then the ones the document only draws; ids unique across both
            frags, drawn = ([], [])
            for key, out in (("fragments", frags), ("figures_only", drawn)):
                for fi, fr in enumerate(sec.get(key, [])):
                    fpath = self.unique(seen, base + [key, fi], fr["id"])
                    if family.moves:
                        raise SpecError(self.span(fpath, key=True), f"a {family.name} spec gives layouts:, not {key}:")
                    # a reading is the fragment's, checked once: its N instances share its figure and sources
                    reading = self.figure_reading(fr, fpath)
                    out.extend(self.fragment(fr, fpath, sec["section"], comps, values, sec_family, bound, reading)
                               for bound, values in self.instances(instances, family, fr))
            for fi, fr in enumerate(sec.get("layouts", [])):  # ldmatrix & co.: readings of figures
                frags.append(layouts.fragment(self, fr, self.unique(seen, base + ["layouts", fi], fr["id"]),
                                              sec["section"], family.name))
            for fi, fr in enumerate(sec.get("scale_factors", [])):  # mma with block scaling
                frags += scale_factors.fragments(self, fr, self.unique(seen, base + ["scale_factors", fi], fr["id"]),
                                                 sec, family.name)
            same = tuple(model.SameAs(tuple(x["operands"]), x["printed"], tuple(x["fragments"]),
                                      self.span(base + ["same_as", xi]),
                                      tuple(self.erratum(e, base + ["same_as", xi, "errata", k], "same_as", where="same_as")
                                            for k, e in enumerate(x.get("errata", []))),
                                      self.span(base + ["same_as", xi, "printed"]),
                                      tuple(self.span(base + ["same_as", xi, "fragments", k])
                                            for k in range(len(x["fragments"]))))
                         for xi, x in enumerate(sec.get("same_as", [])))
            stated = tuple(sec.get("stated", ()))
            title_errata = tuple(self.stated_row(self.erratum(e, base + ["errata", k], "title", where="section"),
                                                 stated, base + ["errata", k])
                                 for k, e in enumerate(sec.get("errata", [])))
            sections.append(model.Section(sec["section"], sec["title"], sec["seed"], comps, tuple(frags), same,
                                          tuple(drawn), title_errata, self.span(base + ["title"]),
                                          tuple(sec.get("versions", ())),
                                          provenance.differences(self, sec, base), stated,
                                          tuple(self.span(base + ["stated", k]) for k in range(len(stated)))))
        found = {f.id: f for s in sections for f in s.fragments}
        return model.Spec(self.doc.path, shape, dims["m"], dims["n"], dims.get("k"), tuple(sections), family.name,
                          (params,) if params else (), layouts.compositions(self, v, found),
                          self.containers(v, family.name), self.span(["parameters"]) if params else None)

    def containers(self, v: dict, family: str):
        if "containers" not in v:
            return None
        from checker.spec import containers  # an ldmatrix .b8x16 spec's: six classes a seed never needs

        return containers.containers(self, v, family)

    @staticmethod
    def instances(instances, family, fr) -> list:
        """A fragment has one instance per value of the parameter where its matrix or its
        registers depend on it (wgmma D: 64 x N, N/2 registers); otherwise one (wgmma A: 64 x K)."""
        operand = family.operand(fr.get("operand"))
        if len(instances) == 1 or operand is None:
            return instances
        depends = any(instances[0][1][d] != instances[-1][1][d] for d in operand.dims)
        depends |= any(isinstance(r.get("registers", {}).get("count"), str) for r in fr.get("table", []))
        return instances if depends else [((), instances[0][1])]

    def parameters(self, v, family, shape) -> tuple:
        """(name, values) of the shape's parameter, or (): `N` in m64nNk16, N = from..to by step."""
        named = [d for d, x in family.dims(shape, {}).items() if x is None]
        given = v.get("parameters", {})
        if not named:
            if given:
                raise SpecError(self.span(["parameters"], key=True), f"shape {shape} has no parameter to give values to")
            return ()
        name = named[0].upper()
        if name not in given:
            raise SpecError(self.span(["shape"]), f"shape {shape} has the parameter {name}: give its values "
                            f"(parameters: {{{name}: {{from: 8, to: 256, step: 8}}}})")
        if set(given) != {name}:
            extra = sorted(set(given) - {name})[0]
            raise SpecError(self.span(["parameters", extra], key=True), f"shape {shape} has no parameter {extra}")
        runs = given[name] if isinstance(given[name], list) else [given[name]]
        out: set = set()
        for k, r in enumerate(runs):
            at = ["parameters", name] + ([k] if isinstance(given[name], list) else [])
            if not 1 <= r["from"] <= r["to"] <= MAX_DIM:
                raise SpecError(self.span(["parameters", name]), f"{name} from {r['from']} to {r['to']} is outside 1..{MAX_DIM}")
            if (r["to"] - r["from"]) % r["step"]:
                # `to` is a value of the run, as the document writes N = 8..256 by 8: 257 gave the
                # same values and said another
                last = r["to"] - (r["to"] - r["from"]) % r["step"]
                raise SpecError(self.span(at + ["to"]), f"{name} from {r['from']} by {r['step']} does not "
                                f"reach {r['to']}: its last value is {last}", f"to: {last}")
            twice = sorted(out.intersection(range(r["from"], r["to"] + 1, r["step"])))
            if twice:  # a run given twice, or two that overlap, say one value twice
                raise SpecError(self.span(at), f"{name} = {twice[0]} is a value of an earlier run too")
            out.update(range(r["from"], r["to"] + 1, r["step"]))
        return name, tuple(sorted(out))

    def unique(self, seen: dict, fpath: list, fid: str) -> list:
        if fid in seen:
            raise SpecError(self.span(fpath + ["id"]), f"duplicate fragment id {fid!r} (first at line {seen[fid].line})")
        seen[fid] = self.span(fpath + ["id"])
        return fpath

    def computations(self, sec, base, threads: int) -> tuple:
        comps, owner = [], {}
        for ci, c in enumerate(sec.get("computations", [])):
            cpath = base + ["computations", ci]
            # the ranges are the printed sentence's ("%laneid 0-3 (low group) and 16-19"), which
            # verbatim finds in the document: lanes that say otherwise passed every proof
            said = [[int(lo), int(hi)] for lo, hi in re.findall(r"\b([0-9]+)-([0-9]+)\b", str(c["printed"]))]
            if [list(r) for r in c["lanes"]] != said:
                raise SpecError(self.span(cpath + ["lanes"]), f"lanes {c['lanes']} are not the ranges the printed "
                                f"sentence gives ({', '.join(f'{lo}-{hi}' for lo, hi in said) or 'none'})")
            lanes = []
            for lo, hi in c["lanes"]:
                if lo > hi:
                    raise SpecError(self.span(cpath + ["lanes"]), f"lane range {lo}-{hi} is empty")
                lanes.extend(range(lo, hi + 1))
            for lane in lanes:
                if lane in owner:
                    raise SpecError(self.span(cpath + ["lanes"]),
                                    f"lane {lane} is in computation {owner[lane]} and computation {c['id']}")
                owner[lane] = c["id"]
            comps.append(model.Computation(c["id"], c["printed"], tuple(sorted(lanes)), self.span(cpath)))
        if comps:
            ids = [c.id for c in comps]
            if ids != list(range(1, len(ids) + 1)):
                raise SpecError(self.span(base + ["computations"]), f"computation ids must be 1..{len(ids)} in order")
            missing = sorted(set(range(threads)) - set(owner))
            if missing:
                raise SpecError(self.span(base + ["computations"]),
                                f"lanes {missing[:8]} take part in no computation; every lane of the warp must")
        return tuple(comps)

    def erratum(self, e, epath, default_field, row=None, where=None, empty=False) -> model.Erratum:
        return errata.erratum(self, e, epath, default_field, row, where, empty)

    def stated_row(self, e: model.Erratum, stated: tuple, epath: list) -> model.Erratum:
        """An erratum of a stated sentence corrects the one sentence its printed text occurs in."""
        if e.field != "stated":
            return e
        hits = [k for k, sentence in enumerate(stated) if e.printed in sentence]
        if len(hits) != 1:
            raise SpecError(self.span(epath + ["printed"]), f"an erratum of a stated sentence quotes a text found in "
                            f"exactly one of the section's stated sentences; {shown(e.printed)} is in {len(hits)}")
        return replace(e, row=hits[0])

    def fragment(self, fr, fpath, section, comps, values, family, params, drawn) -> model.Fragment:
        rows = []
        errata = [self.erratum(e, fpath + ["errata", k], "formula") for k, e in enumerate(fr.get("errata", []))]
        for ri, r in enumerate(fr["table"]):
            rpath = fpath + ["table", ri]
            elements = self.stext(rpath + ["elements"]) if r.get("elements") is not None else None
            spanned = merged_cell(self, r, rpath)  # checked before the row's errata
            for k, e in enumerate(r.get("errata", [])):
                errata.append(self.erratum(e, rpath + ["errata", k], "elements", row=ri, empty=elements is None))
            reg = dict(r["registers"], count=self.count(r["registers"]["count"], rpath + ["registers", "count"], params))
            if reg["count"] * reg.get("per_register", 1) > MAX_ELEMENTS:  # from the numbers, before any domain is built
                raise SpecError(self.span(rpath + ["registers"]), f"{reg['count']} registers x "
                                f"{reg.get('per_register', 1)} elements is more than {MAX_ELEMENTS} elements per lane")
            valid = self.values(r, rpath, params, rows[-1].values if rows else None)
            rows.append(model.TableRow(tuple(r["types"]), r["fragment"], reg["count"], reg["kind"],
                                       reg.get("per_register"), elements, self.span(rpath),
                                       reg.get("container_bits"), reg.get("out_of"), r.get("elements_note"),
                                       self.span(rpath + ["fragment"]), r.get("miscellaneous"), valid,
                                       self.span(rpath + ["registers", "kind"]),
                                       self.span(rpath + ["registers", "count"]), self.span(rpath + ["types"]),
                                       tuple((key, self.span(rpath + [key])) for key in ("miscellaneous", "elements_note")
                                             if r.get(key) is not None), spanned))
        twice = next((k for k, row in enumerate(rows) if any((row.types, row.values) == (o.types, o.values)
                                                            for o in rows[:k])), None)
        if twice is not None:  # the document gives a type's registers once (per value of N)
            raise SpecError(self.span(fpath + ["table", twice]), f"{fr['id']}: table row {twice + 1} repeats the "
                            f"types of a row above ({', '.join(rows[twice].types)})")
        said = set().union(*(row.values for row in rows if row.values is not None)) if params else set()
        if said - self.parameter_values:
            # the converse of the check below: a value the table gives that the parameter leaves
            # out is an instance the spec no longer proves (a run cut short, a step doubled)
            name, value = params[0][0], min(said - self.parameter_values)
            runs = self.doc.value["parameters"][name]
            where = ["parameters", name] if not isinstance(runs, list) else \
                ["parameters", name, max([k for k, r in enumerate(runs) if r["from"] <= value] or [0])]
            raise SpecError(self.span(where), f"{fr['id']}'s table gives {name} = {value}, which is not a value of "
                            "the shape's parameter")
        if params and all(row.values is not None and params[0][1] not in row.values for row in rows):
            raise SpecError(self.span(fpath + ["table"]), f"{params[0][0]} = {params[0][1]} is a value of the shape's "
                            f"parameter, but no row of {fr['id']}'s table gives it")
        if FAMILIES[family].operand(fr["operand"]) is None:
            names = ", ".join(o.name for o in FAMILIES[family].operands)
            raise SpecError(self.span(fpath + ["operand"]), f"{family} has no operand {fr['operand']} in registers; "
                            f"its operands are {names}")
        mrows, mcols = model.dims(family, fr["operand"], values)
        sparsity = self.sparsity(fr, fpath, rows, mcols, comps) if "sparsity" in fr else None
        if sparsity is not None:
            mcols = mcols * sparsity.nonzero // sparsity.chunk
        elif rows[0].elements is None and rows[0].spanned_by is None and not any(e.row == 0 and e.printed == "" for e in errata):
            raise SpecError(self.span(fpath + ["table", 0, "elements"]), "the first table row must give the element list "
                            "(or, where the document's cell is empty, an erratum with printed: \"\"; where a merged cell spans it, spanned_by)")
        if not fr["id"].startswith(fr["operand"] + "."):  # `where --fragment B.f16` finds a B
            raise SpecError(self.span(fpath + ["id"]), f"{fr['id']} is a fragment of matrix {fr['operand']}: "
                            f"its id starts with {fr['operand']}. ({fr['operand']}.f16, {fr['operand']}.sp.i8)")
        caption = " ".join(str(fr.get("caption", "")).split())
        major = next((m for m, word in (("row", "row-major"), ("col", "column-major")) if word in caption), None)
        if fr.get("layout") != major:
            # the variants simulate and probe run pick A and B by it (.row.col); the caption says which
            said = {"row": "a row-major", "col": "a column-major", None: "no row- or column-major"}[major]
            raise SpecError(self.span(fpath + (["layout"] if "layout" in fr else ["caption"])),
                            f"{fr['id']}: layout {fr.get('layout') or 'not given'}, but its caption draws {said} matrix",
                            "layout: row for a row-major matrix, col for a column-major one, none where the caption "
                            "names neither")
        drawn_of = {"A": "A", "B": "B", "C": "C/D", "D": "D"}.get(fr["operand"])  # ldmatrix's r: "one 8x8 matrix"
        named = set(re.findall(r"\bmatrix (?:matrix )?(C/D|A|B|D)\b", caption))
        if drawn_of and "caption" in fr and named != {drawn_of}:
            # verbatim finds a caption anywhere in its section: the captions of A and B swapped with
            # their figures were both found, and A was said to be drawn by B's figure
            raise SpecError(self.span(fpath + ["caption"]),
                            f"{fr['id']} is a fragment of {fr['operand']}, but its caption draws "
                            + (" and ".join(f"matrix {x}" for x in sorted(named)) or "no matrix A, B, C/D or D"),
                            "the caption (and figures) of the figure that draws this operand")
        return model.Fragment(
            id=fr["id"] + "".join(f"[{name}={value}]" for name, value in params), operand=fr["operand"], layout=fr.get("layout"),
            header=self.stext(fpath + ["header"]), table=tuple(rows), figures=tuple(fr["figures"]),
            caption=fr.get("caption"),
            formula=self.stext(fpath + ["formula"]) if "formula" in fr else
            self.stext(fpath + ["reading", "formula"]) if drawn else None, errata=tuple(errata), section=section,
            computations=comps, rows=mrows, cols=mcols, span=self.span(fpath), sparsity=sparsity,
            caption_span=self.span(fpath + ["caption"]) if "caption" in fr else None, family=family,
            threads=FAMILIES[family].threads, params=params, figure_reading=drawn)

    def values(self, r, rpath, params, above):
        """The values of the parameter this row's types exist at: its Elements cell's clause, else
        its Miscellaneous cell's, else the row above's (an empty cell is one merged with the row
        above, as the document prints merged cells); None: every instance's."""
        if not params:
            return None
        from checker.formula.elements import clause_values

        name = params[0][0]
        for key in ("elements", "miscellaneous"):
            if r.get(key):
                said = clause_values(self.stext(rpath + [key]), name)
                if said is not None:
                    return tuple(sorted(said))
        return above

    def figure_reading(self, fr, fpath):
        """The fragment's reading of its figure, with its sources; None where the document gives
        the formula."""
        if "reading" not in fr:
            return None
        x, path = fr["reading"], fpath + ["reading"]
        if x["figure"] not in fr["figures"]:
            raise SpecError(self.span(path + ["figure"]), f"{x['figure']} is not one of the fragment's figures "
                            f"({', '.join(fr['figures'])})")
        return provenance.standing(self, x, path, fr["id"], x["figure"])

    def count(self, written, path, params) -> int:
        """A register count: a number, or the document's expression in the parameter ("N/2")."""
        if isinstance(written, int):
            return written
        # imported here: loading a spec must not import lark, which the command process never
        # needs (tests/unit/test_processes.py); only a parametric shape's counts are expressions
        from checker.formula.parser import number

        value = number(self.stext(path), dict(params))
        if not 1 <= value <= MAX_ELEMENTS:
            raise SpecError(self.span(path), f"{written} = {value} registers is outside 1..{MAX_ELEMENTS}")
        return value

    def sparsity(self, fr, fpath, rows, k, comps) -> model.Sparsity:
        """Only A is sparse, and every table row must say how many of how many consecutive
        elements a register holds: the compressed column is built from those two numbers."""
        sp, spath = fr["sparsity"], fpath + ["sparsity"]
        nonzero, chunk = (int(x) for x in sp["granularity"].split(":"))
        if fr["operand"] != "A" or comps:
            raise SpecError(self.span(spath, key=True), "only matrix A of a one-computation mma.sp is sparse")
        if not 0 < nonzero < chunk or k % chunk:
            raise SpecError(self.span(spath + ["granularity"]),
                            f"granularity {sp['granularity']} must be n:c with 0 < n < c and c dividing K = {k}")
        sentence = " ".join(str(sp["printed"]).split())
        # the ratio alone is checked by fragment-shape, and 1:2 has 4:8's: the metadata's chunks
        # (checker where, the reference model) come from the granularity the sentence states
        stated = re.findall(r"granularity of ([0-9]+):([0-9]+)", sentence)
        if [(str(nonzero), str(chunk))] != stated:
            raise SpecError(self.span(spath + ["granularity"]),
                            f"granularity {sp['granularity']} is not the one the sentence states"
                            + (f" ({', '.join(':'.join(g) for g in stated)})" if stated else
                               " (it states none: \"... at a granularity of 2:4.\")"))
        says = "pair-wise" in sentence
        if sp.get("pairwise", False) != says:
            # the reference model takes the metadata's units from it (two-wide, or one); the
            # document's sentence says which
            raise SpecError(self.span(spath + (["pairwise"] if "pairwise" in sp else ["printed"])),
                            f"pairwise is {str(sp.get('pairwise', False)).lower()}, but the sentence "
                            f"{'says' if says else 'does not say'} \"pair-wise\"",
                            "pairwise: true where the document says the sparsity is pair-wise, and only there")
        for ri, row in enumerate(rows):
            rpath = fpath + ["table", ri]
            if row.per_register is None or row.out_of is None:
                raise SpecError(self.span(rpath + ["registers"]), "a sparse fragment's registers must give "
                                "per_register and out_of (\"two non-zero elements out of 4 consecutive\")")
            if row.elements is not None:
                raise SpecError(self.span(rpath + ["elements"]), "a sparse fragment lists no elements; the "
                                "document's cell describes the mapping (elements_note)")
            if (row.per_register, row.out_of) != (rows[0].per_register, rows[0].out_of):
                raise SpecError(self.span(rpath + ["registers"]), "every table row of a sparse fragment must "
                                "hold the same number of non-zero elements out of the same range")
        return model.Sparsity(nonzero, chunk, sp.get("pairwise", False), sp["storage"], sp["printed"], k,
                              self.span(spath), rows[0].per_register, rows[0].out_of)
