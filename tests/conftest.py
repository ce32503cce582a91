import atexit
import io
import os
import shutil
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = os.path.join(ROOT, "specs")
CASES = os.path.join(ROOT, "tests", "cases")
# the document the specs transcribe (NVIDIA's PTX ISA), vendored unmodified: document/README.md
DOCUMENT = os.path.join(ROOT, "document")
sys.path.insert(0, ROOT)
# every test proves for real; tests/unit/test_cache.py turns the cache on where it tests it
os.environ["CHECKER_NO_CACHE"] = "1"
# the cache's secret key (checker/cachekey.py) of this test run, never the user's ~/.config one:
# the tests and the commands they start make and read it here, removed at the end
_KEY_FOLDER = tempfile.mkdtemp(prefix="checker-test-key-")
os.environ["CHECKER_CACHE_KEY_FILE"] = os.path.join(_KEY_FOLDER, "cache.key")
atexit.register(shutil.rmtree, _KEY_FOLDER, True)


class Run:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def run():
    """The CLI in process, with its streams captured."""
    from checker.cli import main

    def _run(*argv):
        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), out, err)
        return Run(code, out.getvalue(), err.getvalue())

    return _run


def expectations(path: str) -> dict:
    """`# expect-KEY: value` lines at the top of a case file, or in an EXPECT file beside it."""
    sidecar = os.path.join(os.path.dirname(path), "EXPECT")
    source = sidecar if os.path.exists(sidecar) else path
    out: dict = {}
    with open(source, "rb") as fh:
        for raw in fh.read().decode("utf-8", "replace").splitlines():
            if not raw.startswith("# expect"):
                break
            key, _, value = raw[2:].partition(":")
            out.setdefault(key.strip(), []).append(value.strip())
    return out


@pytest.fixture
def refused(tmp_path):
    """refused(text, line, col, what): a reference data file of `text` is refused at line:col with
    a message that says `what` (checker/references/load.py)."""
    from checker.errors import SpecError
    from checker.references import load

    def _refused(text, line, col, what):
        path = tmp_path / "refused.yaml"
        path.write_text(text)
        with pytest.raises(SpecError) as exc:
            load.load_file(str(path))
        assert what in str(exc.value), str(exc.value)
        assert (exc.value.span.line, exc.value.span.col) == (line, col), str(exc.value)

    return _refused


@pytest.fixture
def copy(tmp_path):
    """specs/ copied; edit(name, old, new) replaces the one occurrence of `old` in that file and
    returns (its path, the line and column the edit starts at)."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)

    def edit(name, old, new):
        path = folder / name
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new), encoding="utf-8")
        before = text[:text.index(old)]
        return str(path), before.count("\n") + 1, len(before) - before.rfind("\n")
    return edit
