"""The consolidation pass with the real local model (tools/llm-local or
MEMSPACE_TEST_LLM_API_BASE) on each store: what must hold whatever a small model answers. A
look-alike about another cluster is never retired, nothing of the space is retired but what a
newer memory replaced or restated, a protected memory is never retired without the queue, the
pass reports the calls and tokens it spent, and its undo puts back all it changed. What the
model gets right is measured by bench/consolidation_eval.py, not asserted here (a small model's
answers vary between runs)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.consolidation import CONSOLIDATOR, ChangeKind
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Access, Memory, MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.embeddings.local import LocalEmbedder
from memspace.services.access import Principal
from memspace.services.memories import AddRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support import builders as b
from tests.support.llm_server import LLMEndpoint
from tests.support.stores import STORE_PARAMS, make_store

pytestmark = [pytest.mark.llm, pytest.mark.model]

CALL_TIMEOUT_S = 600  # the first call fills the server's prompt cache (test_real_model.py)


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture(params=STORE_PARAMS)
def app(request: pytest.FixtureRequest, tmp_path: Path, llm_endpoint: LLMEndpoint,
        embedder: LocalEmbedder) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path, consolidate_every="0",  # type: ignore[call-arg]
                        llm_model=llm_endpoint.model, llm_api_base=llm_endpoint.api_base,
                        llm_api_key=llm_endpoint.api_key, llm_timeout_s=CALL_TIMEOUT_S)
    made = build(settings, store=make_store(request.param, request, tmp_path), embedder=embedder)
    yield made
    made.close()


class Team:
    def __init__(self, app: Container) -> None:
        self.app, self.slug = app, f"real-{uuid.uuid4().hex[:8]}"
        self.id = app.admin.create_space(self.slug).id
        self.agent: Principal = app.access.authenticate(
            app.admin.create_key("agent", {self.slug: Access.READWRITE}).raw)

    def saved(self, text: str, kind: str | None = None) -> set[str]:
        """Add through the model; the ids of what the add left current for it."""
        result = self.app.memories.submit(self.agent, AddRequest(
            text, space=self.slug, memory_type=kind, force=True))
        assert result.status in ("created", "duplicate", "updated"), result
        return {m.id for m in result.memories}

    def current(self) -> dict[str, Memory]:
        return {m.id: m for m in self.app.store.reads.list_memories(MemoryFilter(self.id), 100)}


def test_a_pass_with_the_real_model_never_retires_a_lookalike_or_a_protected_memory(
        app: Container) -> None:
    team = Team(app)
    old = team.saved("The staging cluster runs in the eu-west-1 region.")
    lookalike = team.saved("The production cluster runs in the eu-west-1 region.")
    decision = team.saved("We decided to keep all customer data in the EU.", "decision")
    new = team.saved("The staging cluster was moved to the us-east-2 region.")
    before = team.current()

    report = app.consolidation.consolidate(team.slug)

    after = team.current()
    assert lookalike <= set(after) and decision <= set(after)
    retired = set(before) - set(after)
    assert retired <= old, (retired, report.changes)
    for memory_id in retired:  # what went, went as a supersession by the newer, with history
        gone = app.store.reads.get_memory(team.id, memory_id)
        assert gone is not None and gone.status is MemoryStatus.SUPERSEDED
        assert gone.invalidated_by in new, (gone.content, team.current(), report.changes)
        marks = app.store.marks.marks_of(team.id, [memory_id])
        assert any(m.by == CONSOLIDATOR and report.pass_id in (m.reason or "") for m in marks)
    assert report.cost.memories_read >= len(before)
    if report.cost.groups:
        assert report.cost.model_calls >= 1 and report.cost.prompt_tokens > 500
    assert all(c.kind is not ChangeKind.EXTRACTION for c in report.changes)  # none was flat


def test_undo_of_a_pass_with_the_real_model_puts_back_what_it_changed_and_no_pass_redoes_it(
        app: Container, embedder: LocalEmbedder) -> None:
    team = Team(app)
    for text in ("Our shared UI components are in the lumen-ui repo.",
                 "Releases go out every Tuesday.", "Releases now go out every Thursday."):
        team.saved(text)
    # The same sentence twice, as two agents saved it: folded whatever the model says.
    twice = [b.memory(team.id, text, embedding=embedder.embed([text])[0]) for text in
             ("The design system lives in the lumen-ui repository.",
              "the design system lives in the lumen-ui repository")]
    app.store.writes.write(WriteBatch(team.id, twice))
    before = team.current()
    edges = {(r.source_id, r.target_id, r.type)
             for r in app.store.relations.relations_among(team.id, list(before))}

    report = app.consolidation.consolidate(team.slug)
    assert report.count(ChangeKind.RESTATEMENT) >= 1 and report.pass_id is not None
    changed = {(c.kept, r) for c in report.changes for r in c.retired}
    undone = app.consolidation.undo(team.slug, report.pass_id, "checked by a person")

    after = team.current()
    assert set(after) == set(before) and not undone.skipped
    assert all(m.status is MemoryStatus.CURRENT for m in after.values())
    assert {(r.source_id, r.target_id, r.type)
            for r in app.store.relations.relations_among(team.id, list(after))} == edges
    later = app.consolidation.consolidate(team.slug)
    assert not changed & {(c.kept, r) for c in later.changes for r in c.retired}
    assert set(before) >= set(team.current())
