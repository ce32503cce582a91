"""A spec's (or a relations file's) YAML checked against its JSON Schema, the first error located at
the line it stands on, in jsonschema's words cut short where they would quote a whole value."""
from __future__ import annotations

import itertools
import json

from checker.bounded import shown
from checker.errors import SpecError
from checker.spec import yamlload
from checker.spec.validation import MAX_EXPLAINED, explained, gate, valid


def _path_str(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the file"


def check_structure(doc: yamlload.Document, schema_name: str = "spec.schema.json") -> None:
    if not isinstance(doc.value, dict):
        raise SpecError(doc.span(()), f"expected a mapping at the top of the file, found {type(doc.value).__name__}")
    if valid(doc.value, schema_name):
        _integers(doc)
        return
    try:
        errors = explained(doc.value, schema_name)
    except (ValueError, TypeError):  # a value JSON has no type for (a YAML timestamp)
        raise SpecError(doc.span(()), "a value has a type JSON does not have") from None
    if not errors:  # the two implementations disagree: the gate's own error, located
        err = min(itertools.islice(gate(schema_name).iter_errors(doc.value), MAX_EXPLAINED), key=lambda e: doc.span(tuple(e.instance_path)).line)
        raise SpecError(doc.span(tuple(err.instance_path)), f"{_path_str(tuple(err.instance_path))}: {err.message[:160]}")

    def order(e):
        s = doc.span(tuple(e.absolute_path))
        return (s.line, s.col, -len(e.absolute_path))

    err = _branch(min(errors, key=order))
    path = tuple(err.absolute_path)
    if err.validator in ("oneOf", "anyOf"):  # no branch says more: say what each would take
        raise SpecError(doc.span(path), f"{_path_str(path)}: {_alternatives(err)}")
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        allowed = ", ".join(sorted(err.schema.get("properties", {})))
        key_path = path + (extra[0],)
        raise SpecError(doc.span(key_path, key=True), f"unknown key {shown(extra[0])} in {_path_str(path)}",
                        f"allowed keys: {allowed}")
    if err.validator == "required":
        raise SpecError(doc.span(path), f"{_path_str(path)}: {err.message}")
    raise SpecError(doc.span(path), f"{_path_str(path)}: {_message(err)}")


def _branch(err):
    """A oneOf/anyOf error (`parameters: {N: ...}`, a section's fragments/layouts/scale_factors)
    said as the error of the branch the value was meant for, at the value that breaks it (`to:
    2048`, a missing `step`, an unknown key): the branches whose type the value does not have are
    not what the author wrote, and of the others jsonschema's best_match is the most specific. The
    oneOf itself ("a dict that is not valid under any of the given schemas") said neither what was
    expected nor what was wrong, and stood at the parent."""
    from jsonschema.exceptions import best_match

    while err.validator in ("oneOf", "anyOf") and err.context:
        meant = [e for e in err.context if not (e.validator == "type" and not e.relative_path)]
        branches = {e.relative_schema_path[0] for e in meant}
        if not meant or (len(branches) > 1 and all(e.validator == "required" and not e.relative_path for e in meant)):
            return err  # a wrong type for every branch, or none of the keys any branch requires
        err = best_match(meant)
    return err


def _alternatives(err) -> str:
    """What the branches of a oneOf/anyOf take, none of which the value gives: the types, or the
    keys one of which is required."""
    found = (_article("object" if isinstance(err.instance, dict) else "array")
             if isinstance(err.instance, (dict, list)) else json.dumps(err.instance)[:40])
    keys = [k for e in err.context if e.validator == "required" and not e.relative_path
            for k in e.validator_value if k not in err.instance] if isinstance(err.instance, dict) else []
    if keys:
        return f"expected one of the keys {', '.join(dict.fromkeys(keys))}, found none of them"
    types = [e.validator_value for e in err.context if e.validator == "type" and not e.relative_path]
    return f"expected {' or '.join(_article(t) for t in dict.fromkeys(types))}, found {found}"


def _article(t) -> str:
    """A JSON Schema type as a spec's author reads it (YAML's words: a mapping, a list)."""
    return {"object": "a mapping", "array": "a list", "integer": "an integer", "string": "a string"}.get(t, str(t))


def _integers(doc: yamlload.Document) -> None:
    """JSON Schema's "integer" is any number with a zero fraction, so `count: 4.0` passes it and
    would reach range() as a float. No schema here takes a number that is not an integer (no
    "number" type; numeric enums are integers), so in a file that passed the schema every float
    stands where an integer goes: the first one, in file order, is the error. (Booleans fail
    "integer" in both validators already.)"""
    found, stack = [], [((), doc.value)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float):
            found.append(path)
        elif isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((path + (k,), v) for k, v in enumerate(value))
    if found:
        path = min(found, key=lambda p: (doc.span(p).line, doc.span(p).col))
        node = doc.nodes.get(path)
        written = node.value if isinstance(getattr(node, "value", None), str) else _lookup(doc.value, path)
        raise SpecError(doc.span(path), f"{_path_str(path)}: {shown(written, quote=False)} is not an integer",
                        "write a whole number without a decimal point or exponent")


def _lookup(value, path):
    for p in path:
        value = value[p]
    return value


def _message(err) -> str:
    """jsonschema's own words, except where they would quote a whole (possibly huge) value."""
    v, value = err.validator, err.validator_value
    short = {"maxLength": f"is too long: more than {value} characters",
             "minLength": f"is too short: fewer than {value} characters",
             "maxItems": f"has too many items: more than {value}",
             "minItems": f"has too few items: fewer than {value}",
             "pattern": f"does not match the pattern {value}"}
    found = json.dumps(err.instance) if not isinstance(err.instance, (dict, list)) else type(err.instance).__name__
    if v in short:
        return short[v] + (f" (found {found[:40]})" if v == "pattern" else "")
    if len(err.message) <= 160:
        return err.message
    return f"fails '{v}' ({json.dumps(value)[:80]}); found {found[:40]}"
