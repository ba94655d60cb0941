"""`memspace stdio` (MCP for clients that launch their memory as a command) and
`memspace hook session-start|prompt-recall` (Claude Code hooks). docs/clients.md shows how
each editor and agent is configured to use them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memspace.cli_common import fail
from memspace.config import Settings
from memspace.domain.errors import MemspaceError
from memspace.domain.toolsets import parse_toolsets
from memspace.wiring import missing_model

if TYPE_CHECKING:
    from memspace.hooks import HookSource

hook_app = typer.Typer(help="Claude Code hooks: recall from memspace without being asked.",
                       no_args_is_help=True)
SpaceOpt = Annotated[str, typer.Option("--space", "-s", help="Space slug.")]
UrlOpt = Annotated[str | None, typer.Option(
    "--url", help="A memspace server (e.g. https://memspace.example.com); the key is read from "
    "MEMSPACE_API_KEY. Omit to read the local store.")]


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


def _source(url: str | None, timeout: float) -> HookSource:
    from memspace.hooks import LocalSource, RemoteSource

    return RemoteSource(url, timeout) if url else LocalSource()


@hook_app.command("session-start")
def session_start(
    space: SpaceOpt,
    url: UrlOpt = None,
    timeout: Annotated[float, typer.Option(help="Seconds before giving up silently.")] = 5.0,
) -> None:
    """For SessionStart: print the space's latest handoff as the hook's additionalContext.
    Prints nothing and exits 0 on any failure."""
    from memspace.hooks import run_hook
    from memspace.hooks import session_start as work

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
    from memspace.hooks import prompt_recall as work
    from memspace.hooks import run_hook

    run_hook(lambda: _source(url, timeout),
             lambda source, payload: work(source, space, payload, limit), timeout,
             needs_payload=True)
