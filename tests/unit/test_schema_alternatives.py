"""Where the schema offers alternatives (a wgmma shape's `parameters: {N: ...}`, one run of values or
a list of runs; a section's `fragments`, `layouts` or `scale_factors`), a value that fits none is
said at the value that breaks the branch it was meant for, with what that branch expects and what
was found: `parameters.N.to: 2048 is greater than the maximum of 1024` at the 2048, an unknown key
at the key. jsonschema's own oneOf/anyOf error ("a dict that is not valid under any of the given
schemas", at the parent) said neither."""
import pytest

PARAMS = "parameters: {N: {from: 8, to: 256, step: 8}}"


@pytest.mark.parametrize("new, at, said", [
    ("parameters: {N: {from: 8, to: 2048, step: 8}}", "2048", "parameters.N.to: 2048 is greater than the maximum of 1024"),
    ("parameters: {N: {from: 0, to: 256, step: 8}}", "0, to", "parameters.N.from: 0 is less than the minimum of 1"),
    ("parameters: {N: {from: 8, to: 256}}", "{from", "parameters.N: 'step' is a required property"),
    ("parameters: {N: {from: 8, to: 256, step: 8, by: 1}}", "by", "unknown key 'by' in parameters.N"),
    ("parameters: {N: [{from: 8, to: 256, step: 8}, {from: 8, to: 256, step: 0}]}", "0}]",
     "parameters.N[1].step: 0 is less than the minimum of 1"),
    ("parameters: {N: 8}", "8}", "parameters.N: expected a mapping or a list, found 8"),
    ("parameters: {N: \"8 to 256\"}", "\"8", "parameters.N: expected a mapping or a list, found \"8 to 256\""),
])
def test_a_parameter_that_fits_no_alternative_is_said_at_what_breaks_it(run, copy, new, at, said):
    path, line, col = copy("m64nNk16.yaml", PARAMS, new)
    r = run("validate", path)
    assert r.code == 3, r.out + r.err
    where = f"{path}:{line}:{col + new.index(at)}: error: {said}"
    assert where in r.out + r.err, r.out + r.err
    assert "not valid under any" not in r.out + r.err


def test_a_section_with_none_of_its_alternatives_says_which_keys_it_takes(run, tmp_path):
    import os

    import yaml

    from conftest import SPECS

    spec = yaml.safe_load(open(os.path.join(SPECS, "m8n8k16.yaml"), encoding="utf-8"))
    del spec["sections"][0]["fragments"]
    path = tmp_path / "m8n8k16.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    line = path.read_text().splitlines().index("- section: 9.7.14.5.3") + 1
    r = run("validate", str(path))
    assert r.code == 3, r.out + r.err
    assert (f"{path}:{line}:3: error: sections[0]: expected one of the keys fragments, layouts, scale_factors, "
            "found none of them") in r.out + r.err, r.out + r.err
