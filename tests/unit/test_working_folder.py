"""The folder a command runs in is a checkout, and untrusted: `python -m checker` run there does
not import its modules in place of the libraries (Python puts that folder first on sys.path
for `-m`), while a spec there is proved as usual."""
import os
import shutil
import subprocess
import sys

from conftest import SPECS

PLANTED = ("yaml", "lark", "jsonschema_rs", "argparse", "json", "z3")


def test_python_m_checker_imports_nothing_from_the_working_folder(tmp_path):
    marker = tmp_path / "ran"
    for name in PLANTED:
        (tmp_path / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write({name!r} + ' ')\n")
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), tmp_path)
    proc = subprocess.run([sys.executable, "-m", "checker", "prove", "m8n8k32.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "15 proved" in proc.stdout
    assert not marker.exists(), marker.read_text()


def test_the_control_a_plain_python_imports_them(tmp_path):
    """What the test above guards against: Python itself imports the planted module."""
    marker = tmp_path / "ran"
    (tmp_path / "yaml.py").write_text(f"open({str(marker)!r}, 'a').write('yaml')\n")
    subprocess.run([sys.executable, "-c", "import yaml"], cwd=tmp_path, capture_output=True, timeout=60)
    assert marker.read_text() == "yaml"
