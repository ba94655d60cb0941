"""An index the store still builds in the background (a fresh load on Neo4j) is reported where a
user looks: /readyz answers `indexing` with each index's progress, `memspace doctor`'s store
line and an import's last line say which index and how far. Here on a store whose index states
the test sets; on a real Neo4j in tests/integration/test_neo4j_indexing.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from memspace.cli import doctor
from memspace.cli.main import app as cli
from memspace.domain.indexing import IndexProgress, IndexState, index_progress
from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock

BUILDING = [IndexState("memory_id", "ONLINE", 100.0),
            IndexState("memory_space_writer_created", "POPULATING", 42.5),
            IndexState("space_vectors_abc", "POPULATING", 7.0)]
ONLINE = [IndexState(s.name, "ONLINE", 100.0) for s in BUILDING]


class IndexingStore(SqliteStore):
    """SQLite with the index states a Neo4j store reports, as the test sets them."""

    states: list[IndexState] = BUILDING

    def index_states(self) -> list[IndexState]:
        return self.states


def test_progress_names_what_is_still_building_and_the_least_advanced() -> None:
    progress = IndexProgress.of(BUILDING)
    assert not progress.done and progress.percent == 7.0
    assert progress.describe() == (
        "2 of 3 indexes still building (memory_space_writer_created populating 42%, "
        "space_vectors_abc populating 7%); searches that need them take a slower path until "
        "they are online")
    assert progress.as_json() == {"online": 1, "total": 3, "percent": 7.0, "building": [
        {"name": "memory_space_writer_created", "state": "populating", "percent": 42.5},
        {"name": "space_vectors_abc", "state": "populating", "percent": 7.0}]}
    done = IndexProgress.of(ONLINE)
    assert done.done and done.percent == 100.0 and done.describe() == "all 3 indexes online"
    assert index_progress(SqliteStore(":memory:")) is None  # SQLite builds none later


async def test_readyz_says_indexing_with_progress_then_ready() -> None:
    store = IndexingStore(":memory:")
    app = build(Settings(_env_file=None), store=store, embedder=HashEmbedder(),  # type: ignore[call-arg]
                clock=StepClock(), blobs=MemoryBlobStore())
    transport = httpx.ASGITransport(app=create_app(app, warm_up=False))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            indexing = await client.get("/readyz")
            # served meanwhile: a load balancer keeps sending traffic
            assert indexing.status_code == 200
            body = indexing.json()
            assert (body["status"], body["store"]) == ("indexing", "sqlite")
            assert body["indexes"]["percent"] == 7.0
            assert [i["name"] for i in body["indexes"]["building"]] == [
                "memory_space_writer_created", "space_vectors_abc"]
            assert "space_vectors_abc populating 7%" in body["message"]
            store.states = ONLINE
            ready = await client.get("/readyz")
        assert (ready.status_code, ready.json()) == (200, {"status": "ready", "store": "sqlite"})
    finally:
        app.close()


class FakeNeo4j:
    def __init__(self, states: list[IndexState]) -> None:
        self.states = states
        self.closed = False

    def ping(self) -> None:
        pass

    def index_states(self) -> list[IndexState]:
        return self.states

    def close(self) -> None:
        self.closed = True


def test_doctor_store_line_reports_indexes_still_building(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[FakeNeo4j] = []

    def store_with(states: list[IndexState]) -> Any:
        def build_store(_: Settings) -> FakeNeo4j:
            made.append(FakeNeo4j(states))
            return made[-1]
        return build_store

    settings = Settings(_env_file=None, store="neo4j",  # type: ignore[call-arg]
                        neo4j_uri="bolt://db.example:7687")
    monkeypatch.setattr(doctor, "build_store", store_with(BUILDING))
    building = doctor.check_store(settings)
    assert building.ok  # nothing to fix: it finishes on its own
    assert building.line() == (
        "OK   store: neo4j answers at bolt://db.example:7687; 2 of 3 indexes still building "
        "(memory_space_writer_created populating 42%, space_vectors_abc populating 7%); "
        "searches that need them take a slower path until they are online")
    monkeypatch.setattr(doctor, "build_store", store_with(ONLINE))
    assert doctor.check_store(settings).line() == (
        "OK   store: neo4j answers at bolt://db.example:7687; all 3 indexes online")
    assert all(store.closed for store in made)


def test_import_space_ends_with_the_indexes_still_building(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMSPACE_DATA_DIR", str(tmp_path / "data"))
    runner = CliRunner()
    assert runner.invoke(cli, ["space", "create", "team"]).exit_code == 0
    export = tmp_path / "team.jsonl"
    assert runner.invoke(cli, ["export", "--space", "team", "-o", str(export)]).exit_code == 0
    monkeypatch.setattr("memspace.cli.spaces.indexes_after_import",
                        lambda *_: IndexProgress.of(BUILDING))
    result = runner.invoke(cli, ["import-space", str(export), "--space", "imported"])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Indexes: 2 of 3 indexes still building (memory_space_writer_created "
                           "populating 42%")
    assert last.endswith("`memspace doctor` and /readyz show their progress.")
