"""Running and connecting: `memspace serve` (the HTTP server), `memspace stdio` (MCP for
clients that launch their memory as a command), `memspace doctor`, `memspace seed` and
`memspace hook session-start|prompt-recall` (Claude Code hooks). docs/clients.md shows how
each editor and agent is configured to use them."""

from __future__ import annotations

import errno
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memspace.cli import ingest
from memspace.cli.common import SpaceOpt, command, fail, open_container, record_served_origin
from memspace.cli.root import RUN, app
from memspace.domain.errors import MemspaceError
from memspace.domain.toolsets import parse_toolsets
from memspace.startup.adapters import describe, missing_model
from memspace.startup.settings import Settings

if TYPE_CHECKING:
    from memspace.cli.hooks import HookSource

hook_app = typer.Typer(help="Claude Code hooks: recall from memspace without being asked.",
                       no_args_is_help=True)
UrlOpt = Annotated[str | None, typer.Option(
    "--url", help="A memspace server (e.g. https://memspace.example.com); the key is read from "
    "MEMSPACE_API_KEY. Omit to read the local store.")]


@app.command("serve", rich_help_panel=RUN)
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

    from memspace.startup.app import create_app

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
            typer.echo(ingest.demo_text(ingest.load_demo(container)) + "\n")
        elif not container.admin.list_keys():
            typer.echo("No API keys yet. Create a space and a key:\n"
                       "    memspace space create my-team\n"
                       "    memspace key create --name my-agent --grant my-team:rw\n")
        record_served_origin(settings)
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


@app.command("stdio", rich_help_panel=RUN)
def stdio(
    space: Annotated[str | None, typer.Option(
        "--space", "-s", help="The active space (tools without `space` act on it).")] = None,
    key: Annotated[str | None, typer.Option(
        "--key", help="Act as this API key (msk_…), with exactly its grants. Omit to act as the "
        "local operator (every space), like the other CLI verbs.")] = None,
    toolsets: Annotated[str | None, typer.Option(
        "--toolsets", help="MCP toolsets listed beyond the default tools, comma-separated, or "
        "all (docs/contract.md#toolsets); every tool is callable by name either way.")] = None,
) -> None:
    """Serve MCP over stdin/stdout (tools, resources, the context prompt) on the configured
    store, for clients that launch a command: `claude mcp add memspace -- memspace stdio`."""
    from memspace.mcp.stdio import open_for_stdio, serve

    try:
        settings = Settings()
        listed = parse_toolsets(toolsets)
    except ValueError as exc:
        typer.echo(f"error: configuration: {exc}", err=True)
        raise typer.Exit(2) from exc
    except MemspaceError as exc:
        fail(exc)
    try:
        container, caller = open_for_stdio(settings, key, space)
    except MemspaceError as exc:
        fail(exc)
    except ValueError as exc:  # the store's model is another, a missing extra
        typer.echo(f"error: configuration: {exc}", err=True)
        raise typer.Exit(2) from exc
    if (problem := missing_model(container.embedder)) is not None:
        container.close()
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2)
    serve(container, caller, listed)


@app.command("doctor", rich_help_panel=RUN)
def doctor(
    model: Annotated[bool, typer.Option(
        "--model", help="Also make one small call to the configured model.")] = False,
) -> None:
    """Check the setup: store, data dir, embedding model, model, public URL, OAuth. Exits 1 when
    something needs fixing, and says what to do."""
    from memspace.cli.doctor import run_checks

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


@app.command("seed", rich_help_panel=RUN)
@command
def seed(
    directory: Annotated[Path | None, typer.Option(
        "--dir", help="A folder with demo.json and its documents (default: the bundled demo).",
        exists=True, file_okay=False)] = None,
) -> None:
    """Load the demo: two spaces, keys (printed once), memories with history, documents."""
    container = open_container()
    report = ingest.load_demo(container, directory)
    typer.echo(ingest.demo_text(report))


def _source(url: str | None, timeout: float) -> HookSource:
    from memspace.cli.hooks import LocalSource, RemoteSource

    return RemoteSource(url, timeout) if url else LocalSource()


@hook_app.command("session-start")
def session_start(
    space: SpaceOpt,
    url: UrlOpt = None,
    timeout: Annotated[float, typer.Option(help="Seconds before giving up silently.")] = 5.0,
) -> None:
    """For SessionStart: print the space's latest handoff as the hook's additionalContext.
    Prints nothing and exits 0 on any failure."""
    from memspace.cli.hooks import run_hook
    from memspace.cli.hooks import session_start as work

    run_hook(lambda: _source(url, timeout), lambda source, _: work(source, space), timeout,
             needs_payload=False)


@hook_app.command("prompt-recall")
def prompt_recall(
    space: SpaceOpt,
    url: UrlOpt = None,
    limit: Annotated[int, typer.Option(help="At most this many memories.", min=1, max=20)] = 5,
    timeout: Annotated[float, typer.Option(help="Seconds before giving up silently.")] = 3.0,
) -> None:
    """For UserPromptSubmit: read the hook's JSON from stdin, find memories that name the
    prompt's identifiers exactly (snake_case, camelCase, dotted names, paths, --flags) and
    print them as additionalContext. Prints nothing and exits 0 when none match or on any
    failure."""
    from memspace.cli.hooks import prompt_recall as work
    from memspace.cli.hooks import run_hook

    run_hook(lambda: _source(url, timeout),
             lambda source, payload: work(source, space, payload, limit), timeout,
             needs_payload=True)


app.add_typer(hook_app, name="hook", rich_help_panel=RUN)
