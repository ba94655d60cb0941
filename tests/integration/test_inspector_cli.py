"""memspace driven by a client this project did not write: the MCP Inspector CLI (npm
@modelcontextprotocol/inspector-cli, pinned in tools/inspector, installed by `make inspector`),
over stdio (`memspace stdio`) and over HTTP with a key. Missing, it skips; under CI=true it
fails."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memspace.domain.models import Access
from memspace.mcp.toolsets import DEFAULT
from memspace.services.access.access import AccessService
from memspace.services.memories.memories import AddRequest
from tests.conftest import skip_or_fail
from tests.support.server import running_server
from tests.support.stdio import open_store, store_env

pytestmark = pytest.mark.model

INSPECTOR = (Path(__file__).parents[2] / "tools" / "inspector" / "node_modules" / "@modelcontextprotocol"
             / "inspector-cli" / "build" / "cli.js")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if not INSPECTOR.exists() or shutil.which("node") is None:
        skip_or_fail(f"the MCP Inspector CLI is not installed at {INSPECTOR}: run `make inspector`")
    folder = tmp_path_factory.mktemp("inspector")
    app = open_store(folder)
    try:
        app.admin.create_space("team")
        app.memories.submit(AccessService.operator(),
                            AddRequest("The inspector_cli check runs in make test", "team"))
    finally:
        app.close()
    yield folder


def inspect(data_dir: Path, *method: str) -> Any:
    """One Inspector CLI call against `memspace stdio --space team`; its JSON answer."""
    env = store_env(data_dir)
    command = ["node", str(INSPECTOR), "--cli",
               *[arg for name, value in env.items() if value for arg in ("-e", f"{name}={value}")],
               sys.executable, "-m", "memspace.cli", "stdio", "--space", "team", *method]
    done = subprocess.run(command, capture_output=True, timeout=180, check=False,
                          env={"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(Path.home()),
                               **env})
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout)


def within_budget(tools: list[dict[str, Any]]) -> None:
    """The default list as this client received it: at most 12 tools in at most 16,000
    characters of compact JSON, no view."""
    names = [t["name"] for t in tools]
    assert names == list(DEFAULT)
    assert len(tools) <= 12 and len(json.dumps(tools, separators=(",", ":"))) <= 16_000
    assert {"search_memory", "add_memory", "get_context", "save_handoff"} <= set(names)


def test_the_inspector_lists_the_tools_and_resources(data_dir: Path) -> None:
    within_budget(inspect(data_dir, "--method", "tools/list")["tools"])
    resources = inspect(data_dir, "--method", "resources/list")["resources"]
    assert "memspace://profile" in {r["uri"] for r in resources}


def test_the_inspector_searches_adds_and_gets_the_prompt(data_dir: Path) -> None:
    found = inspect(data_dir, "--method", "tools/call", "--tool-name", "search_memory",
                    "--tool-arg", "keyword=inspector_cli")
    assert [r["content"] for r in found["structuredContent"]["results"]] == [
        "The inspector_cli check runs in make test"]
    added = inspect(data_dir, "--method", "tools/call", "--tool-name", "add_memory",
                    "--tool-arg", "content=Added through the Inspector CLI")
    assert added["structuredContent"]["status"] == "created"
    prompt = inspect(data_dir, "--method", "prompts/get", "--prompt-name", "context")
    assert "Added through the Inspector CLI" in prompt["messages"][0]["content"]["text"]


def test_the_inspector_sees_a_refusal_as_a_tool_error(data_dir: Path) -> None:
    refused = inspect(data_dir, "--method", "tools/call", "--tool-name", "search_memory",
                      "--tool-arg", "query=x", "space=no-such")
    assert refused["isError"] is True
    assert refused["structuredContent"]["code"] == "not_found"


def inspect_http(url: str, key: str, *method: str) -> Any:
    """One Inspector CLI call against the HTTP server at `url` with `key`; its JSON answer."""
    command = ["node", str(INSPECTOR), "--cli", f"{url}/mcp", "--transport", "http",
               "--header", f"Authorization: Bearer {key}", *method]
    done = subprocess.run(command, capture_output=True, timeout=180, check=False,
                          env={"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(Path.home())})
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout)


def test_over_http_a_key_gets_the_default_list_and_unlisted_tools_answer(data_dir: Path) -> None:
    app = open_store(data_dir)
    try:
        key = app.admin.create_key("inspector-http", {"team": Access.READWRITE}).raw
        with running_server(app) as url:
            within_budget(inspect_http(url, key, "--method", "tools/list")["tools"])
            me = inspect_http(url, key, "--method", "tools/call", "--tool-name", "whoAmI")
            assert me["structuredContent"]["grants"] == {"team": "readwrite"}
            found = inspect_http(url, key, "--method", "tools/call", "--tool-name",
                                 "search_memory", "--tool-arg", "keyword=inspector_cli")
            assert [r["content"] for r in found["structuredContent"]["results"]] == [
                "The inspector_cli check runs in make test"]
    finally:
        app.close()
