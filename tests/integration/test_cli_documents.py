"""`memspace import`, `memspace document` and `memspace seed`, run as a user runs them: the CLI
on an embedded store in a fresh data folder, the real embedding model."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.domain.models import MemoryFilter, RelationType
from memspace.services.access.access import AccessService
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support import corpus

pytestmark = pytest.mark.model


def test_import_reports_each_file_and_fails_when_one_did(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    files = {"pricing.pdf": corpus.two_page_pdf(), "locked.pdf": corpus.encrypted_pdf(),
             "plans.csv": corpus.CSV_UTF8, "empty.txt": b""}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    result = run("import", *(str(tmp_path / n) for n in files), "--space", "team")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("pricing.pdf: done — 1 memory from 1 chunk")
    assert lines[1].startswith("locked.pdf: failed — encrypted PDF")
    assert lines[2].startswith("plans.csv: done — 1 memory from 1 chunk")
    assert lines[3] == "empty.txt: refused — 'empty.txt' is empty (0 bytes); choose the file " \
                       "again. Nothing was stored"
    again = run("import", str(tmp_path / "pricing.pdf"), "--space", "team")
    assert again.exit_code == 0 and "already imported as" in again.stdout
    listed = run("document", "list", "--space", "team")
    assert listed.stdout.startswith("3 documents in 'team'.")
    locked_id = lines[1].rsplit("[", 1)[1].rstrip("]")
    retried = run("document", "retry", locked_id, "--space", "team")
    assert retried.exit_code == 1 and "failed — encrypted PDF" in retried.stdout


def test_seed_loads_the_demo_once_with_its_history(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("seed")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Loaded the demo into acme-rebuild, support: 18 memories, "
                                    "10 relations, 6 documents")
    assert result.stdout.count("msk_") == 3
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    container = build(settings)
    try:
        space = container.store.directory.get_space_by_slug("acme-rebuild")
        assert space is not None
        memories = container.store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), 100)
        kinds = {r.type for m in memories for r in container.store.relations.relations_of(space.id, m.id)}
        assert kinds == {RelationType.UPDATES, RelationType.EXTENDS, RelationType.DERIVES}
        assert sum(not m.active for m in memories) == 2
        documents = container.store.documents.list_documents(space.id, 10)
        assert {d.status.value for d in documents} == {"done"} and len(documents) == 3
        # one open conflict of each kind (docs/conflicts.md)
        operator = AccessService.operator()
        queued = [c.kind.value for slug in ("acme-rebuild", "support")
                  for c in container.conflicts.listing(operator, slug, 50).page.items]
        assert sorted(queued) == ["contradiction", "disputed", "suggested_update", "two_heads",
                                  "write_conflict"]
    finally:
        container.close()
    again = run("seed")
    assert again.exit_code == 1 and "already exist" in again.output
