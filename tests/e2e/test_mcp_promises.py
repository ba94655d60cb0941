"""Promises of the README over MCP with the real client over HTTP: idempotencyKey, each error
type's documented code, and the /mcp Host allow-list."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from memspace.domain.errors import MemspaceError
from memspace.domain.models import Access
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.e2e.conftest import Deployment
from tests.support.fakes import HashEmbedder
from tests.support.server import data, mcp_client, running_server
from tests.unit.test_mcp_errors import DOCUMENTED, Strange

pytestmark = [pytest.mark.e2e, pytest.mark.model]


async def test_a_retry_with_the_same_idempotency_key_returns_the_first_result(
    deployment: Deployment,
) -> None:
    space = deployment.space("idem")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        first = data(await client.call_tool("add_memory", {
            "content": "Deploys need two approvals", "idempotencyKey": "retry-1"}))
        # the retry of a call whose answer was lost: even with other text, nothing more is saved
        again = data(await client.call_tool("add_memory", {
            "content": "Deploys need three approvals", "idempotencyKey": "retry-1"}))
        assert first["status"] == "created" and "replayed" not in first
        assert again == {**first, "replayed": True}
        other = data(await client.call_tool("add_memory", {
            "content": "Deploys need three approvals", "idempotencyKey": "retry-2"}))
        assert other["status"] == "created"
        assert other["memories"][0]["id"] != first["memories"][0]["id"]
        listed = data(await client.call_tool("listMemories", {}))["memories"]
    assert sorted(m["content"] for m in listed) == ["Deploys need three approvals",
                                                   "Deploys need two approvals"]


@pytest.mark.parametrize("error, code", DOCUMENTED, ids=lambda v: type(v).__name__ if
                         isinstance(v, MemspaceError) else v)
async def test_each_error_type_reaches_the_caller_as_its_documented_code(
    deployment: Deployment, monkeypatch: pytest.MonkeyPatch, error: MemspaceError, code: str,
) -> None:
    space = deployment.space("codes")
    key = deployment.key("agent", {space: "rw"})

    def refuse(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(deployment.app.memories, "get", refuse)
    async with mcp_client(deployment.url, key) as client:
        answer = await client.call_tool("getMemory", {"memoryId": "m1"})
    assert answer.is_error
    assert answer.structured_content is not None
    assert (answer.structured_content["code"], answer.structured_content["message"]) == (
        code, error.message)
    assert answer.content[0].text.startswith(f"{code}: ")  # type: ignore[union-attr]


async def test_real_refusals_carry_their_codes(deployment: Deployment) -> None:
    space = deployment.space("refusals")
    writer, reader = deployment.key("w", {space: "rw"}), deployment.key("r", {space: "r"})
    async with mcp_client(deployment.url, writer) as client:
        saved = data(await client.call_tool("add_memory", {"content": "The cache is Redis 6"}))
        memory_id = saved["memories"][0]["id"]
        data(await client.call_tool("correct_memory", {"memoryId": memory_id, "expectedVersion": 1,
                                                       "content": "The cache is Redis 7"}))
        codes = {
            "invalid_input": await client.call_tool("add_memory", {"content": " "}),
            "not_found": await client.call_tool("getMemory", {"memoryId": "no-such-id"}),
            "stale_version": await client.call_tool("correct_memory", {
                "memoryId": memory_id, "expectedVersion": 1, "content": "The cache is Redis 8"}),
        }
    async with mcp_client(deployment.url, reader) as client:
        codes["forbidden"] = await client.call_tool("add_memory", {"content": "Read keys write"})
    for code, answer in codes.items():
        assert answer.is_error and answer.structured_content is not None, code
        assert answer.structured_content["code"] == code, answer.structured_content


async def test_an_error_type_outside_the_closed_set_is_logged_as_a_bug(
    deployment: Deployment, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    space = deployment.space("strange")
    key = deployment.key("agent", {space: "rw"})

    def refuse(*_: object, **__: object) -> None:
        raise Strange("a type nobody gave a code")

    monkeypatch.setattr(deployment.app.memories, "get", refuse)
    with caplog.at_level(logging.ERROR):
        async with mcp_client(deployment.url, key) as client:
            answer = await client.call_tool("getMemory", {"memoryId": "m1"})
    assert answer.is_error and answer.structured_content is not None
    # not passed off as the store being down: the server failed, and its log names the bug
    assert "failed on the server" in answer.structured_content["message"]
    crashes = [r.exc_info[1] for r in caplog.records
               if r.exc_info and r.exc_info[1] is not None and "getMemory" in r.getMessage()]
    assert crashes, [r.getMessage() for r in caplog.records]
    assert any("Strange has code 'strange'" in str(crash.__cause__) for crash in crashes)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server told one extra name (MEMSPACE_ALLOWED_HOSTS, as behind a proxy): (url, key)."""
    data_dir: Path = tmp_path_factory.mktemp("hosts")
    settings = Settings(_env_file=None, data_dir=data_dir,  # type: ignore[call-arg]
                        allowed_hosts=["memspace.example.com"])
    app = build(settings, embedder=HashEmbedder())
    slug = f"hosts-{uuid.uuid4().hex[:8]}"
    app.admin.create_space(slug)
    key = app.admin.create_key("agent", {slug: Access.READWRITE}).raw
    with running_server(app) as url:
        yield url, key
    app.close()


@pytest.mark.parametrize("host, allowed", [
    (None, True), ("localhost", True), ("memspace.example.com", True),
    ("memspace.example.com:443", True), ("evil.example", False), ("memspace.example.com.evil", False),
], ids=["as-dialled", "localhost", "allowed-extra", "allowed-extra-port", "foreign", "lookalike"])
async def test_mcp_refuses_a_host_it_was_not_told(proxied: tuple[str, str], host: str | None,
                                                  allowed: bool) -> None:
    url, key = proxied
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
    if host is not None:
        headers["Host"] = host
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        answer = await http.post(f"{url}/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}})
    if allowed:
        assert answer.status_code == 200, answer.text
    else:
        assert answer.status_code == 421, answer.text  # Misdirected Request: DNS rebinding
