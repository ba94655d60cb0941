"""An agent's session over MCP/HTTP, per store: get_context first, handoffs between keys,
versioned corrections, similar memories on save, coded errors, search without the embedder."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx2
import pytest

from memspace.domain.embedder import Calibration
from memspace.domain.errors import Unavailable
from memspace.domain.models import Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.embeddings.local import LocalEmbedder
from memspace.llm.tokens import TokenCounter
from memspace.mcp.errors import CODES
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.e2e.conftest import Deployment
from tests.support.server import data, mcp_client, running_server
from tests.support.stores import PATIENT_SETTINGS

pytestmark = [pytest.mark.e2e, pytest.mark.model]

COUNT = TokenCounter().count


def failure(result) -> dict:  # type: ignore[no-untyped-def]
    """structuredContent of a failed call, checked to carry a code of the closed set."""
    assert result.is_error, f"expected an error, got {result.structured_content}"
    err = result.structured_content
    assert err["code"] in CODES and err["message"], err
    assert result.content[0].text.startswith(f"{err['code']}: ")
    return dict(err)


def _conflict(deployment: Deployment, slug: str, new_id: str, old_id: str) -> None:
    """Two active heads of one chain: an UPDATES edge written without superseding."""
    space = deployment.app.store.directory.get_space_by_slug(slug)
    assert space is not None
    new = deployment.app.store.reads.get_memory(space.id, new_id)
    assert new is not None
    deployment.app.store.writes.write(WriteBatch(space.id, [], [
        Relation(new_id, old_id, RelationType.UPDATES, new.created_at, "hand")]))


async def test_get_context_puts_the_conflicts_and_handoff_first_and_keeps_the_budget(
    deployment: Deployment,
) -> None:
    space = deployment.space("ctx-tool")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        for i in range(30):
            data(await client.call_tool("add_memory", {"space": space, "content": (
                f"Service number {i} is owned by team {i % 7} and deploys from the "
                f"{['main', 'release'][i % 2]} branch after review by the platform group")}))
        old = data(await client.call_tool("add_memory", {"space": space,
                                                         "content": "Support hours end at 17:00"}))
        new = data(await client.call_tool("add_memory", {"space": space,
                                                         "content": "Support hours end at 18:00"}))
        _conflict(deployment, space, new["memories"][0]["id"], old["memories"][0]["id"])
        saved = data(await client.call_tool("save_handoff", {
            "space": space, "agent": "planner", "topic": "on-call", "summary": "Rota drafted",
            "nextSteps": ["ask ops to confirm"], "links": ["docs/rota.md"]}))
        data(await client.call_tool("setActiveSpace", {"space": space}))

        lean = data(await client.call_tool("get_context", {"detail": "lean"}))
        text, meta = lean["context"], lean["meta"]
        assert meta["budget"] == 800 and meta["detail"] == "lean" and meta["space"] == space
        assert COUNT(text) == meta["spent"] <= 800
        assert meta["handoffId"] == saved["handoff"]["id"]
        # docs/lifecycle.md: conflicts first, then the handoff, then the notes
        order = [text.index(h) for h in ("## Unresolved conflicts", "## Latest handoff",
                                         "## Relevant notes")]
        assert order == sorted(order)
        assert "ask ops to confirm" in text and "docs/rota.md" in text

        small = data(await client.call_tool("get_context", {"detail": "deep", "maxTokens": 300}))
        assert small["meta"]["budget"] == 300 and COUNT(small["context"]) <= 300
        assert small["meta"]["omitted"] > 0 and small["meta"]["selected"] > 0
        listed = re.findall(r"\b[0-9a-f]{8,32}\b", small["context"].split("## Omitted")[1])
        # the text names each by its short id, `meta` by its whole one
        assert listed and all(any(whole.startswith(short) for whole in small["meta"]["omittedIds"])
                              for short in listed)

        # One implementation: the prompt and the tool give the same text for the same ask.
        tool = data(await client.call_tool("get_context", {"query": "support hours",
                                                           "maxTokens": 1500}))
        prompt = await client.get_prompt("context", {"query": "support hours", "maxTokens": "1500"})
        assert prompt.messages[0].content.text == tool["context"]  # type: ignore[union-attr]

        bad = failure(await client.call_tool("get_context", {"detail": "verbose"}))
        assert bad["code"] == "invalid_input" and bad["example"]["name"] == "get_context"


async def test_a_handoff_written_by_one_key_is_read_by_another(deployment: Deployment) -> None:
    space = deployment.space("handoff")
    writer = deployment.key("night-shift", {space: "rw"})
    reader = deployment.key("day-shift", {space: "r"})
    stranger = deployment.key("stranger", {deployment.space("elsewhere"): "rw"})
    async with mcp_client(deployment.url, writer) as client:
        first = data(await client.call_tool("save_handoff", {
            "space": space, "topic": "release 2.4", "summary": "Built the release branch",
            "done": ["branch cut", "changelog"], "nextSteps": ["tag v2.4.0"],
            "openQuestions": ["ship on Friday?"]}))["handoff"]
        assert first["agent"] == "night-shift" and first["createdBy"] == "night-shift"
        data(await client.call_tool("save_handoff", {
            "space": space, "agent": "docs-bot", "topic": "docs", "summary": "Docs half done"}))
    async with mcp_client(deployment.url, reader) as client:
        latest = data(await client.call_tool("latest_handoff", {"space": space}))
        assert latest["handoff"]["agent"] == "docs-bot"
        mine = await client.call_tool("latest_handoff", {"space": space, "topic": "Release 2.4"})
        assert data(mine)["handoff"] == first
        assert "tag v2.4.0" in mine.content[0].text and "ship on Friday?" in mine.content[0].text
        page = data(await client.call_tool("list_handoffs", {"space": space, "limit": 1}))
        assert [h["agent"] for h in page["handoffs"]] == ["docs-bot"] and page["nextCursor"]
        rest = data(await client.call_tool("list_handoffs", {"space": space,
                                                             "cursor": page["nextCursor"]}))
        assert [h["id"] for h in rest["handoffs"]] == [first["id"]] and rest["nextCursor"] is None
        refused = failure(await client.call_tool("save_handoff", {"space": space,
                                                                   "summary": "not mine"}))
        assert refused["code"] == "forbidden"
    async with mcp_client(deployment.url, stranger) as client:
        hidden = failure(await client.call_tool("latest_handoff", {"space": space}))
        assert hidden["code"] == "not_found"
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {reader}"}) as http:
        over_rest = (await http.get("/v1/handoffs/latest", params={"space": space})).json()
        assert over_rest["handoff"]["agent"] == "docs-bot"


async def test_a_stale_expected_version_is_refused_while_a_fresh_one_succeeds(
    deployment: Deployment,
) -> None:
    space = deployment.space("versions")
    key = deployment.key("editor", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        added = data(await client.call_tool("add_memory", {"space": space,
                                                           "content": "The API limit is 100/min"}))
        v1 = added["memories"][0]
        assert v1["version"] == 1
        hit = data(await client.call_tool("search_memory", {"space": space, "query": "API limit"}))
        assert hit["results"][0]["version"] == 1
        v2 = data(await client.call_tool("correct_memory", {
            "space": space, "memoryId": v1["id"], "content": "The API limit is 500/min",
            "expectedVersion": 1}))["memories"][0]
        assert v2["version"] == 2
        shown = data(await client.call_tool("getMemory", {"space": space, "memoryId": v2["id"]}))
        assert shown["memory"]["version"] == 2

        # A second agent still holding v1 tries to apply its own correction.
        stale = failure(await client.call_tool("correct_memory", {
            "space": space, "memoryId": v1["id"], "content": "The API limit is 200/min",
            "expectedVersion": 1}))
        assert stale["code"] == "stale_version"
        assert "you have v1, current is v2" in stale["message"] and v2["id"] in stale["message"]
        assert (stale["yourVersion"], stale["currentVersion"], stale["currentId"]) == (1, 2, v2["id"])
        v3 = data(await client.call_tool("correct_memory", {
            "space": space, "memoryId": v2["id"], "content": "The API limit is 200/min",
            "expectedVersion": 2}))["memories"][0]
        assert v3["version"] == 3

        late = failure(await client.call_tool("add_memory", {
            "space": space, "action": "forget", "memoryId": v3["id"], "expectedVersion": 2}))
        assert late["code"] == "stale_version" and "you have v2, current is v3" in late["message"]
        gone = data(await client.call_tool("add_memory", {
            "space": space, "action": "forget", "memoryId": v3["id"], "expectedVersion": 3,
            "reason": "limits moved to the gateway"}))
        assert gone["memory"]["version"] == 4 and not gone["memory"]["active"]
        # Without expectedVersion the old behaviour stays: a plain conflict.
        plain = failure(await client.call_tool("correct_memory", {
            "space": space, "memoryId": v2["id"], "content": "The API limit is 300/min"}))
        assert plain["code"] == "conflict"
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        fresh = (await http.post("/v1/memories", json={"space": space,
                                                       "content": "Backups run nightly"})).json()
        mid = fresh["memories"][0]["id"]
        ok = await http.post(f"/v1/memories/{mid}/correct", json={
            "space": space, "content": "Backups run hourly", "expectedVersion": 1})
        assert ok.status_code == 201 and ok.json()["memories"][0]["version"] == 2
        conflict = await http.post(f"/v1/memories/{mid}/correct", json={
            "space": space, "content": "Backups run weekly", "expectedVersion": 1})
        assert conflict.status_code == 409 and conflict.json()["error"] == "stale_version"
        assert "you have v1, current is v2" in conflict.json()["message"]


async def test_a_saved_memory_lists_the_similar_ones_it_may_replace(
    deployment: Deployment,
) -> None:
    space = deployment.space("similar")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        first = data(await client.call_tool("add_memory", {
            "space": space, "content": "Deploys happen on Tuesdays"}))
        assert first["similar"] == [] and first["reviewSuggested"] is False
        second = await client.call_tool("add_memory", {
            "space": space, "content": "Deploys happen on Thursdays from now on"})
        answer = data(second)
        assert answer["reviewSuggested"] is True
        [close] = answer["similar"]
        assert close["id"] == first["memories"][0]["id"] and close["similarity"] >= 0.45
        assert f"correct_memory with memoryId='{close['id']}'" in close["hint"]
        assert "correct_memory" in second.content[0].text
        other = data(await client.call_tool("add_memory", {
            "space": space, "content": "The company logo is dark blue"}))
        assert other["similar"] == [] and other["reviewSuggested"] is False


async def test_tool_errors_carry_a_code_and_say_what_to_do(deployment: Deployment) -> None:
    space = deployment.space("errors")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        nothing = failure(await client.call_tool("search_memory", {"space": space}))
        assert nothing["code"] == "invalid_input" and "query" in nothing["message"]
        assert nothing["example"] == {"name": "search_memory",
                                      "arguments": {"query": "how do we deploy to production?"}}
        shape = failure(await client.call_tool("correct_memory", {"space": space}))
        assert shape["code"] == "invalid_input" and "memoryId" in shape["message"]
        assert {"memoryId", "content"} <= set(shape["example"]["arguments"])
        placeholder = failure(await client.call_tool("getDocument", {"space": space}))
        assert placeholder["example"] == {"name": "getDocument", "arguments": {"documentId": "…"}}
        missing = failure(await client.call_tool("getMemory", {"space": space, "memoryId": "x"}))
        assert missing["code"] == "not_found"
        hidden = failure(await client.call_tool("listMemories", {"space": "no-such-space"}))
        assert hidden["code"] == "not_found"
        unknown = failure(await client.call_tool("no_such_tool", {}))
        assert unknown["code"] == "invalid_input"


class SwitchableEmbedder:
    """The real model, until `broken` is set: then it fails as an unreachable endpoint does."""

    def __init__(self, model: LocalEmbedder) -> None:
        self._model = model
        self.broken = False

    @property
    def dimensions(self) -> int:
        return self._model.dimensions

    @property
    def calibration(self) -> Calibration:
        return self._model.calibration

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.broken:
            raise Unavailable("embedding endpoint http://127.0.0.1:9/v1 refused the connection")
        return self._model.embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        if self.broken:
            raise Unavailable("embedding endpoint http://127.0.0.1:9/v1 refused the connection")
        return self._model.embed_queries(texts)


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def flaky(request: pytest.FixtureRequest, embedder: LocalEmbedder,
          tmp_path: Path) -> Iterator[tuple[str, SwitchableEmbedder, Deployment]]:
    switch = SwitchableEmbedder(embedder)
    if request.param == "sqlite":
        settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    else:
        settings = Settings(_env_file=None, store="neo4j",  # type: ignore[call-arg]
                            **PATIENT_SETTINGS,
                            neo4j_uri=request.getfixturevalue("neo4j_uri"), data_dir=tmp_path)
    app = build(settings, embedder=switch)
    with running_server(app) as url:
        yield url, switch, Deployment(url, app)
    app.close()


async def test_search_answers_with_keywords_when_the_embedder_is_down(
    flaky: tuple[str, SwitchableEmbedder, Deployment],
) -> None:
    url, switch, deployment = flaky
    space, empty = deployment.space("degrade"), deployment.space("empty")
    key = deployment.key("agent", {space: "rw", empty: "rw"})
    async with mcp_client(url, key) as client:
        for text in ("Incident reviews happen every Thursday", "The cafeteria opens at eight"):
            data(await client.call_tool("add_memory", {"space": space, "content": text}))
        switch.broken = True
        found = data(await client.call_tool("search_memory", {
            "space": space, "query": "when are incident reviews?"}))
        assert found["searchMode"].startswith("keyword (embedder unavailable: ")
        assert "refused the connection" in found["searchMode"]
        assert found["results"][0]["content"] == "Incident reviews happen every Thursday"
        context = data(await client.call_tool("get_context", {"space": space,
                                                              "query": "incident reviews"}))
        assert "embedder unavailable" in context["context"]
        switch.broken = False
        nothing = await client.call_tool("search_memory", {"space": empty, "query": "anything"})
        assert data(nothing)["message"] == f"no memories in {empty} yet: save what you learn with add_memory"
        assert f"no memories in {empty} yet" in nothing.content[0].text
