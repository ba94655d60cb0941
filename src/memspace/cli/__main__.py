"""`python -m memspace.cli`: the `memspace` command."""

from memspace.cli.main import main

main()
