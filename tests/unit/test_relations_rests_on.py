"""A relation's `rests_on` names the figures it rests on; each must be a figure that one of the
relation's two fragments transcribes, in the section named, cited once, and each fragment must
have one of its figures cited. A citation moved to a neighbouring figure (A.f64's Figure 80 for
A.f16's Figure 79) is refused at its line by validate and by prove, like any malformed field."""
import pytest


@pytest.mark.parametrize("old,new,says", [
    # the neighbouring figure of the same section: A's .f64 layout, which the relation does not read
    ('rests_on: ["9.7.14.5.8 Figure 79 (A, .f16/.bf16)", "9.7.14.5.8 Figure 83 (C/D)"]',
     'rests_on: ["9.7.14.5.8 Figure 80 (A, .f16/.bf16)", "9.7.14.5.8 Figure 83 (C/D)"]',
     "rests on 9.7.14.5.8 Figure 80, which neither of its fragments (m16n8k16/A.f16, m16n8k16/C.float) transcribes"),
    # the right figure under the wrong section
    ('rests_on: ["9.7.14.5.8 Figure 79 (A, .f16/.bf16)", "9.7.14.5.8 Figure 83 (C/D)"]',
     'rests_on: ["9.7.14.5.9 Figure 79 (A, .f16/.bf16)", "9.7.14.5.8 Figure 83 (C/D)"]',
     "rests on 9.7.14.5.9 Figure 79"),
    # one figure twice, the other range's figure lost
    ('rests_on: ["9.7.14.5.13 Figures 101 and 102", "9.7.14.5.8 Figure 81"]',
     'rests_on: ["9.7.14.5.13 Figures 102 and 102", "9.7.14.5.8 Figure 81"]',
     "cites 9.7.14.5.13 Figure 102 twice"),
    # a side whose figure is no longer cited (the other side's figure in its place)
    ('rests_on: ["9.7.14.5.7 Figure 71", "9.7.14.5.7 Figure 72"]',
     'rests_on: ["9.7.14.5.7 Figure 72"]',
     "reads m16n8k8/A.f16 but its rests_on cites none of its figures"),
])
@pytest.mark.parametrize("command", ["validate", "prove"])
def test_a_citation_of_a_figure_the_relation_does_not_read_is_refused(run, copy, old, new, says, command):
    path, line, _ = copy("relations.yaml", old, new)
    r = run(command, path)
    assert r.code == 3, r.out + r.err
    text = r.out + r.err
    assert says in text
    assert f"relations.yaml:{line}:" in text


def test_the_relations_file_cites_only_figures_of_its_fragments(run):
    from conftest import SPECS
    import os
    r = run("validate", os.path.join(SPECS, "relations.yaml"))
    assert r.code == 0, r.out + r.err
