"""The checker's JSON Schemas and their two validators: jsonschema-rs decides whether a value is
valid, jsonschema explains why one is not (checker/spec/load.py locates the explanation)."""
from __future__ import annotations

import functools
import json
import re
from importlib import resources


def schema(name: str = "spec.schema.json", package: str = "checker.spec") -> dict:
    return json.loads(resources.files(package).joinpath(name).read_text())


@functools.lru_cache(maxsize=None)
def gate(name: str):
    """jsonschema-rs decides whether a file is valid: the common case, and the one a cold proof
    pays for, costs a tenth of a millisecond and no import of jsonschema (its import and
    validation were 12% of a seed proof on an idle 2-core machine: docs/speed.md). It reads
    `pattern` as JSON Schema does; so does the explainer below."""
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(name))


def valid(value, schema_name: str) -> bool:
    """Whether `value` is valid against the schema: jsonschema-rs's verdict."""
    try:
        return gate(schema_name).is_valid(value)
    except (ValueError, TypeError):  # a value JSON has no type for (a YAML timestamp): let jsonschema say
        return False


@functools.lru_cache(maxsize=None)
def validator(name: str = "spec.schema.json", package: str = "checker.spec"):
    """The JSON Schema 2020-12 validator that explains an invalid file: its errors say which
    keyword failed, on which value, under which part of the schema, which is what the located
    message is made from."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": _pattern})(schema(name, package))


def _pattern(validator, pattern: str, instance, schema):
    """`pattern` as JSON Schema means it (ECMA-262), where `$` ends the string. Python's `$` also
    matches before a final newline, so `"C.s32\n"` would pass `^...$`: the schemas' patterns are
    anchored, and their final `$` is read as the end of the string."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string"):
        anchored = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
        if re.search(anchored, instance) is None:
            yield ValidationError(f"{instance!r} does not match {pattern!r}")
