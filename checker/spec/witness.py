"""The `witness` of a theorem declared refuted: the smallest point it is refuted at, which the
theorem's engines must find again (checker/theorems/run.py `pinned`). Relations, compositions and
container theorems write it; one expected to hold has none."""
from __future__ import annotations

from checker.errors import SpecError


def declared(given, expect: str, what: str, at, names=None):
    """The witness as the engines give a point: {name: value} in `names` order (the lane and the
    for: variables), or a tuple where `names` is None (a container theorem's values and paddings);
    None where none is given. `at(key)`: the span of the `witness` key (True) or of its value."""
    if given is None:
        return None
    if expect != "refuted":
        raise SpecError(at(True), f"a {what} expected to hold is refuted nowhere: witness: goes with expect: refuted")
    if names is None:
        return tuple(given)
    if sorted(given) != sorted(names):
        raise SpecError(at(False), f"a witness names {', '.join(names)} (the lane and the for: variables), "
                                   f"not {', '.join(given) or 'nothing'}")
    return {k: given[k] for k in names}
