"""What every `memspace …` command shares: the container it opens, how it prints, and the one
place a domain error becomes `error: …` on stderr and exit status 1."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, NoReturn, ParamSpec

import typer

from memspace.domain.errors import MemspaceError, SpaceNotFound
from memspace.domain.indexing import IndexProgress, index_progress
from memspace.services.access import AccessService
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings

# The options several verbs share, spelled once.
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
SpaceOpt = Annotated[str, typer.Option("--space", "-s", help="Space slug.")]
CiteOpt = Annotated[list[str] | None, typer.Option(
    "--evidence", "-e", help="A citation (repeat): <repo>/<path>:<line>[#symbol], commit:<sha>, "
    "cmd:<command>, or an https:// URL.")]
EvidenceOpt = Annotated[str | None, typer.Option(
    "--evidence", help="Evidence policy: optional (default) or required (writes must cite).")]
P = ParamSpec("P")

# Containers opened by the running command; `command` closes them when it returns or fails.
_opened: list[Container] = []


def open_container(settings: Settings | None = None) -> Container:
    """The services on the store Settings names (closed by `command` after the command)."""
    try:
        container = build(settings or Settings())
    except MemspaceError as exc:
        fail(exc)
    except ValueError as exc:  # settings validation
        typer.echo(f"error: configuration: {exc}", err=True)
        raise typer.Exit(2) from exc
    _opened.append(container)
    return container


def fail(exc: MemspaceError) -> NoReturn:
    typer.echo(f"error: {cli_message(exc)}", err=True)
    raise typer.Exit(1) from exc


# The services speak to models and name MCP tools; a terminal user is told the verb or flag
# that does the same here. Longest names first, so no name is rewritten inside another.
CLI_NAMES = {
    "list_conflicts": "`memspace conflicts list`",
    "resolve_conflict": "`memspace conflicts resolve`",
    "correct_memory": "`memspace correct`",
    "add_memory": "`memspace add`",
    "search_memory": "`memspace search`",
    "getMemory": "`memspace search`",
    "listMemories": "`memspace list`",
    "listDocuments": "`memspace document list`",
    "get_context": "`memspace context`",
    "mark_memory": "`memspace mark`",
    "listSpaces": "`memspace space list`",
    "expectedVersion": "--expected-version",
}
NO_SPACE = ("no space given: pass --space SLUG (`memspace space list` shows the spaces, "
            "`memspace space create SLUG` makes one)")


def cli_message(exc: MemspaceError) -> str:
    """The error in a terminal's words: the services name MCP tools where a verb exists here."""
    if isinstance(exc, SpaceNotFound):
        return (f"space '{exc.slug}' not found (with --key: or not granted to that key); "
                f"`memspace space list` shows every space, `memspace space create {exc.slug}` "
                "makes it")
    if exc.message.startswith("no space given"):  # the operator has no active or default space
        return NO_SPACE
    return cli_words(exc.message)


def cli_words(text: str) -> str:
    """`text` with each MCP tool name it gives replaced by the CLI verb or flag doing the same."""
    for tool, verb in CLI_NAMES.items():
        text = re.sub(rf"`?\b{tool}\b`?", verb, text)
    # "with getMemory or search_memory" would otherwise name one verb twice
    return re.sub(r"(`[^`]+`)( or \1)+", r"\1", text)


def indexes_after_import(container: Container, space: str | None) -> IndexProgress | None:
    """What an import leaves the store's indexes doing (None on a store that builds none
    in the background): its last line says so. A space the import made large gets its own
    vector index first (Neo4j), here, rather than from its first cold search on, beside the
    searches that follow the import (docs/scaling.md, "A fresh load")."""

    def starting(memories: int) -> None:
        typer.echo(f"Building the vector index of '{space}' ({memories:,} memories; Neo4j "
                   "takes a few minutes per 100,000)...", err=True)

    if space is not None:  # None: the import wrote nothing
        container.search.prepare(AccessService.operator(), space, starting)
    return index_progress(container.store)


def indexes_line(progress: IndexProgress) -> str:
    if progress.done:
        return f"Indexes: {progress.describe()}."
    return (f"Indexes: {progress.describe()}; `memspace doctor` and /readyz show their "
            "progress.")


def emit(data: Any, as_json: bool, text: str) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else text)


def command(fn: Callable[P, None]) -> Callable[P, None]:
    """A command whose domain errors print `error: <what to do>` and exit 1, and whose
    container is closed however it ends. Typer reads the wrapped function's parameters."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            fn(*args, **kwargs)
        except MemspaceError as exc:
            fail(exc)
        finally:
            while _opened:
                _opened.pop().close()

    return run


# `memspace serve` writes the origin it serves at here (data folder), so a login link printed by
# another process names the port `serve --port` chose rather than the default.
SERVED_ORIGIN_FILE = "served-origin"


def record_served_origin(settings: Settings) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    (settings.data_dir / SERVED_ORIGIN_FILE).write_text(settings.public_origin, encoding="utf-8")


def link_origin(settings: Settings, url: str | None) -> str:
    """Where a printed link points: --url, else MEMSPACE_PUBLIC_URL, else the origin the last
    `memspace serve` on this data folder recorded, else host and port from the settings."""
    if url:
        return url.rstrip("/")
    if settings.public_url:
        return settings.public_url
    served = settings.data_dir / SERVED_ORIGIN_FILE
    if served.is_file():
        return served.read_text(encoding="utf-8").strip() or settings.public_origin
    return settings.public_origin
