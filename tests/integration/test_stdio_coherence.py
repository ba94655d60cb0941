"""Two `memspace stdio` processes and an HTTP server on one SQLite file, writing at once: what
each writes, the others find on their next search, and no caller sees "database is locked"
(or any error)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import anyio
import pytest

from memspace.domain.models import Access
from tests.support.server import mcp_client, running_server
from tests.support.stdio import open_store, stdio_session

pytestmark = pytest.mark.model

WRITES = 8  # per writer


def token(writer: str, n: int) -> str:
    """A word only this write holds, far from every other's (keyword search tolerates typos),
    so a keyword search finds exactly it."""
    return "k" + hashlib.sha256(f"{writer}-{n}".encode()).hexdigest()[:12]


async def write_all(client: Any, writer: str, texts: list[str]) -> None:
    for n in range(WRITES):
        result = await client.call_tool("add_memory", {
            "content": f"Writer {writer} wrote fact {n}: {token(writer, n)}", "space": "team"})
        texts.append(str(result.content[0].text))
        assert not result.is_error, result.content[0].text


async def found_by(client: Any, writer: str) -> int:
    """How many of `writer`'s memories `client` finds, one keyword search each."""
    hits = 0
    for n in range(WRITES):
        result = await client.call_tool("search_memory", {"keyword": token(writer, n),
                                                          "space": "team"})
        assert not result.is_error, result.content[0].text
        hits += result.structured_content["total"]  # type: ignore[index]
    return hits


async def test_two_stdio_processes_and_an_http_server_write_at_once_and_see_each_other(
        tmp_path: Path) -> None:
    app = open_store(tmp_path)
    app.admin.create_space("team")
    key = app.admin.create_key("web", {"team": Access.READWRITE}).raw
    texts: list[str] = []
    with running_server(app) as url, (tmp_path / "a.err").open("w") as err_a, \
            (tmp_path / "b.err").open("w") as err_b:
        async with stdio_session(tmp_path, "--space", "team", errlog=err_a) as a, \
                stdio_session(tmp_path, "--space", "team", errlog=err_b) as b, \
                mcp_client(url, key) as web:
            clients = {"a": a, "b": b, "web": web}
            # each has searched once (caches loaded) before the others write
            for client in clients.values():
                await found_by(client, "a")
            async with anyio.create_task_group() as group:
                for name, client in clients.items():
                    group.start_soon(write_all, client, name, texts)
            for reader in clients.values():
                for writer in clients:
                    assert await found_by(reader, writer) == WRITES
    app.close()
    logged = (tmp_path / "a.err").read_text() + (tmp_path / "b.err").read_text()
    assert "locked" not in logged.lower() and not any("locked" in t.lower() for t in texts)
    assert len(texts) == 3 * WRITES
