"""`memspace …`: run the server and administer spaces, keys and memories from a terminal.

The CLI acts as the local operator (every space, read-write) on the store that Settings
names, through the same services the MCP tools call.
"""

from __future__ import annotations

import errno
import inspect
import socket
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from typer import _click as click
from typer.core import TyperArgument, TyperOption

from memspace import (
    __version__,
    cli_admin,
    cli_clients,
    cli_code,
    cli_conflicts,
    cli_consolidate,
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
cli_admin.space_app.command("set")(cli_security.space_set)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memspace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """memspace: shared, graph-shaped memory for teams of AI agents."""


@command
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (MEMSPACE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(
        help="Port (MEMSPACE_PORT); 0: a free one, named below.")] = None,
    demo: Annotated[bool, typer.Option(
        "--demo", help="On an empty store, load the demo (seed/) and print its keys.")] = False,
    toolsets: Annotated[str | None, typer.Option(
        "--toolsets", help="MCP toolsets listed beyond the default tools, comma-separated, or "
        "all (MEMSPACE_TOOLSETS; docs/contract.md#toolsets).")] = None,
) -> None:
    """Run the HTTP server: MCP at /mcp, REST under /v1, docs at /docs."""
    import uvicorn

    from memspace.server import create_app

    overrides = {k: v for k, v in (("host", host), ("port", port or None), ("toolsets", toolsets))
                 if v is not None}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    # The data folder and the port are checked before anything loads or a demo key is printed:
    # a key shown by a server that then cannot start is a key lost.
    _require_writable(settings.data_dir)
    listening = _bind(settings.host, 0 if port == 0 else settings.port)
    try:
        settings = settings.model_copy(update={"port": int(listening.getsockname()[1])})
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
        uvicorn.Server(config).run(sockets=[listening])
    finally:  # an early exit (no model) leaves no socket open
        listening.close()


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so the port named at start is the one served (port 0:
    a free one). Exits 1 naming the port and how to choose another when it is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        other = 8001 if port == 8000 else 8000
        why = ("is already in use (another memspace or another server)"
               if exc.errno == errno.EADDRINUSE else f"cannot be served: {exc.strerror}")
        typer.echo(f"error: port {port} on {host} {why}; choose another with "
                   f"`memspace serve --port {other}` or MEMSPACE_PORT={other} "
                   f"(`MEMSPACE_PORT={other} make run`)", err=True)
        raise typer.Exit(1) from exc


def _require_writable(data_dir: Path) -> None:
    """Exits 1 naming the folder and MEMSPACE_DATA_DIR when the store's folder cannot be
    written."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=data_dir):
            pass
    except OSError as exc:
        typer.echo(f"error: the data folder {data_dir.resolve()} cannot be written "
                   f"({exc.strerror or exc}); set MEMSPACE_DATA_DIR to a folder this user can "
                   "write (`memspace doctor` shows the folder in use)", err=True)
        raise typer.Exit(1) from exc


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


# `memspace --help` lists the verbs in panels, in this order.
RUN, MEMORIES, FILES, ACCESS = "Run and connect", "Memories", "Documents and code", "Spaces and access"
for name, verb, panel in (
    ("serve", serve, RUN), ("stdio", cli_clients.stdio, RUN), ("doctor", doctor, RUN),
    ("seed", seed, RUN),
    ("add", cli_memories.add, MEMORIES), ("correct", cli_memories.correct, MEMORIES),
    ("search", cli_memories.search, MEMORIES),
    ("list", cli_memories.list_memories, MEMORIES), ("mark", cli_memories.mark, MEMORIES),
    ("rename-category", cli_memories.rename_category, MEMORIES),
    ("context", cli_workflow.context, MEMORIES),
    ("import", cli_admin.import_files, FILES), ("verify", cli_code.verify, FILES),
    ("mine-git", cli_code.mine_git, FILES),
    ("export", cli_admin.export_space, ACCESS), ("import-space", cli_admin.import_space, ACCESS),
    ("login-link", cli_oauth.login_link, ACCESS), ("scan", cli_security.scan, ACCESS),
    ("audit", cli_security.audit, ACCESS),
):
    app.command(name, rich_help_panel=panel)(verb)
for name, group, panel in (
    ("hook", cli_clients.hook_app, RUN),
    ("conflicts", cli_conflicts.conflicts_app, MEMORIES),
    ("consolidate", cli_consolidate.consolidate_app, MEMORIES),
    ("handoff", cli_workflow.handoff_app, MEMORIES),
    ("document", cli_admin.document_app, FILES), ("repo", cli_code.repo_app, FILES),
    ("space", cli_admin.space_app, ACCESS), ("key", cli_admin.key_app, ACCESS),
    ("oauth", cli_oauth.oauth_app, ACCESS),
):
    app.add_typer(group, name=name, rich_help_panel=panel)


def _one_line_summaries(group: typer.Typer) -> None:
    """Give every command a one-line summary for its group's listing: Typer's rich listing keeps
    the line breaks of a docstring's first paragraph, which break rows mid-sentence."""
    for info in group.registered_commands:
        text = info.help or inspect.getdoc(info.callback) or ""
        if info.short_help is None and text:
            info.short_help = " ".join(text.split("\n\n")[0].split())
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _one_line_summaries(sub.typer_instance)


_one_line_summaries(app)


PLAIN_TYPES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "bool": "BOOLEAN",
               "Path": "PATH", "datetime": "DATETIME", "int range": "INTEGER",
               "float range": "FLOAT"}


def _plain_type(param: TyperArgument | TyperOption, ctx: click.Context) -> str | None:
    """A parameter's type in help as click writes it (TEXT, INTEGER, PATH), none for a flag:
    Typer's own labels are Python annotations (`<str>`, `<list[str]>`, `<bool>`)."""
    if isinstance(param, TyperOption) and param.is_flag:
        return None
    label = param.display_type(ctx).strip("<>")
    if label.startswith("list[") and label.endswith("]"):  # a repeatable option: its help says so
        label = label[5:-1]
    if "|" in label:  # a choice: its values
        return f"[{label}]"
    return PLAIN_TYPES.get(label, label.upper())


# Every verb's help, wherever it is rendered from (`memspace … --help`, a test's runner).
TyperOption.display_type_rich = _plain_type  # type: ignore[method-assign,assignment]
TyperArgument.display_type_rich = _plain_type  # type: ignore[method-assign,assignment]


def main() -> None:
    app()


if __name__ == "__main__":
    main()
