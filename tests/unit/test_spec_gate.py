"""What `checker validate` refuses, it refuses located, and so does every command that loads the
spec: the meaning checks that sit between the JSON Schema and a proof."""
import os

import pytest

from conftest import CASES


def _case(name: str) -> str:
    folder = os.path.join(CASES, "bad", name)
    return os.path.join(folder, next(n for n in sorted(os.listdir(folder)) if n.endswith(".yaml")))


@pytest.mark.parametrize("name,element", [("formula-unknown-element", "c5"),
                                          ("formula-huge-element", "c99999999999999999999")])
def test_validate_refuses_an_element_the_fragment_does_not_have(run, name, element):
    """`for c5` in a fragment of c0, c1: the piece would apply nowhere and the layout prove
    without it; validate names the element, at its own column, with the fragment's."""
    path = _case(name)
    r = run("validate", path)
    assert r.code == 3, r.out + r.err
    assert r.err.startswith(f"{path}:24:31: error: {element} is not an element of this fragment: "
                            "expected one of c0..c1 (the fragment's elements)"), r.err
