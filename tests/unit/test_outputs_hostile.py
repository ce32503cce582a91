"""Outputs of hostile input and hostile output places: JUnit XML stays well-formed whatever a spec's
path holds, SARIF stays JSON, an output that is a FIFO is refused at once instead of waiting
forever for a reader, and a 100 KB argument is not echoed whole."""
import json
import os
import shutil
import threading
import xml.etree.ElementTree as ET

import pytest

from conftest import SPECS

from checker import outputs
from checker.errors import UsageError


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


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("argv", [["prove", "{spec}", "--format", "junit", "--output", "{fifo}"],
                                  ["export", "{spec}", "--fragment", "C.s32", "--to", "cute", "--output", "{fifo}"]])
def test_an_output_that_is_a_fifo_is_refused_not_waited_on(run, tmp_path, argv):
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    spec = os.path.join(SPECS, "m16n8k256.yaml")
    got = {}
    worker = threading.Thread(target=lambda: got.setdefault("r", run(*[a.format(spec=spec, fifo=fifo) for a in argv])),
                              daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # let it go: a reader ends the open that waits
        with open(fifo, "rb"):
            pass
        pytest.fail("the command waited on the FIFO")
    r = got["r"]
    assert r.code == 2 and f"--output {fifo}: is a FIFO (named pipe), not a regular file" in r.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_put_there_after_the_check_is_refused_too(tmp_path):
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="is a FIFO"):
        outputs.write_text(fifo, "x", "--output")


def test_dev_null_and_regular_files_are_written(tmp_path):
    if os.path.exists(os.devnull):
        outputs.write_text(outputs.file(os.devnull, "--output"), "x", "--output")
    path = str(tmp_path / "out.txt")
    outputs.write_text(path, "long text\n", "--output")
    outputs.write_text(outputs.file(path, "--output"), "x", "--output")
    assert open(path).read() == "x"  # truncated, then written


def test_an_unknown_fragment_set_is_not_echoed_whole(run):
    r = run("simulate", os.path.join(SPECS, "m16n8k16.yaml"), "--fragment-set", "x" * 100_000)
    assert r.code == 2 and "has no variant 'xxxx" in r.err and len(r.err) < 2000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_where_a_report_page_goes_is_refused_and_the_rest_written(run, tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    os.mkfifo(out / "index.html")
    r = run("report", os.path.join(SPECS, "m8n8k4.yaml"), "--out", str(out))
    assert r.code == 2 and "index.html: is a FIFO (named pipe), not a regular file" in r.err, r.err
    assert (out / "errata.md").is_file()  # written before it, in order


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_where_emit_ptx_writes_a_movement_file_is_refused(run, tmp_path):
    """The movement forms' --emit-ptx wrote with plain open(): a FIFO planted where its manifest
    goes made the command wait for a reader. It writes through checker.outputs as the others do."""
    out = tmp_path / "emit"
    out.mkdir()
    os.mkfifo(out / "manifest-movement.json")
    got = {}
    worker = threading.Thread(target=lambda: got.setdefault("r", run(
        "probe", os.path.join(SPECS, "movmatrix.m8n8.yaml"), "--emit-ptx", str(out))), daemon=True)
    worker.start()
    worker.join(120)
    if worker.is_alive():
        with open(out / "manifest-movement.json", "rb"):
            pass
        pytest.fail("the command waited on the FIFO")
    r = got["r"]
    assert r.code == 2 and "manifest-movement.json: is a FIFO (named pipe), not a regular file" in r.err, r.out + r.err
