"""The LALR tables of the formula and element-list grammars, shipped as package data."""
from __future__ import annotations

import hashlib
import json
from importlib import resources

import lark
from lark import Lark

# The LALR tables of both grammars are built when the package is built, not when it runs: lark's
# own cache is a pickle in the user's cache folder, and unpickling a file that someone else could
# have written (a CI cache restored from another job) runs whatever it says. The tables are
# package data (`formula.tables.json`, `elements.tables.json`), JSON read with json and turned into
# lark's objects by lark's deserializer, which instantiates only the classes its namespaces name
# (Rule, TerminalDef, ...; `_deserialize` in lark/utils.py looks each `__type__` up in a dict and
# raises KeyError on any other name). A test regenerates them and requires identical bytes; a
# table written by another lark version or for another grammar is not used (the parser is built
# in memory instead, ~20-60 ms).
_FORMAT = "ptx-fragment-checker/lark-tables/1"
OPTIONS = {
    "formula": dict(start=["start", "lone"], parser="lalr", lexer="contextual", propagate_positions=True,
                    maybe_placeholders=False),
    "elements": dict(parser="lalr", lexer="contextual"),
}
_ELEMENTS_GRAMMAR = r"""
start: item ("," item)*
?item: NAME | ELLIPSIS
NAME: /[a-zA-Z]([0-9]+|[A-Z])/
ELLIPSIS: "..." | "…"
%ignore /[ \t\r\n]+/
"""


def grammar(name: str) -> str:
    if name == "elements":
        return _ELEMENTS_GRAMMAR
    return resources.files("checker.formula").joinpath("formula.lark").read_text(encoding="utf-8")


def _encode(x):
    """lark's serialized tables as JSON: dicts keyed by integers and tuples are tagged so that
    decoding gives back exactly what lark wrote."""
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            assert not any(k.startswith("$") for k in x), "a key that collides with the tags"
            return {k: _encode(v) for k, v in x.items()}
        assert all(type(k) is int for k in x), "dict keys are str or int"
        return {"$int_keys": [[k, _encode(v)] for k, v in sorted(x.items())]}
    if isinstance(x, tuple):
        return {"$tuple": [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    assert x is None or isinstance(x, (str, int, float, bool)), type(x)
    return x


def _decode(obj: dict):
    if len(obj) == 1:
        if "$int_keys" in obj:
            return {int(k): v for k, v in obj["$int_keys"]}
        if "$tuple" in obj:
            return tuple(obj["$tuple"])
    return obj


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tables_text(name: str) -> str:
    """The JSON the package ships for grammar `name`, built now from the grammar (what
    `python -m checker.formula.tables --write` writes and the test compares)."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    text = grammar(name)
    data, memo = Lark(text, **OPTIONS[name]).memo_serialize([TerminalDef, Rule])
    _canonical(data["parser"]["parser"])
    _unbounded(memo)
    _unbounded(data)
    doc = {"format": _FORMAT, "lark": lark.__version__, "grammar_sha256": _sha(text), "data": data, "memo": memo}
    return json.dumps(_encode(doc), sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"


def _canonical(table: dict) -> None:
    """Number the parse table's tokens and states in one order whatever the build: lark numbers
    them in the order its analysis met them, which differs from process to process (an identity
    hash somewhere), and the shipped file must be the same bytes on every rebuild. Tokens go by
    name; states breadth first from the start states (by start name), each state's shifts by
    token name."""
    tokens, states = table["tokens"], table["states"]
    token_order = sorted(tokens.values())
    new_token = {old: token_order.index(name) for old, name in tokens.items()}
    order, seen = [], set()
    queue = [table["start_states"][s] for s in sorted(table["start_states"])]
    queue += [table["end_states"][s] for s in sorted(table["end_states"])]
    while queue:
        state = queue.pop(0)
        if state in seen:
            continue
        seen.add(state)
        order.append(state)
        for tok in sorted(states[state], key=lambda t: tokens[t]):
            action, arg = states[state][tok]
            if action == 0:
                queue.append(arg)
    order += [s for s in sorted(states) if s not in seen]
    new_state = {old: k for k, old in enumerate(order)}
    table["tokens"] = {k: name for k, name in enumerate(token_order)}
    table["states"] = {new_state[old]: {new_token[t]: ((0, new_state[arg]) if action == 0 else (action, arg))
                                        for t, (action, arg) in sorted(states[old].items(),
                                                                       key=lambda x: tokens[x[0]])}
                       for old in order}
    for ends in ("start_states", "end_states"):
        table[ends] = {s: new_state[v] for s, v in sorted(table[ends].items())}


# The width sre gives a pattern with no upper bound (`[a-z]+`) changed in Python 3.11.7 (MAXWIDTH,
# 2**64) from MAXREPEAT (2**32 - 1) before: lark keeps it in each terminal's `_width`, so the
# tables built on 3.10 differed from those built on 3.11.7 in those numbers alone. Lark reads the
# upper width only to order terminals, where every unbounded one compares alike, so one value
# stands for "unbounded" whichever Python builds or reads the tables.
_UNBOUNDED = 1 << 64


def _unbounded(x) -> None:
    if isinstance(x, dict):
        if x.get("__type__") == "PatternRE" and isinstance(x.get("_width"), list) and len(x["_width"]) == 2:
            low, high = x["_width"]
            x["_width"] = [low, _UNBOUNDED if high >= (1 << 32) - 1 else high]
        for v in x.values():
            _unbounded(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _unbounded(v)


def tables_file(name: str) -> str:
    return f"{name}.tables.json"


# the options lark lets a loaded parser take: all given here, so none of them comes from the file
_LOADOPTIONS = dict(postlex=None, transformer=None, lexer_callbacks={}, tree_class=None, use_bytes=False,
                     debug=False, g_regex_flags=0, regex=False, _plugins={})


def load(name: str) -> Lark:
    """Loading the shipped tables takes a millisecond or two; building them, tens."""
    source = grammar(name)
    try:
        text = resources.files("checker.formula").joinpath(tables_file(name)).read_text(encoding="utf-8")
        doc = json.loads(text, object_hook=_decode)
        if (isinstance(doc, dict) and doc.get("format") == _FORMAT and doc.get("lark") == lark.__version__
                and doc.get("grammar_sha256") == _sha(source)):
            return Lark._load_from_dict(doc["data"], doc["memo"], **_LOADOPTIONS,
                                        propagate_positions=OPTIONS[name].get("propagate_positions", False))
    except Exception:  # noqa: BLE001 - missing or unusable tables cost a build, never a proof
        pass
    return Lark(source, **OPTIONS[name])


if __name__ == "__main__":  # python -m checker.formula.tables --write: regenerate the shipped tables
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m checker.formula.tables --write")
    here = resources.files("checker.formula")
    for _name in OPTIONS:
        with open(str(here.joinpath(tables_file(_name))), "w", encoding="utf-8", newline="\n") as _fh:
            _fh.write(tables_text(_name))
