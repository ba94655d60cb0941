"""add_memory over MCP with a model (docs/contract.md): by default the note is saved at once and the
server's worker replaces it by its facts; `wait: true` answers with the facts. A scripted
OpenAI-compatible server stands in for the model (the real one: tests/integration/test_real_model.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memspace.domain.models import Access
from memspace.embeddings.local import LocalEmbedder
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.scripted_llm import Reply, ScriptedLLM
from tests.support.server import data, mcp_client, running_server

pytestmark = [pytest.mark.e2e, pytest.mark.model]


def answer(*texts: str) -> Reply:
    return Reply({"facts": [{"text": t, "category": "fact", "relations": []} for t in texts]})


@pytest.fixture
def served(embedder: LocalEmbedder, tmp_path: Path) -> Iterator[tuple[str, str, ScriptedLLM]]:
    with ScriptedLLM() as llm:
        settings = Settings(_env_file=None, data_dir=tmp_path, llm_model="openai/scripted",  # type: ignore[call-arg]
                            llm_api_base=llm.url, llm_api_key="test", llm_timeout_s=10)
        app = build(settings, embedder=embedder)
        app.admin.create_space("team")
        key = app.admin.create_key("agent", {"team": Access.READWRITE}).raw
        with running_server(app) as url:
            yield url, key, llm
        app.close()


async def settled(client: Any, memory_id: str, bound_s: float = 60.0) -> dict[str, Any]:
    """Poll getMemory until the note is no longer pending; the bound only guards against a hang."""
    deadline = time.monotonic() + bound_s
    while True:
        shown = data(await client.call_tool("getMemory", {"memoryId": memory_id}))
        if shown["memory"]["extraction"] != "pending":
            return shown
        assert time.monotonic() < deadline, f"still pending after {bound_s} s"
        await asyncio.sleep(0.05)


async def test_a_note_is_saved_at_once_and_replaced_by_its_facts_in_the_background(
    served: tuple[str, str, ScriptedLLM],
) -> None:
    url, key, llm = served
    llm.script(answer("Ana leads the mobile team", "The mobile app ships every two weeks"))
    async with mcp_client(url, key) as client:
        saved = data(await client.call_tool("add_memory", {
            "content": "Ana leads mobile and the app ships every two weeks"}))
        assert (saved["mode"], saved["memories"][0]["status"]) == ("pending", "pending")
        note = saved["memories"][0]["id"]

        shown = await settled(client, note)

        assert (shown["memory"]["extraction"], shown["memory"]["active"]) == ("extracted", False)
        assert shown["memory"]["status"] == "superseded"
        assert shown["memory"]["extractionReason"] == "replaced by 2 facts"
        found = data(await client.call_tool("search_memory", {"query": "who leads mobile?"}))
        assert found["results"][0]["content"] == "Ana leads the mobile team"


async def test_wait_true_answers_with_the_facts(served: tuple[str, str, ScriptedLLM]) -> None:
    url, key, llm = served
    llm.script(answer("Bo owns the API gateway", "The gateway deploys on Mondays"))
    async with mcp_client(url, key) as client:
        saved = data(await client.call_tool("add_memory", {
            "content": "Bo owns the gateway, which deploys on Mondays", "wait": True}))
    assert saved["mode"] == "extracted"
    assert sorted(m["content"] for m in saved["memories"]) == ["Bo owns the API gateway",
                                                               "The gateway deploys on Mondays"]
    assert len(llm.requests) == 1
