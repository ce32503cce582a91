"""Outputs of hostile input: JUnit XML stays well-formed whatever a spec's path holds, SARIF stays
JSON."""
import json
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from conftest import SPECS



def _spec_in(folder):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "m16n8k256.yaml")
    shutil.copy(os.path.join(SPECS, "m16n8k256.yaml"), path)
    return path


@pytest.mark.parametrize("name", ["a\x01b", "a\x1bb", "a\x7fb\x0c", "a\udcffb" if os.name == "posix" else "a\x02b"])
def test_junit_parses_and_sarif_loads_whatever_the_path_holds(run, tmp_path, name):
    try:
        spec = _spec_in(str(tmp_path / name))
    except (UnicodeEncodeError, OSError):
        pytest.skip("the file system takes no such name")
    r = run("prove", spec, "--format", "junit", "--output", str(tmp_path / "out.xml"))
    assert r.code == 0, r.err
    root = ET.parse(tmp_path / "out.xml").getroot()
    suite = root.find("testsuite").get("name")
    assert suite.endswith("/m16n8k256.yaml") and name not in suite  # escaped, e.g. a\x01b
    assert run("prove", spec, "--format", "sarif", "--output", str(tmp_path / "out.sarif")).code == 0
    json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
