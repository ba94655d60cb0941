"""On a real Neo4j, through the `memspace` command: an import that leaves a space large
enough for a vector index of its own builds it before its last line, so the searches that
follow neither take the store-wide path nor share the machine with the build; a space too small
for one, or one that has it already, gets no build (docs/scaling.md, "A fresh load")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memspace.cli.main import app
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from memspace.stores.neo4j import cold as neo4j_cold
from memspace.stores.neo4j.space_vectors import names
from tests.support import builders as b

pytestmark = pytest.mark.neo4j

MEMORIES = 12


def _state(store: Neo4jStore, index: str) -> list[dict[str, Any]]:
    return store.kit.db.read("SHOW INDEXES YIELD name, state WHERE name = $index", index=index)


def test_an_import_builds_a_large_space_its_own_vector_index_before_it_ends(
        neo4j_store: Neo4jStore, neo4j_uri: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"MEMSPACE_DATA_DIR": str(tmp_path / "data"), "MEMSPACE_STORE": "neo4j",
           "MEMSPACE_NEO4J_URI": neo4j_uri, "MEMSPACE_LLM_MODEL": ""}

    def memspace(*args: str) -> Any:
        result = CliRunner().invoke(app, list(args), env=env)
        assert result.exit_code == 0, result.output
        return result

    source = b.space("export-me")
    neo4j_store.directory.create_space(source)
    neo4j_store.writes.write(WriteBatch(source.id, [
        b.memory(source.id, f"runbook step {n}: restart the ingest worker {n} times")
        for n in range(MEMORIES)]))
    export = tmp_path / "export.jsonl"
    memspace("export", "--space", source.slug, "-o", str(export))
    built: list[str] = []
    try:
        # too small for an index of its own: nothing is built
        small = f"{source.slug}-small"
        plain = memspace("import-space", str(export), "--space", small, "--new-ids")
        assert "Building the vector index" not in plain.output
        small_space = neo4j_store.directory.get_space_by_slug(small)
        assert small_space is not None
        small_index = names(small_space.id)
        assert small_index is not None and not _state(neo4j_store, small_index[0])

        monkeypatch.setattr(neo4j_cold, "OWN_INDEX_MIN", MEMORIES)
        large = f"{source.slug}-large"
        done = memspace("import-space", str(export), "--space", large, "--new-ids")
        space = neo4j_store.directory.get_space_by_slug(large)
        assert space is not None
        named = names(space.id)
        assert named is not None
        index, label = named
        built.append(index)
        assert (f"Building the vector index of '{large}' ({MEMORIES} memories;"
                in done.stderr)
        assert _state(neo4j_store, index) == [{"name": index, "state": "ONLINE"}]
        [row] = neo4j_store.kit.db.read(
            f"MATCH (m:`{label}`) RETURN count(m) AS n, collect(DISTINCT m.spaceId) AS spaces")
        assert row["n"] == MEMORIES and row["spaces"] == [space.id]
        [ready] = neo4j_store.kit.db.read(
            "MATCH (s:Space {id: $id}) RETURN s.vectorIndexReady AS ready", id=space.id)
        assert ready["ready"] is True
        assert done.stdout.strip().splitlines()[-1].startswith("Indexes: all ")

        # a file imported into it later finds the index ready: no second build
        notes = tmp_path / "notes.md"
        notes.write_text("# Pager\n\nThe pager rotation changes on Mondays.\n", encoding="utf-8")
        again = memspace("import", str(notes), "--space", large)
        assert "Building the vector index" not in again.output
        assert again.stdout.strip().splitlines()[-1].startswith("Indexes: all ")
    finally:
        for index in built:
            neo4j_store.kit.db.driver.execute_query(f"DROP INDEX `{index}` IF EXISTS")
