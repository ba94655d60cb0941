"""Two agents updating the same memory at the same moment, on each real store."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pytest

from memspace.domain.extraction import Candidate, Extraction
from memspace.domain.models import Access, MemoryFilter
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder, fact
from tests.support.stores import STORE_PARAMS, make_store


class SimultaneousModel:
    """Answers every add with the fact it is given, releasing both answers at the same moment."""

    def __init__(self, parties: int) -> None:
        self._barrier = threading.Barrier(parties, timeout=30)

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        if not candidates:  # the first, seeding add
            return Extraction((fact(content),))
        self._barrier.wait()
        return Extraction((fact(content, old=(0, "updates")),))


@pytest.mark.parametrize("kind", STORE_PARAMS)
def test_simultaneous_updates_end_with_one_head_and_no_lost_fact(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    model = SimultaneousModel(parties=2)
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    app = build(settings, store=make_store(kind, request, tmp_path), embedder=HashEmbedder(),
                extractor=model)
    try:
        slug = f"race-{uuid.uuid4().hex[:8]}"
        app.admin.create_space(slug)
        agents = [app.access.authenticate(
            app.admin.create_key(name, {slug: Access.READWRITE}).raw) for name in ("a", "b")]
        app.memories.add(agents[0], "The release train leaves on Monday")
        errors: list[BaseException] = []

        def update(agent_no: int, text: str) -> None:
            try:
                app.memories.add(agents[agent_no], text)
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=update, args=(0, "The release train leaves on Tuesday")),
                   threading.Thread(target=update, args=(1, "The release train leaves on Wednesday"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert errors == []
        space = app.store.directory.get_space_by_slug(slug)
        assert space is not None
        everything = app.store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), 10)
        heads = [m for m in everything if m.active]
        assert len(everything) == 3 and len(heads) == 1
        # The chain is linear: Monday <- one update <- the other, the head replaced nothing twice.
        replaced_by = {m.id: m.invalidated_by for m in everything if not m.active}
        updates = {m.id for m in everything if m.content != "The release train leaves on Monday"}
        assert set(replaced_by.values()) == updates and heads[0].id in updates
    finally:
        app.close()
