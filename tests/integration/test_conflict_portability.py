"""Open conflicts travel in an export and come back on either store (docs/conflicts.md): the
recorded kinds as `conflict` lines, a dispute and two current heads as the memories and edges
they are; an export made before the conflict lines still imports."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from memspace.domain.models import Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.services.access.access import AccessService
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.shared.clock import SystemClock
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.stores import make_store

OPERATOR = AccessService.operator()
KINDS = ["contradiction", "disputed", "suggested_update", "two_heads", "write_conflict"]


def app_on(kind: str, request: pytest.FixtureRequest, tmp_path: Path, role: str) -> Container:
    folder = tmp_path / f"{role}-{kind}"
    settings = Settings(_env_file=None, data_dir=folder)  # type: ignore[call-arg]
    return build(settings, store=make_store(kind, request, folder), embedder=HashEmbedder())


def populate(app: Container, slug: str) -> None:
    app.admin.create_space(slug)
    space = app.store.directory.get_space_by_slug(slug)
    assert space is not None
    add = lambda text: app.memories.add(OPERATOR, text, slug).memories[0]  # noqa: E731
    cache, redis = add("The cache keeps entries for ten minutes"), add("Redis runs on two hosts")
    closed, opened = add("The desk is closed on holidays"), add("The desk opens on holidays")
    claim = add("Sessions use opaque tokens")
    doubted, friday = add("Webhooks retry three times"), add("We ship on Fridays")
    record = ConflictRecorder(app.store.conflicts, SystemClock())
    record.suggested(space.id, redis, cache, 0.31, 0.4)
    record.contradiction(space.id, opened, closed, "open or closed?")
    proposal = app.memories.new_memory(space.id, "Sessions use JWTs", "general", "agent-b")
    record.refused(space.id, claim, proposal, 0.9)
    app.lifecycle.mark(OPERATOR, doubted.id, "disputed", "the dashboard says five", slug)
    thursday = add("We ship on Thursdays")
    app.store.writes.write(WriteBatch(space.id, [], [Relation(thursday.id, friday.id,
                                                       RelationType.UPDATES, thursday.created_at,
                                                       "agent-b", "moved")]))


def queue(app: Container, slug: str) -> list[tuple[str, tuple[str, ...], str | None]]:
    listed = app.conflicts.listing(OPERATOR, slug, 50).page.items
    return sorted((c.kind.value, tuple(m.content for m in c.memories),
                   c.proposal.content if c.proposal else None) for c in listed)


@pytest.mark.parametrize("source, target", [
    ("sqlite", "sqlite"),
    pytest.param("sqlite", "neo4j", marks=pytest.mark.neo4j),
    pytest.param("neo4j", "sqlite", marks=pytest.mark.neo4j),
])
def test_open_conflicts_travel_with_the_space(source: str, target: str,
                                              request: pytest.FixtureRequest,
                                              tmp_path: Path) -> None:
    origin, destination = (app_on(source, request, tmp_path, "origin"),
                           app_on(target, request, tmp_path, "destination"))
    try:
        slug = f"moving-{uuid.uuid4().hex[:8]}"
        populate(origin, slug)
        before = queue(origin, slug)
        assert [k for k, _, _ in before] == KINDS
        lines = [json.dumps(r) for r in origin.portability.export(OPERATOR, slug)]
        assert sum('"type": "conflict"' in line for line in lines) == 3

        report = destination.portability.import_space(OPERATOR, f"{slug}-copy", lines,
                                                      new_ids=True, create=True)
        assert report.conflicts == 3
        assert queue(destination, f"{slug}-copy") == before
        again = destination.portability.import_space(OPERATOR, f"{slug}-twice", lines,
                                                     new_ids=True, create=True)
        assert again.conflicts == 3  # another space: its own conflicts, ids of its own
        first, second = (destination.conflicts.listing(OPERATOR, s, 50).page.items
                         for s in (f"{slug}-copy", f"{slug}-twice"))
        assert not {c.id for c in first} & {c.id for c in second}

        older = [line for line in lines if '"type": "conflict"' not in line]
        report = destination.portability.import_space(OPERATOR, f"{slug}-old", older,
                                                      new_ids=True, create=True)
        assert report.conflicts == 0
        assert [k for k, _, _ in queue(destination, f"{slug}-old")] == ["disputed", "two_heads"]
    finally:
        origin.close()
        destination.close()
