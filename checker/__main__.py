import os
import sys

# `python -m checker` puts the folder it runs in first on sys.path (Python's rule; -P turns it off),
# so a checkout holding a yaml.py or a lark/ folder had that code imported in place of the library.
# The checker itself is imported by now; what it imports next comes from the installation.
if not getattr(sys.flags, "safe_path", False) and sys.path and os.path.abspath(sys.path[0] or ".") == os.getcwd():
    del sys.path[0]

from checker.cli import entry  # noqa: E402 - after the working folder has left sys.path

if __name__ == "__main__":
    sys.exit(entry())
