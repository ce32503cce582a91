"""The checker's JSON Schemas and their two validators: jsonschema-rs decides whether a value is
valid, jsonschema explains why one is not (checker/spec/load.py locates the explanation)."""
from __future__ import annotations

import functools
import itertools
import json
import re
from importlib import resources

# How many of jsonschema's explanations of an invalid value are looked at. It yields one error per
# offending item, each with its context, so a 240 KB spec `sections: [{}, {}, ...]` or a 2 KB
# gzipped dump of a million items cost seconds and gigabytes when every one was collected; the
# explanation picks the best of the first few, which for any file a person wrote are all of them.
MAX_EXPLAINED = 64


def schema(name: str = "spec.schema.json", package: str = "checker.spec") -> dict:
    return json.loads(resources.files(package).joinpath(name).read_text())


@functools.lru_cache(maxsize=None)
def gate(name: str, package: str = "checker.spec"):
    """jsonschema-rs decides whether a file is valid: the common case, and the one a cold proof
    pays for, costs a tenth of a millisecond and no import of jsonschema (its import and
    validation were 12% of a seed proof on an idle 2-core machine: docs/speed.md). It reads
    `pattern` as JSON Schema does; so does the explainer below."""
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(name, package))


def valid(value, schema_name: str, package: str = "checker.spec") -> bool:
    """Whether `value` is valid against the schema: jsonschema-rs's verdict."""
    try:
        return gate(schema_name, package).is_valid(value)
    except (ValueError, TypeError):  # a value JSON has no type for (a YAML timestamp): let jsonschema say
        return False


def explained(value, schema_name: str, package: str = "checker.spec") -> list:
    """At most MAX_EXPLAINED of jsonschema's errors for an invalid `value`, in the order it finds
    them (lazily: the rest are never built). Callers decide validity with `valid` first, so this
    runs only on a value that is already known to be wrong."""
    return list(itertools.islice(validator(schema_name, package).iter_errors(value), MAX_EXPLAINED))


@functools.lru_cache(maxsize=None)
def validator(name: str = "spec.schema.json", package: str = "checker.spec"):
    """The JSON Schema 2020-12 validator that explains an invalid file: its errors say which
    keyword failed, on which value, under which part of the schema, which is what the located
    message is made from."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": _pattern, "oneOf": _one_of, "anyOf": _any_of})(
        schema(name, package))


def _branch_errors(validator, subschemas, instance) -> tuple:
    """(index of the first branch `instance` satisfies or None, a bounded few errors of the others).
    jsonschema's own oneOf/anyOf collect every error of every branch (`list(descend(...))`), so
    `parameters: {N: [{}, {}, ...]}` cost 8 s and 780 MB before the outer bound could stop it."""
    found = []
    for index, subschema in enumerate(subschemas):
        errs = list(itertools.islice(validator.descend(instance, subschema, schema_path=index), MAX_EXPLAINED))
        if not errs:
            return index, found
        found.extend(errs)
    return None, found


def _one_of(validator, one_of, instance, schema):
    from jsonschema.exceptions import ValidationError

    first, errs = _branch_errors(validator, one_of, instance)
    if first is None:  # jsonschema quotes the whole instance here: a type is enough, and bounded
        yield ValidationError(f"a {type(instance).__name__} that is not valid under any of the given schemas",
                              context=errs)
    elif any(validator.evolve(schema=s).is_valid(instance) for s in one_of[first + 1:]):
        yield ValidationError(f"a {type(instance).__name__} that is valid under more than one of the given schemas")


def _any_of(validator, any_of, instance, schema):
    from jsonschema.exceptions import ValidationError

    first, errs = _branch_errors(validator, any_of, instance)
    if first is None:
        yield ValidationError(f"a {type(instance).__name__} that is not valid under any of the given schemas",
                              context=errs)


def _pattern(validator, pattern: str, instance, schema):
    """`pattern` as JSON Schema means it (ECMA-262), where `$` ends the string. Python's `$` also
    matches before a final newline, so `"C.s32\n"` would pass `^...$`: the schemas' patterns are
    anchored, and their final `$` is read as the end of the string."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string"):
        anchored = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
        if re.search(anchored, instance) is None:
            yield ValidationError(f"{instance!r} does not match {pattern!r}")
