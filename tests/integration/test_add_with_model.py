"""add_memory with a model: the service, the real litellm path, a scripted OpenAI-compatible
server, and each real store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.models import Access, MemoryFilter
from memspace.present.json import add_json, memory_detail_json
from memspace.services.access.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.scripted_llm import Delay, Reply, ScriptedLLM, Status, refused_url
from tests.support.stores import STORE_PARAMS, make_store


def answer(*facts: tuple[str, list[tuple[int, str]]]) -> Reply:
    return Reply({"facts": [
        {"text": text, "category": "fact",
         "relations": [{"candidate": n, "type": kind, "reason": f"{kind} {n}"} for n, kind in rels]}
        for text, rels in facts]})


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


class Team:
    def __init__(self, app: Container, llm: ScriptedLLM) -> None:
        self.app, self.llm = app, llm
        self.slug = f"team-{uuid.uuid4().hex[:8]}"
        app.admin.create_space(self.slug)
        raw = app.admin.create_key("agent", {self.slug: Access.READWRITE}).raw
        self.agent: Principal = app.access.authenticate(raw)

    def active(self) -> list[str]:
        space = self.app.store.directory.get_space_by_slug(self.slug)
        assert space is not None
        return sorted(m.content for m in self.app.store.reads.list_memories(MemoryFilter(space.id), 50))

    def add(self, content: str, *steps: Reply | Status | Delay, **kw: object):  # type: ignore[no-untyped-def]
        self.llm.script(*steps)
        before = len(self.llm.requests)
        result = self.app.memories.add(self.agent, content, **kw)  # type: ignore[arg-type]
        result.calls = len(self.llm.requests) - before  # type: ignore[attr-defined]
        return result


@pytest.fixture(params=STORE_PARAMS)
def team(request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLLM) -> Iterator[Team]:
    # Generous: only test_a_model_that_does_not_answer_in_time… is about a timeout, and it sets
    # its own; a loaded machine may take seconds to answer even the scripted model.
    settings = Settings(_env_file=None, llm_model="openai/scripted",  # type: ignore[call-arg]
                        llm_api_base=llm.url, llm_api_key="test", llm_timeout_s=120)
    app = build(settings, store=make_store(request.param, request, tmp_path),
                embedder=HashEmbedder())
    yield Team(app, llm)
    app.close()


def test_one_call_splits_content_into_facts(team: Team) -> None:
    result = team.add("Ana leads mobile and the app ships biweekly",
                      answer(("Ana leads the mobile team", []),
                             ("The mobile app ships every two weeks", [])))
    assert (result.mode, result.calls) == ("extracted", 1)
    assert team.active() == ["Ana leads the mobile team", "The mobile app ships every two weeks"]
    assert add_json(result)["usage"] == {"llmCalls": 1, "promptTokens": 100, "completionTokens": 20}


def test_updates_deactivates_and_the_prompt_shows_numbered_candidates(team: Team) -> None:
    team.add("deploy window friday", answer(("The deploy window is Friday afternoon", [])))
    result = team.add("deploys move to thursday",
                      answer(("The deploy window is Thursday afternoon", [(0, "updates")])),
                      speaker="Ana")
    prompt = str(team.llm.requests[-1]["messages"])
    assert "The deploy window is Friday afternoon" in prompt and "Ana" in prompt
    assert len(result.superseded) == 1
    assert team.active() == ["The deploy window is Thursday afternoon"]


def test_extends_and_derives_keep_both_and_invented_numbers_are_dropped(team: Team) -> None:
    team.add("billing on postgres", answer(("Billing runs on Postgres", [])))
    result = team.add("postgres 16", answer(
        ("Billing Postgres is version 16", [(0, "extends"), (7, "updates")]),
        ("Billing needs Postgres 16 features", [(0, "derives")])))
    assert sorted(r.type.value for r in result.relations) == ["DERIVES", "EXTENDS"]
    assert result.superseded == [] and len(team.active()) == 3


def test_invalid_json_gets_one_retry(team: Team) -> None:
    result = team.add("retry me", Reply("this is not json"), answer(("Retried fact", [])))
    assert (result.mode, result.calls, result.usage.llm_calls) == ("extracted", 2, 2)
    assert team.active() == ["Retried fact"]


@pytest.mark.parametrize("steps, words", [
    ((Reply("nope"), Reply("still nope")), "no valid answer"),
    ((Reply("this is not json at all {"), Reply("still not json")), "no valid answer"),
    ((Status(429, retry_after=30),), "rate limited"),
    ((Status(503),), "503"),
])
def test_a_failing_model_stores_the_content_flat_and_says_why(
    team: Team, steps: tuple[Reply | Status | Delay, ...], words: str
) -> None:
    result = team.add("Keep this sentence whatever happens", *steps)
    assert result.mode == "flat" and team.active() == ["Keep this sentence whatever happens"]
    assert words in result.warnings[0].lower()


def test_a_model_that_does_not_answer_in_time_leaves_the_content_flat(team: Team) -> None:
    # The scripted model holds the answer until the module ends: past any timeout, however
    # slow the machine, so 1 s here cuts it off for certain.
    settings = Settings(_env_file=None, llm_model="openai/scripted",  # type: ignore[call-arg]
                        llm_api_base=team.llm.url, llm_api_key="test", llm_timeout_s=1)
    app = build(settings, store=team.app.store, embedder=HashEmbedder())
    team.llm.script(Delay(3600))
    result = app.memories.add(team.agent, "Keep this sentence whatever happens")
    assert result.mode == "flat" and team.active() == ["Keep this sentence whatever happens"]
    assert "timed out" in result.warnings[0].lower()


def test_a_refused_connection_stores_the_content_flat(team: Team, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, llm_model="openai/scripted",  # type: ignore[call-arg]
                        llm_api_base=refused_url(), llm_api_key="test", llm_timeout_s=120)
    app = build(settings, store=team.app.store, embedder=HashEmbedder())
    result = app.memories.add(team.agent, "Nobody is listening")
    assert result.mode == "flat" and "refused" in result.warnings[0]
    assert team.active() == ["Nobody is listening"]


def test_an_exact_repeat_makes_no_call(team: Team) -> None:
    team.add("standup 9:30", answer(("Standup is at 9:30", [])))
    again = team.add("Standup is at 9:30")
    assert again.status == "duplicate" and again.calls == 0


def test_a_note_saved_without_waiting_is_replaced_by_its_facts_on_every_store(team: Team) -> None:
    saved = team.add("Ana leads mobile and the app ships biweekly", wait=False)
    assert (saved.mode, saved.calls) == ("pending", 0)
    assert team.active() == ["Ana leads mobile and the app ships biweekly"]
    assert team.app.notes is not None
    [job] = [j for j in team.app.notes.pending() if j.memory_id == saved.memories[0].id]
    team.llm.script(answer(("Ana leads the mobile team", []), ("The mobile app ships every two weeks", [])))

    done = team.app.notes.process(job)

    assert (done.state.value, done.reason) == ("extracted", "replaced by 2 facts")
    assert team.active() == ["Ana leads the mobile team", "The mobile app ships every two weeks"]
    shown = memory_detail_json(team.app.memories.get(team.agent, job.memory_id))["memory"]
    assert shown["extraction"] == "extracted"
