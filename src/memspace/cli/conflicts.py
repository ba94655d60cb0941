"""`memspace conflicts list|resolve` (docs/conflicts.md): the same service calls as the
list_conflicts and resolve_conflict tools, as the operator."""

from __future__ import annotations

from typing import Annotated

import typer

from memspace.cli.common import JsonOpt, SpaceOpt, cli_words, command, emit, open_container
from memspace.cli.root import MEMORIES, app
from memspace.present.conflicts import (
    conflicts_json,
    conflicts_text,
    resolution_json,
    resolution_text,
)
from memspace.services.access import AccessService

# The closing line of the tool's text, where a terminal user needs the command instead.
TOOL_SETTLE = "Settle one with resolve_conflict(conflictId, keep, supersede, reason, version)."

conflicts_app = typer.Typer(help="List and settle the open conflicts of a space.",
                            no_args_is_help=True)


@conflicts_app.command("list")
@command
def list_conflicts(
    space: SpaceOpt,
    limit: Annotated[int, typer.Option(help="Conflicts per page (1-50).")] = 20,
    cursor: Annotated[str | None, typer.Option(help="nextCursor of the previous page.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The space's open conflicts, newest first, both sides of each."""
    container = open_container()
    page = container.conflicts.listing(AccessService.operator(), space, limit, cursor)
    text = conflicts_text(page).replace(TOOL_SETTLE, (
        f"Settle one with `memspace conflicts resolve ID --keep SIDE --reason TEXT --space "
        f"{page.space}` (--supersede SIDE for a side that no longer holds, --version as listed)."))
    emit(conflicts_json(page), as_json, cli_words(text).replace("call again with cursor=",
                                                                "run again with --cursor "))


@conflicts_app.command("resolve")
@command
def resolve(
    conflict_id: Annotated[str, typer.Argument(help="Id from `memspace conflicts list`.")],
    reason: Annotated[str, typer.Option(help="Why (kept in the memories' history).")],
    space: SpaceOpt,
    keep: Annotated[str | None, typer.Option(help="The side that holds (or `proposal`).")] = None,
    supersede: Annotated[list[str] | None, typer.Option(
        help="A side that no longer holds (repeatable).")] = None,
    version: Annotated[str | None, typer.Option(
        help="The version listed; refused if the conflict changed since.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Settle one conflict in one write (the same call as resolve_conflict)."""
    container = open_container()
    done = container.conflicts.resolve(AccessService.operator(), conflict_id, keep, supersede,
                                       reason, version, space)
    emit(resolution_json(done), as_json, resolution_text(done))


app.add_typer(conflicts_app, name="conflicts", rich_help_panel=MEMORIES)
