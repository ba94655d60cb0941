"""Documents: `memspace import` (files through the add pipeline, now) and
`memspace document list|retry`, as the local operator."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memspace.cli import ingest
from memspace.cli.common import JsonOpt, command, emit, open_container
from memspace.cli.root import FILES, app
from memspace.present.records import document_json
from memspace.present.text import documents_text
from memspace.services.access import AccessService

document_app = typer.Typer(help="List documents and retry failed ones.", no_args_is_help=True)


@app.command("import", rich_help_panel=FILES)
@command
def import_files(
    files: Annotated[list[Path], typer.Argument(
        help="PDF, CSV/TSV, Markdown or text files.", exists=True, dir_okay=False)],
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")],
    title: Annotated[str | None, typer.Option(help="Title (default: the file name).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Import files now: stored, split into chunks, each chunk through the add pipeline.

    Exits 1 when a file was refused or failed (the reason is printed; a failed document is
    kept and can be retried with `memspace document retry`).
    """
    container = open_container()
    if not ingest.import_files(container, files, space, title, as_json):
        raise typer.Exit(1)


@document_app.command("list")
@command
def document_list(
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")],
    limit: Annotated[int, typer.Option(help="How many (newest first).")] = 50,
    as_json: JsonOpt = False,
) -> None:
    """List a space's documents with their status, progress and failure reasons."""
    container = open_container()
    slug, page = container.documents.list(AccessService.operator(), space, limit)
    rows = [document_json(d) for d in page.items]
    emit(rows, as_json, documents_text(slug, page.items, page.next_cursor))


@document_app.command("retry")
@command
def document_retry(
    document_id: Annotated[str, typer.Argument(help="Id of a failed document.")],
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")],
) -> None:
    """Process a failed document again, from its first chunk not done."""
    container = open_container()
    done = ingest.retry(container, document_id, space)
    if not done:
        raise typer.Exit(1)


app.add_typer(document_app, name="document", rich_help_panel=FILES)
