"""`memspace …`: run the server and administer spaces, keys and memories from a terminal.

The CLI acts as the local operator (every space, read-write) on the store that Settings
names, through the same services the MCP tools call.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from memspace import (
    __version__,
    cli_admin,
    cli_clients,
    cli_code,
    cli_conflicts,
    cli_ingest,
    cli_memories,
    cli_oauth,
    cli_security,
    cli_workflow,
)
from memspace.cli_common import command, open_container
from memspace.config import Settings
from memspace.wiring import describe, missing_model

app = typer.Typer(help="memspace: shared, graph-shaped memory for teams of AI agents.",
                  no_args_is_help=True, add_completion=False)
app.add_typer(cli_admin.space_app, name="space")
app.add_typer(cli_admin.key_app, name="key")
app.add_typer(cli_admin.document_app, name="document")
app.add_typer(cli_oauth.oauth_app, name="oauth")
app.command("login-link")(cli_oauth.login_link)
app.add_typer(cli_workflow.handoff_app, name="handoff")
app.command("context")(cli_workflow.context)
app.add_typer(cli_code.repo_app, name="repo")
app.command("verify")(cli_code.verify)
app.command("mine-git")(cli_code.mine_git)
app.command("scan")(cli_security.scan)
app.command("audit")(cli_security.audit)
app.command("stdio")(cli_clients.stdio)
app.add_typer(cli_clients.hook_app, name="hook")
app.command("add")(cli_memories.add)
app.command("search")(cli_memories.search)
app.command("list")(cli_memories.list_memories)
app.command("mark")(cli_memories.mark)
cli_admin.space_app.command("set")(cli_security.space_set)
app.command("rename-category")(cli_memories.rename_category)
app.add_typer(cli_conflicts.conflicts_app, name="conflicts")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memspace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """memspace: shared, graph-shaped memory for teams of AI agents."""


@app.command()
@command
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (MEMSPACE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(
        help="Port (MEMSPACE_PORT); 0: a free one, named below.")] = None,
    demo: Annotated[bool, typer.Option(
        "--demo", help="On an empty store, load the demo (seed/) and print its keys.")] = False,
) -> None:
    """Run the HTTP server: MCP at /mcp, REST under /v1, docs at /docs."""
    import uvicorn

    from memspace.server import create_app

    listening = None
    if port == 0:  # bound here, so the port named below is the one served
        listening = socket.create_server((host or Settings().host, 0))
        port = int(listening.getsockname()[1])
    overrides = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    container = open_container(settings)
    if (problem := missing_model(container.embedder)) is not None:
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2)
    if demo and not container.admin.list_spaces():
        typer.echo(cli_ingest.demo_text(cli_ingest.load_demo(container)) + "\n")
    elif not container.admin.list_keys():
        typer.echo("No API keys yet. Create a space and a key:\n"
                   "    memspace space create my-team\n"
                   "    memspace key create --name my-agent --grant my-team:rw\n")
    cli_oauth.record_served_origin(settings)
    url = f"http://{settings.host}:{settings.port}/mcp"
    typer.echo(f"memspace {settings.store} store, MCP endpoint {url}\n"
               f"embedding model {describe(container.embedder)}")
    config = uvicorn.Config(create_app(container), host=settings.host, port=settings.port,
                            log_level="warning")
    uvicorn.Server(config).run(sockets=[listening] if listening is not None else None)


app.command("import")(cli_admin.import_files)
app.command("export")(cli_admin.export_space)
app.command("import-space")(cli_admin.import_space)


@app.command()
@command
def seed(
    directory: Annotated[Path | None, typer.Option(
        "--dir", help="A folder with demo.json and its documents (default: the bundled demo).",
        exists=True, file_okay=False)] = None,
) -> None:
    """Load the demo: two spaces, keys (printed once), memories with history, documents."""
    container = open_container()
    report = cli_ingest.load_demo(container, directory)
    typer.echo(cli_ingest.demo_text(report))


@app.command()
def doctor(
    model: Annotated[bool, typer.Option(
        "--model", help="Also make one small call to the configured model.")] = False,
) -> None:
    """Check the setup: store, data dir, embedding model, model, public URL, OAuth. Exits 1 when
    something needs fixing, and says what to do."""
    from memspace.doctor import run_checks

    try:
        settings = Settings()
    except ValueError as exc:
        typer.echo(f"FIX  configuration: {exc}", err=True)
        raise typer.Exit(1) from exc
    checks = run_checks(settings, call_model=model)
    for check in checks:
        typer.echo(check.line())
    if not all(c.ok for c in checks):
        raise typer.Exit(1)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
