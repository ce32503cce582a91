import sys

from checker.cli import entry

if __name__ == "__main__":
    sys.exit(entry())
