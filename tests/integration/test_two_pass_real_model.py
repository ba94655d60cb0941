"""Two-pass extraction (MEMSPACE_EXTRACTION_PASSES=2) end to end: adds through the real local
model (tools/llm-local or MEMSPACE_TEST_LLM_API_BASE), the real litellm path, the real embedder
and an SQLite store.

The model path runs (`mode == "extracted"`: a flat fallback fails these tests). The facts call
sees no candidate; the migration fact shares "error tracking" with the Sentry memory, so it gets
a relation call of its own, and replaces exactly the Sentry memory (measured: 2 of 2 runs, and
the note that says the Sentry memory again replaced nothing in 2 of 2). The migration note does
not bring back the Sentry or Loki memory. Beyond that, assertions are invariants, never wording.
A few real calls (seconds to minutes on a loaded 2-core machine).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memspace.domain.models import Access, MemoryFilter
from memspace.domain.text import content_hash
from memspace.embeddings.local import LocalEmbedder
from memspace.services.access.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.llm_server import LLMEndpoint

pytestmark = [pytest.mark.llm, pytest.mark.model]

CALL_TIMEOUT_S = 600  # the first call may fill the server's prompt cache (tests/README.md)
SENTRY = "Error tracking uses Sentry."
LOKI = "Logs are shipped to Loki."


@pytest.fixture(scope="module")
def app(llm_endpoint: LLMEndpoint, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    data: Path = tmp_path_factory.mktemp("two-pass-real-model")
    settings = Settings(_env_file=None, data_dir=data, llm_model=llm_endpoint.model,  # type: ignore[call-arg]
                        llm_api_base=llm_endpoint.api_base, llm_api_key=llm_endpoint.api_key,
                        llm_timeout_s=CALL_TIMEOUT_S, extraction_passes=2)
    made = build(settings, embedder=LocalEmbedder())
    yield made
    made.close()


def seeded_space(app: Container) -> tuple[str, Principal, dict[str, str]]:
    slug = f"two-pass-{uuid.uuid4().hex[:8]}"
    space = app.admin.create_space(slug)
    agent = app.access.authenticate(app.admin.create_key("agent", {slug: Access.READWRITE}).raw)
    app.memories.add_many(agent, [SENTRY, LOKI], slug)  # seeded flat: no model call
    ids = {m.content: m.id for m in app.store.reads.list_memories(MemoryFilter(space.id), 10)}
    return slug, agent, ids


def test_the_migration_note_replaces_at_most_the_sentry_memory_and_restates_nothing(
        app: Container) -> None:
    slug, agent, ids = seeded_space(app)

    result = app.memories.add(agent, "We migrated error tracking from Sentry to Rollbar last week.",
                              slug, observed_at=datetime(2026, 5, 14, 15, 20, tzinfo=UTC))

    said = f"mode {result.mode}, memories {[m.content for m in result.memories]}, " \
           f"superseded {result.superseded}, calls {result.usage.llm_calls}, " \
           f"warnings {result.warnings}"
    assert (result.status, result.mode) == ("created", "extracted") and result.memories, said
    # the facts call, then a relation call for the migration
    assert result.usage.llm_calls >= 2, said
    assert any("rollbar" in m.content.lower() for m in result.memories), said
    for memory in result.memories:
        assert memory.content_hash not in {content_hash(SENTRY), content_hash(LOKI)}, said
        assert "loki" not in memory.content.lower(), said
    assert result.superseded == [ids[SENTRY]], said


def test_a_note_that_says_a_memory_again_replaces_nothing(app: Container) -> None:
    slug, agent, ids = seeded_space(app)

    result = app.memories.add(agent, "Reminder: our error tracking is in Sentry.", slug)

    said = f"mode {result.mode}, memories {[m.content for m in result.memories]}, " \
           f"relations {result.relations}, warnings {result.warnings}"
    assert result.status in ("created", "duplicate") and result.mode == "extracted", said
    assert result.superseded == [], said
    space = app.store.directory.get_space_by_slug(slug)
    assert space is not None
    for memory_id in ids.values():
        kept = app.store.reads.get_memory(space.id, memory_id)
        assert kept is not None and kept.active, said
