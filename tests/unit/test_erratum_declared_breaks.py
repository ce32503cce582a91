"""An erratum is confirmed only where the printed text breaks exactly what it declares: one that
declares a property the printed text keeps is not confirmed (test_errata.py shows the other way,
a printed text that breaks more than declared)."""
import json
import os

from conftest import SPECS


def test_an_erratum_declaring_a_break_the_printed_text_does_not_make_fails(run, tmp_path):
    for name in os.listdir(SPECS):  # the scope reads the specs beside it
        if name.endswith(".yaml"):
            (tmp_path / name).write_text(open(os.path.join(SPECS, name), encoding="utf-8").read(), encoding="utf-8")
    path = tmp_path / "m16n8k256.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("breaks: [injective, covers]") == 1
    path.write_text(text.replace("breaks: [injective, covers]", "breaks: [defined, injective, covers]"), encoding="utf-8")
    r = run("prove", str(path), "--format", "json")
    assert r.code == 1
    results = [x for x in json.loads(r.out)["results"] if x["spec"] == str(path) and x["fragment"] == "A.b1"]
    (bad,) = [x for x in results if x["property"] == "erratum"]
    assert bad["verdict"] == "REFUTED" and "the printed text does not break defined" in bad["message"]
    assert not any(x["erratum"] for x in results)  # nothing of it confirmed
