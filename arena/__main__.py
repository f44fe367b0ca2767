"""`python -m arena` is the `arena` command."""

from arena._entry import run

run()
