"""Services over an in-memory SQLite store, a hashing embedder and a stepping clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from memspace.domain.models import Access
from memspace.services.access.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, ScriptedExtractor, StepClock


@dataclass
class World:
    app: Container
    embedder: HashEmbedder
    extractor: ScriptedExtractor | None = None
    clock: StepClock | None = None

    def principal(self, grants: dict[str, str], name: str = "agent") -> Principal:
        levels = {"rw": Access.READWRITE, "r": Access.READ}
        created = self.app.admin.create_key(name, {s: levels[g] for s, g in grants.items()})
        return self.app.access.authenticate(created.raw)


def _world(extractor: ScriptedExtractor | None, features: str = "default") -> World:
    embedder = HashEmbedder()
    settings = Settings(_env_file=None, max_memory_chars=200,  # type: ignore[call-arg]
                        conversation_features=features)
    clock = StepClock()
    app = build(settings, store=SqliteStore(":memory:"), embedder=embedder, clock=clock,
                extractor=extractor, blobs=MemoryBlobStore())
    for slug in ("acme", "other"):
        app.admin.create_space(slug)
    return World(app, embedder, extractor, clock)


@pytest.fixture
def world() -> Iterator[World]:
    """No model configured: flat mode."""
    made = _world(None)
    yield made
    made.app.close()


@pytest.fixture
def model_world() -> Iterator[World]:
    """A scripted model: extraction mode."""
    made = _world(ScriptedExtractor())
    yield made
    made.app.close()
