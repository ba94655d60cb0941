"""Run the real app with uvicorn on 127.0.0.1 in a background thread, and talk MCP to it."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import uvicorn
from mcp import Client
from mcp.client import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp_types import CallToolResult

from memspace.startup.app import create_app
from memspace.startup.container import Container

# What a host that renders MCP Apps declares (the extension, with the view MIME type).
APPS_CAPABILITY = advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bound_socket() -> socket.socket:
    """A free port on 127.0.0.1, held bound until the server listens on it: with `free_port`
    another process can take the port between the check and uvicorn's bind."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


@contextlib.contextmanager
def running_server(container: Container, port: int | None = None,
                   sock: socket.socket | None = None) -> Iterator[str]:
    """Serve `container` over HTTP; yields the base URL (http://127.0.0.1:PORT). Pass `sock`
    (from `bound_socket`) when Settings must name the port before the server starts."""
    if sock is None and port is None:
        sock = bound_socket()
    if sock is not None:
        port = int(sock.getsockname()[1])
    config = uvicorn.Config(create_app(container, warm_up=False), host="127.0.0.1", port=port or 0,
                            log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]} if sock else {},
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.asynccontextmanager
async def mcp_client(base_url: str, key: str | None, header: str = "bearer", *,
                     apps: bool = False, mode: str = "auto",
                     toolsets: str | None = None) -> AsyncIterator[Client]:
    """An mcp 2.x Client over streamable HTTP presenting `key` as a Bearer token or X-Api-Key.
    `apps`: declare MCP Apps support, as a host that draws views does; `mode`: "legacy" speaks
    the handshake-era protocol (initialize first), as most clients still do; `toolsets`: asked
    for in the URL (`/mcp?toolsets=`)."""
    headers = {}
    if key is not None:
        headers = {"Authorization": f"Bearer {key}"} if header == "bearer" else {"X-Api-Key": key}
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    url = f"{base_url}/mcp" + (f"?toolsets={toolsets}" if toolsets is not None else "")
    extensions = [APPS_CAPABILITY] if apps else None
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode,  # type: ignore[arg-type]
                            extensions=extensions) as client:
        yield client


def data(result: CallToolResult) -> Any:
    """structuredContent of a successful call (fails loudly with the error text otherwise)."""
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error, f"expected an error, got {result.structured_content}"
    return str(result.content[0].text)  # type: ignore[union-attr]
