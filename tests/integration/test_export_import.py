"""Export a space and import it into the other store and back: ids, edges, flags, documents."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memspace.domain.errors import Conflict
from memspace.domain.models import RelationType
from memspace.domain.ports import WriteBatch
from memspace.present.json import search_json
from memspace.services.access.access import AccessService
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import make_store

OPERATOR = AccessService.operator()
NOTE = b"# Deploys\n\nDeploys need two approvals.\n\n## Rollback\n\nRollbacks need one.\n"


def app_on(kind: str, request: pytest.FixtureRequest, tmp_path: Path, role: str = "app") -> Container:
    folder = tmp_path / f"{role}-{kind}"  # two SQLite deployments get a folder each
    # every conversation feature on, so a turn's context travels too
    settings = Settings(_env_file=None, data_dir=folder,  # type: ignore[call-arg]
                        conversation_features="all")
    return build(settings, store=make_store(kind, request, folder), embedder=HashEmbedder())


def populate(app: Container, slug: str) -> None:
    app.admin.create_space(slug, "Exported", "A space with history")
    first = app.memories.add(OPERATOR, "CI runs on Jenkins", slug, "tooling").memories[0]
    second = app.memories.correct(OPERATOR, first.id, "CI runs on GitHub Actions", slug).memories[0]
    extra = app.memories.add(OPERATOR, "CI caches dependencies", slug).memories[0]
    gone = app.memories.add(OPERATOR, "Temporary wifi password is x", slug).memories[0]
    app.memories.forget(OPERATOR, gone.id, reason="secret", space=slug)
    said = datetime(2023, 5, 8, 13, 56, tzinfo=timezone(timedelta(hours=-7)))
    app.memories.add(OPERATOR, "Ana: Which runner do we use now?", slug, speaker="Ana",
                     observed_at=said)
    app.memories.add(OPERATOR, "Bo: The GitHub-hosted one.", slug, speaker="Bo",
                     observed_at=said)
    space = app.store.directory.get_space_by_slug(slug)
    assert space is not None
    app.store.writes.write(WriteBatch(space.id, [], [b.relation(extra, second, RelationType.EXTENDS)]))
    app.handoffs.save(OPERATOR, "Moved CI to GitHub Actions", "ci-bot", "ci", ["workflows"],
                      ["drop Jenkins"], ["keep the cache?"], [".github/workflows/ci.yml"], slug)
    uploaded = app.ingestion.upload(OPERATOR, "deploys.md", NOTE, slug, "Deploy rules")
    app.ingestion.process(uploaded.document)


def export(app: Container, slug: str) -> list[str]:
    return [json.dumps(r, ensure_ascii=False) for r in app.portability.export(OPERATOR, slug)]


@pytest.mark.parametrize("source, target", [
    ("sqlite", "sqlite"),  # a move between two deployments on the embedded store
    pytest.param("sqlite", "neo4j", marks=pytest.mark.neo4j),
    pytest.param("neo4j", "sqlite", marks=pytest.mark.neo4j),
])
def test_export_import_export_gives_the_same_file_across_stores(
    source: str, target: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    origin = app_on(source, request, tmp_path, "origin")
    destination = app_on(target, request, tmp_path, "destination")
    try:
        slug, copy = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
        populate(origin, slug)
        first = export(origin, slug)
        destination.admin.create_space(copy, "Exported", "A space with history")
        report = destination.portability.import_space(OPERATOR, copy, first)
        assert (report.documents, report.memories, report.relations) == (1, 8, 2)
        assert report.handoffs == 1
        assert export(destination, copy) == first
        records = [json.loads(line) for line in first]
        versions = {r["content"]: r["version"] for r in records if r["type"] == "memory"}
        assert versions["CI runs on GitHub Actions"] == 2  # a correction moves the fact on
        assert versions["Temporary wifi password is x"] == 2  # so does forgetting
        turns = {r["content"]: r for r in records if r["type"] == "memory" and r["speaker"]}
        question, answer = turns["Ana: Which runner do we use now?"], turns["Bo: The GitHub-hosted one."]
        assert question["observedAt"] == "2023-05-08T13:56:00-07:00" and answer["speaker"] == "Bo"
        assert (answer["context"], answer["follows"]) == (question["content"], question["id"])
        [handoff] = [r for r in records if r["type"] == "handoff"]
        assert (handoff["agent"], handoff["nextSteps"]) == ("ci-bot", ["drop Jenkins"])
        # The copy works: search finds the head, its history hangs off it, the text is there.
        found = destination.search.search(OPERATOR, SearchRequest(keyword="github actions",
                                                                   space=copy))
        head = search_json(found)["results"][0]
        assert head["content"] == "CI runs on GitHub Actions"
        related = {r["content"]: r["active"] for r in head["relatedMemories"]}
        assert related.items() >= {("CI runs on Jenkins", False), ("CI caches dependencies", True)}
    finally:
        origin.close()
        destination.close()


def test_importing_into_the_same_store_needs_new_ids(request: pytest.FixtureRequest,
                                                     tmp_path: Path) -> None:
    app = app_on("sqlite", request, tmp_path)
    try:
        populate(app, "original")
        lines = export(app, "original")
        app.admin.create_space("twin")
        with pytest.raises(Conflict, match="--new-ids"):
            app.portability.import_space(OPERATOR, "twin", lines)
        assert len(export(app, "twin")) == 1  # the header only: nothing half-imported
        report = app.portability.import_space(OPERATOR, "twin", lines, new_ids=True)
        assert (report.memories, report.relations, report.remapped) == (8, 2, True)
        twin = [json.loads(line) for line in export(app, "twin")]
        source = [json.loads(line) for line in lines]
        assert [(r.get("content"), r.get("active")) for r in twin] == [
            (r.get("content"), r.get("active")) for r in source]
        assert {r["id"] for r in twin if r["type"] == "memory"}.isdisjoint(
            {r["id"] for r in source if r["type"] == "memory"})
        # the turn that continues another points at that turn's new id
        ids = {r["content"]: r["id"] for r in twin if r["type"] == "memory"}
        [answer] = [r for r in twin if r.get("content") == "Bo: The GitHub-hosted one."]
        assert answer["follows"] == ids["Ana: Which runner do we use now?"]
    finally:
        app.close()
