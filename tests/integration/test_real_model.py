"""add_memory through a real language model (tools/llm-local or MEMSPACE_TEST_LLM_API_BASE), the
real litellm path and the real embedder. The assertions are invariants, never wording: a small
model may phrase, split and relate differently from run to run of its weights.

Each real call takes seconds on 2 cores (~10 s with the 1.5B once its system prompt is cached,
the first one up to minutes on a loaded machine), so this module makes six calls in all; the
quality figures come from bench/extraction_eval.py, not from here.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.bootstrap import Container, build
from memspace.config import Settings
from memspace.domain.models import Access, Memory, MemoryFilter, RelationType
from memspace.domain.notes import NoteJob, NoteState
from memspace.embeddings.local import LocalEmbedder
from memspace.present.json import add_json
from memspace.services.access import Principal
from tests.support.llm_server import LLMEndpoint

pytestmark = [pytest.mark.llm, pytest.mark.model]

# The first call fills the server's prompt cache with the ~1,650-token system prompt: up to
# ~3 minutes measured on the 2-core machine under a load average of 13; later calls ~10-30 s.
CALL_TIMEOUT_S = 600


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def app_for(endpoint: LLMEndpoint, embedder: LocalEmbedder, data: Path, timeout_s: float) -> Container:
    settings = Settings(_env_file=None, data_dir=data, llm_model=endpoint.model,  # type: ignore[call-arg]
                        llm_api_base=endpoint.api_base, llm_api_key=endpoint.api_key,
                        llm_timeout_s=timeout_s)
    return build(settings, embedder=embedder)


@pytest.fixture(scope="module")
def app(llm_endpoint: LLMEndpoint, embedder: LocalEmbedder,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    made = app_for(llm_endpoint, embedder, tmp_path_factory.mktemp("real-model"), CALL_TIMEOUT_S)
    yield made
    made.close()


class Space:
    """A fresh space, a writer, and facts seeded flat (bulk import: no model call)."""

    def __init__(self, app: Container, *seeded: str) -> None:
        self.app, self.slug = app, f"real-{uuid.uuid4().hex[:8]}"
        space = app.admin.create_space(self.slug)
        self.id = space.id
        self.agent: Principal = app.access.authenticate(
            app.admin.create_key("agent", {self.slug: Access.READWRITE}).raw)
        if seeded:
            app.memories.add_many(self.agent, list(seeded), self.slug)
        self.seeded = {m.content: m for m in self.memories(active_only=False)}

    def memories(self, active_only: bool = True) -> list[Memory]:
        return self.app.store.list_memories(MemoryFilter(self.id, include_inactive=not active_only), 100)

    def updates_edges_are_honoured(self) -> None:
        """Every UPDATES edge points at an inactive memory, replaced by the edge's source."""
        for memory in self.memories(active_only=False):
            for relation in self.app.store.relations_of(self.id, memory.id):
                if relation.type is RelationType.UPDATES and relation.source_id == memory.id:
                    old = self.app.store.get_memory(self.id, relation.target_id)
                    assert old is not None and not old.active, f"{old} is still active"


def test_a_compound_note_becomes_several_facts_in_one_call_with_real_token_counts(app: Container) -> None:
    space = Space(app)

    result = app.memories.add(space.agent, "We moved staging from Postgres 14 to 16 last week; Alice "
                              "owns the migration and the deadline is March 3.", space.slug)

    assert (result.status, result.mode, result.warnings) == ("created", "extracted", [])
    assert len(result.memories) >= 2, [m.content for m in result.memories]
    usage = add_json(result)["usage"]
    # Constrained decoding (response_format → grammar) makes the first answer valid: one call.
    assert usage["llmCalls"] == 1
    assert usage["promptTokens"] > 1_000  # the extract_facts prompt alone is ~1,650 tokens
    assert usage["completionTokens"] > 10


def test_a_correction_leaves_exactly_one_active_head(app: Container) -> None:
    space = Space(app, "The staging database runs Postgres 14.")
    old = space.seeded["The staging database runs Postgres 14."]

    result = app.memories.add(space.agent, "Correction: the staging database runs Postgres 16, not 14.",
                              space.slug)

    assert result.mode == "extracted"
    space.updates_edges_are_honoured()
    replacing = [r for r in result.relations if r.type is RelationType.UPDATES and r.target_id == old.id]
    current = app.store.get_memory(space.id, old.id)
    assert current is not None
    # Whether the model related the two or not, the chain has one active head: the old fact
    # alone, or exactly one new fact that replaced it.
    if replacing:
        assert not current.active and result.superseded == [old.id] and len(replacing) == 1
    else:
        assert current.active and result.superseded == []


@pytest.mark.parametrize("existing, content", [
    ("Production deploys happen on Thursdays.", "Prod deploys are on Thursdays."),
    ("The staging database runs Postgres 15.", "The production database runs Postgres 16."),
], ids=["restatement", "different-subject"])
def test_a_restatement_or_another_subject_deactivates_nothing(app: Container, existing: str,
                                                              content: str) -> None:
    space = Space(app, existing)

    result = app.memories.add(space.agent, content, space.slug)

    assert result.mode == "extracted" and result.superseded == []
    assert all(m.active for m in space.memories(active_only=False))
    space.updates_edges_are_honoured()


def test_a_note_saved_without_waiting_is_found_at_once_and_replaced_by_its_facts_in_the_background(
    app: Container,
) -> None:
    space = Space(app)
    text = "Bo owns the API gateway and the gateway deploys on Mondays."

    saved = app.memories.add(space.agent, text, space.slug, wait=False)

    assert (saved.mode, saved.usage.llm_calls) == ("pending", 0)
    note = saved.memories[0]
    assert [m.id for m in space.memories()] == [note.id]  # stored and active before any call
    assert app.notes is not None
    app.worker.start()
    try:
        job = wait_settled(app, space.id, note.id)
    finally:
        app.worker.stop(timeout_s=CALL_TIMEOUT_S)
    after = app.store.get_memory(space.id, note.id)
    assert after is not None
    if job.state is NoteState.EXTRACTED and not after.active:  # replaced: history kept
        facts = space.memories()
        assert facts and all(m.id != note.id for m in facts)
        links = app.store.relations_of(space.id, note.id)
        assert {r.source_id for r in links if r.type is RelationType.DERIVES} == {m.id for m in facts}
    else:  # one fact as saved, or flat with the reason: the note stays what it was
        assert after.active and job.reason
    space.updates_edges_are_honoured()


def wait_settled(app: Container, space_id: str, memory_id: str) -> NoteJob:
    """Poll until the worker settles the note; the bound only guards against a hang."""
    assert app.notes is not None
    deadline = time.monotonic() + CALL_TIMEOUT_S
    while True:
        job = app.notes.states(space_id, [memory_id])[memory_id]
        if job.state is not NoteState.PENDING:
            return job
        assert time.monotonic() < deadline, f"note still pending after {CALL_TIMEOUT_S} s"
        time.sleep(0.2)


def test_a_timeout_stores_the_note_flat_with_a_warning(llm_endpoint: LLMEndpoint, embedder: LocalEmbedder,
                                                      tmp_path: Path) -> None:
    # 0.2 s is far below any real call here (~10 s): the request is cut off and llama.cpp
    # cancels it when the connection closes, so later calls do not wait behind it.
    impatient = app_for(llm_endpoint, embedder, tmp_path, timeout_s=0.2)
    try:
        space = Space(impatient)
        result = impatient.memories.add(space.agent, "Ana leads mobile and the app ships biweekly.",
                                        space.slug)
    finally:
        impatient.close()

    assert (result.status, result.mode) == ("created", "flat")
    assert [m.content for m in result.memories] == ["Ana leads mobile and the app ships biweekly."]
    assert "timed out" in result.warnings[0]
