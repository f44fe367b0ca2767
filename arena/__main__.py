"""`python -m arena` is the `arena` command."""

from arena.cli import main

main()
