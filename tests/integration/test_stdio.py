"""`memspace stdio` driven by the MCP Python SDK's stdio client, as an editor launches it: the
same tools, resources and prompt as the HTTP server; the operator without a key, exactly a
key's grants with one; nothing but protocol on stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memspace.domain.models import Access
from memspace.mcp.server import build_mcp_server
from memspace.mcp.toolsets import DEFAULT, FOLDED, TOOLSETS
from memspace.services.access.access import AccessService
from memspace.services.memories.memories import AddRequest
from tests.support.server import data, error_text
from tests.support.stdio import open_store, stdio_session, store_env

pytestmark = pytest.mark.model


@dataclass
class Seeded:
    data_dir: Path
    reader_key: str  # read-only on team
    writer_key: str  # read-write on team
    tool_names: set[str]  # what the HTTP server lists


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    data_dir = tmp_path_factory.mktemp("stdio")
    app = open_store(data_dir)
    try:
        app.admin.create_space("team")
        app.admin.create_space("other")
        operator = AccessService.operator()
        app.memories.submit(operator, AddRequest("Deploys need the release_gate flag set", "team"))
        app.memories.submit(operator, AddRequest("The other team's secret plan", "other"))
        app.handoffs.save(operator, "Stdio client wired up", "claude", "editors", ["config"],
                          ["write the hooks"], [], [], "team")
        reader = app.admin.create_key("reader", {"team": Access.READ}).raw
        writer = app.admin.create_key("writer", {"team": Access.READWRITE}, "team").raw
        names = {t.name for t in app_tools(app)}
    finally:
        app.close()
    yield Seeded(data_dir, reader, writer, names)


def app_tools(app):  # type: ignore[no-untyped-def]
    return build_mcp_server(app)._tool_manager.list_tools()


async def test_the_operator_lists_searches_adds_and_reads_resources_and_the_prompt(
        seeded: Seeded) -> None:
    async with stdio_session(seeded.data_dir, "--space", "team") as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed == list(DEFAULT)  # the default list, as over HTTP
        found = data(await client.call_tool("search_memory", {"keyword": "release_gate"}))
        assert [r["content"] for r in found["results"]] == ["Deploys need the release_gate flag set"]
        added = data(await client.call_tool("add_memory", {"content": "Stdio writes are durable"}))
        assert added["status"] == "created" and added["space"] == "team"
        again = data(await client.call_tool("search_memory", {"query": "are stdio writes durable?"}))
        assert again["results"][0]["content"] == "Stdio writes are durable"
        writer = again["results"][0]["who"]  # the writer as the text names it: a person
        assert writer.startswith("human: ") and "operator" in writer, writer
        other = data(await client.call_tool("search_memory", {"keyword": "plan", "space": "other"}))
        assert other["total"] == 1  # the operator reaches every space
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"memspace://profile", "memspace://spaces"} <= uris
        profile = json.loads((await client.read_resource("memspace://profile")).contents[0].text)  # type: ignore[union-attr]
        assert profile["slug"] == "team"
        prompt = await client.get_prompt("context", {"query": "deploys"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "Stdio client wired up" in text and "release_gate" in text


async def test_a_refusal_is_a_coded_tool_error(seeded: Seeded) -> None:
    async with stdio_session(seeded.data_dir, "--space", "team") as client:
        missing = await client.call_tool("search_memory", {"query": "x", "space": "no-such"})
        assert missing.structured_content["code"] == "not_found"  # type: ignore[index]
        empty = await client.call_tool("add_memory", {"content": "  "})
        assert empty.structured_content["code"] == "invalid_input"  # type: ignore[index]
        assert empty.structured_content["example"]["name"] == "add_memory"  # type: ignore[index]


async def test_a_key_has_exactly_its_grants_and_is_checked_on_every_call(seeded: Seeded) -> None:
    async with stdio_session(seeded.data_dir, "--key", seeded.reader_key, "--space", "team") as client:
        me = data(await client.call_tool("whoAmI", {}))
        assert me["name"] == "reader" and me["activeSpace"] == "team"
        found = data(await client.call_tool("search_memory", {"keyword": "release_gate"}))
        assert found["total"] == 1
        refused = await client.call_tool("add_memory", {"content": "A reader cannot write"})
        assert refused.structured_content["code"] == "forbidden"  # type: ignore[index]
        foreign = error_text(await client.call_tool("search_memory", {"query": "plan", "space": "other"}))
        missing = error_text(await client.call_tool("search_memory", {"query": "plan", "space": "nope"}))
        assert foreign.replace("other", "nope") == missing  # a foreign space reads like a missing one
        app = open_store(seeded.data_dir)
        try:
            app.admin.revoke_key("msk_" + seeded.reader_key.split("_")[1])
        finally:
            app.close()
        revoked = await client.call_tool("search_memory", {"keyword": "release_gate"})
        assert revoked.structured_content["code"] == "unauthenticated"  # type: ignore[index]


async def test_set_active_space_replaces_the_starting_space(seeded: Seeded) -> None:
    app = open_store(seeded.data_dir)
    try:
        app.admin.create_space("later")
        key = app.admin.create_key("switcher", {"team": Access.READWRITE,
                                                "later": Access.READWRITE}).raw
    finally:
        app.close()
    async with stdio_session(seeded.data_dir, "--key", key, "--space", "team") as client:
        assert data(await client.call_tool("whoAmI", {}))["activeSpace"] == "team"
        data(await client.call_tool("setActiveSpace", {"space": "later"}))
        added = data(await client.call_tool("add_memory", {"content": "Written after switching"}))
        assert added["space"] == "later"


@pytest.mark.parametrize("args, says", [
    (["--key", "msk_abcdefgh_" + "x" * 40], "unknown API key"),
    (["--key", "not-a-key"], "malformed API key"),
    (["--space", "no-such-space"], "space 'no-such-space' not found"),
])
def test_a_refused_key_or_space_fails_at_start_with_nothing_on_stdout(
        seeded: Seeded, args: list[str], says: str) -> None:
    done = subprocess.run([sys.executable, "-m", "memspace.cli", "stdio", *args], input=b"",
                          env=store_env(seeded.data_dir), capture_output=True, timeout=120,
                          check=False)
    assert done.returncode == 1
    assert done.stdout == b""
    assert says in done.stderr.decode()


# A child that prints while the store opens and during a tool call, through Python's stdout and
# straight to file descriptor 1, then serves as `memspace stdio` does.
NOISY = """
import os, sys
import memspace.mcp.stdio as stdio
import memspace.services.search.search as search
real_build, real_search = stdio.build, search.SearchService.search
def build(*args, **kwargs):
    print("STRAY print while opening"); os.write(1, b"STRAY fd write while opening\\n")
    return real_build(*args, **kwargs)
def noisy_search(self, *args, **kwargs):
    print("STRAY print in a tool"); os.write(1, b"STRAY fd write in a tool\\n")
    return real_search(self, *args, **kwargs)
stdio.build, search.SearchService.search = build, noisy_search
sys.argv = ["memspace", "stdio", "--space", "team"]
from memspace.cli.main import main
main()
"""


def test_stdout_carries_protocol_messages_only_even_when_code_prints(seeded: Seeded) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "search_memory", "arguments": {"keyword": "release_gate"}}},
    ]
    child = subprocess.Popen([sys.executable, "-c", NOISY], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=store_env(seeded.data_dir))
    assert child.stdin is not None and child.stdout is not None
    answers = []
    for message in messages:
        child.stdin.write((json.dumps(message) + "\n").encode())
        child.stdin.flush()
        if "id" in message:  # wait for its answer before the next request
            answers.append(json.loads(child.stdout.readline()))
    out, err = child.communicate(timeout=120)
    assert out == b""  # nothing after the answers either
    assert [a["id"] for a in answers] == [1, 2]
    assert all(a["jsonrpc"] == "2.0" and "result" in a for a in answers)
    assert "release_gate" in json.dumps(answers[1]["result"]["structuredContent"])
    for stray in ("print while opening", "fd write while opening", "print in a tool",
                  "fd write in a tool"):
        assert f"STRAY {stray}" in err.decode()  # the prints went to stderr, not lost


async def test_toolsets_and_views_are_listed_on_request_and_every_tool_answers(
        seeded: Seeded) -> None:
    every = set(DEFAULT).union(*TOOLSETS.values())
    async with stdio_session(seeded.data_dir, "--space", "team", "--toolsets", "all") as client:
        assert {t.name for t in (await client.list_tools()).tools} == every
    async with stdio_session(seeded.data_dir, "--key", seeded.writer_key, apps=True) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed - set(DEFAULT) == {n for n in seeded.tool_names if n.endswith("_ui")}
        # Neither listed here nor anywhere: still answered, with the key's rights.
        me = data(await client.call_tool("whoAmI", {}))
        assert me["grants"] == {"team": "readwrite"}
        assert set(FOLDED) & listed == set()
        assert data(await client.call_tool("getMemories", {"ids": ["unknown"]}))["missing"] == [
            "unknown"]


def test_an_unknown_toolset_stops_the_start_with_the_names(seeded: Seeded) -> None:
    done = subprocess.run([sys.executable, "-m", "memspace.cli", "stdio", "--toolsets", "histroy"],
                          env=store_env(seeded.data_dir), capture_output=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode != 0 and done.stdout == b""
    assert "unknown toolset 'histroy'" in done.stderr.decode() and "history" in done.stderr.decode()
