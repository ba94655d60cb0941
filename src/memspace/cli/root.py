"""The `memspace` command's root: the Typer app every verb registers on, in the module that
defines it, and the panels `memspace --help` lists the verbs in."""

from __future__ import annotations

from typing import Annotated

import typer

from memspace import __version__

app = typer.Typer(help="memspace: shared, graph-shaped memory for teams of AI agents.",
                  no_args_is_help=True, add_completion=False)

# The panels of `memspace --help`, in this order.
RUN, MEMORIES, FILES, ACCESS = "Run and connect", "Memories", "Documents and code", "Spaces and access"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memspace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """memspace: shared, graph-shaped memory for teams of AI agents."""
