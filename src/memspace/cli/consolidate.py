"""`memspace consolidate` (docs/consolidation.md): one consolidation pass over a space now, as
the operator; `consolidate undo PASS_ID` reverses one; `consolidate passes` lists them."""

from __future__ import annotations

from typing import Annotated

import typer

from memspace.cli.common import JsonOpt, command, emit, open_container
from memspace.cli.root import MEMORIES, app
from memspace.present.consolidation import (
    pass_json,
    pass_text,
    passes_text,
    record_json,
    undo_json,
    undo_text,
)

consolidate_app = typer.Typer(
    help="Run a consolidation pass over a space now: fold restatements, retire what a later "
         "memory replaced, add missed links, retire what expired, queue the rest.",
    invoke_without_command=True)

PassSpace = Annotated[str | None, typer.Option("--space", "-s", help="Space slug.")]


@consolidate_app.callback()
def consolidate(
    ctx: typer.Context,
    space: PassSpace = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print what the pass would change; write nothing.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run one pass over the space and print what it changed and what it cost."""
    if ctx.invoked_subcommand is not None:
        return
    _run(space, dry_run, as_json)


@command
def _run(space: str | None, dry_run: bool, as_json: bool) -> None:
    if not space:
        typer.echo("error: name the space, e.g. `memspace consolidate --space acme-rebuild "
                   "--dry-run`", err=True)
        raise typer.Exit(2)
    container = open_container()
    report = container.consolidation.consolidate(space, dry_run)
    hint = (f"Undo it with `memspace consolidate undo {report.pass_id} --space "
            f"{report.space.slug}`.")
    emit(pass_json(report), as_json, pass_text(report, hint))


@consolidate_app.command("undo")
@command
def undo(
    pass_id: Annotated[str, typer.Argument(help="The pass's id (cp_…), as a pass printed it.")],
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")],
    reason: Annotated[str | None, typer.Option(help="Why (kept in the memories' history).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Reverse one pass: what it retired is current again, the links it added are removed."""
    container = open_container()
    done = container.consolidation.undo(space, pass_id, reason, by="cli:operator")
    emit(undo_json(done), as_json, undo_text(done))


@consolidate_app.command("passes")
@command
def passes(
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")],
    limit: Annotated[int, typer.Option(help="Passes to list (1-200).")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """The space's consolidation passes, newest first, with what each changed and cost."""
    container = open_container()
    target, records = container.consolidation.passes(space, limit)
    emit({"space": target.slug, "passes": [record_json(r) for r in records]}, as_json,
         passes_text(target.slug, records))


app.add_typer(consolidate_app, name="consolidate", rich_help_panel=MEMORIES)
