"""`memspace stdio`: the same MCP server (tools, resources, the `context` prompt) over a
process's stdin and stdout, for clients that launch their memory as a command.

stdout is the protocol's: nothing else may reach it. The store is opened with Python's
stdout and file descriptor 1 pointed at stderr, logs go to stderr, and while serving the
SDK's transport points descriptor 1 at stderr (so even a C library's stray write misses the
wire) while Python's stdout writes to the descriptor unbuffered.

Who is calling: without a key, the local operator (every space, like the other CLI verbs);
with `--key`, exactly that key, checked again on every request so revoking it takes effect
on the next call. `--space` is the active space until `setActiveSpace` chooses another.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import replace

import anyio

from memspace.mcp.identity import process_caller
from memspace.mcp.server import build_mcp_server
from memspace.mcp.toolsets import process_toolsets
from memspace.services.access import AccessService, Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings


class StdioCaller:
    """The principal of every request of one stdio process."""

    def __init__(self, access: AccessService, key: str | None, space: str | None) -> None:
        self._access = access
        self._key = key
        first = access.authenticate(key) if key else AccessService.operator()
        # The space is checked now, so a wrong --space fails at start, not on the first call.
        self._space_id = access.resolve(first, space).space.id if space else None
        self._chosen_at_start = first.active_space_id

    def __call__(self) -> Principal:
        if self._key is None:
            return replace(AccessService.operator(), active_space_id=self._space_id)
        principal = self._access.authenticate(self._key)
        if self._space_id is None or principal.active_space_id != self._chosen_at_start:
            return principal  # no --space, or setActiveSpace chose another since the start
        return replace(principal, active_space_id=self._space_id)


def open_for_stdio(settings: Settings, key: str | None, space: str | None,
                   ) -> tuple[Container, StdioCaller]:
    """The container and the caller, with anything printed while opening sent to stderr.

    Raises:
        MemspaceError: the store cannot be opened, the key is refused or the space unknown.
    """
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="memspace stdio: %(levelname)s %(name)s: %(message)s")
    with _stdout_to_stderr():
        container = build(settings)
        try:
            return container, StdioCaller(container.access, key, space)
        except BaseException:
            container.close()
            raise


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Python's stdout and file descriptor 1 both pointed at stderr for the duration (a C
    library writes to the descriptor, not to sys.stdout); the protocol's stdout afterwards."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def serve(container: Container, caller: StdioCaller,
          toolsets: tuple[str, ...] | None = None) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin; closes the container.
    `toolsets`: the ones listed beyond the default tools (None: the key's, else the server's)."""
    server = build_mcp_server(container)

    async def run() -> None:
        process_caller.set(caller)
        process_toolsets.set(toolsets)
        await server.run_stdio_async()

    # While serving, the SDK points descriptor 1 at stderr; a print buffered in sys.stdout
    # would still reach the protocol's stdout when flushed after it put the wire back. So
    # sys.stdout writes straight through to the descriptor, unbuffered, for the duration.
    sys.stdout.flush()
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  write_through=True)

    container.worker.start()  # documents and notes go on as they do under the HTTP server
    try:
        anyio.run(run)
    finally:
        with _stdout_to_stderr():  # the client may still be reading stdout
            container.worker.stop()
            container.close()
