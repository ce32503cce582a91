"""An element list's `where` clause defines each name once (wgmma's `X = N/2 - 4` ... `W = N/2 - 1`).
A name defined twice had the last definition taken without a word: `validate` passed, and `prove`
then refuted the fragment's shape at an element the spec never meant (`d3` where `d127` is due).
The second definition is the spec's error, located at it, before anything is proved."""
import pytest

OLD = 'elements: "d0, d1, d2, d3, …, dX, dY, dZ, dW  where `X = N/2  -  4`  `Y = N/2  -  3`  `Z = N/2  -  2`  `W = N/2  -  1`'


@pytest.mark.parametrize("command", ["validate", "prove"])
def test_a_name_defined_twice_in_a_where_clause_is_refused_at_the_second(run, copy, command):
    new = OLD + " `W = 3`"
    path, line, col = copy("m64nNk16.yaml", OLD, new)
    r = run(command, path, *(["--no-cache"] if command == "prove" else []))
    assert r.code == 3, r.out + r.err
    at = f"{path}:{line}:{col + new.index('W = 3')}: error: "
    said = "W is defined twice in the 'where' clause; expected one definition of each name"
    # prove names the instance it was loading (D.float[N=8]: ...) after the location
    assert any(ln.startswith(at) and ln.endswith(said) for ln in (r.out + r.err).splitlines()), r.out + r.err


def test_each_name_defined_once_still_loads(run, copy):
    path, _, _ = copy("m64nNk16.yaml", OLD, OLD.replace("`W = N/2  -  1`", "`W = N/2 - 1`"))  # spacing is no second one
    assert run("validate", path).code == 0
