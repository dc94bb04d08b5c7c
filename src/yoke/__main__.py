"""`python -m yoke` runs the command line."""

from yoke.cli.main import entry

entry()
