"""The load and fault suite: each test runs once per store, on a file (not in-memory) SQLite
store or the test Neo4j, with the hashing embedder so that thousands of operations stay quick.
Knobs: `--ops N` (random operations of the isolation test), `--writers N` (concurrent writers).
Everything asserts outcomes (counts, statuses, who sees what), never timings."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memspace.domain.extraction import FactExtractor
from memspace.domain.models import Access
from memspace.services.access.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.stores import STORE_PARAMS, make_store


@dataclass
class Rig:
    app: Container
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])

    def space(self, slug: str) -> str:
        """A space with a unique slug (the Neo4j store outlives one run)."""
        unique = f"{slug}-{self.tag}"
        self.app.admin.create_space(unique)
        return unique

    def principal(self, name: str, grants: dict[str, str]) -> Principal:
        levels = {"rw": Access.READWRITE, "r": Access.READ}
        created = self.app.admin.create_key(name, {s: levels[g] for s, g in grants.items()})
        return self.app.access.authenticate(created.raw)


def make_rig(kind: str, request: pytest.FixtureRequest, tmp_path: Path,
             extractor: FactExtractor | None = None) -> Rig:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    store = make_store(kind, request, tmp_path)
    return Rig(build(settings, store=store, embedder=HashEmbedder(), extractor=extractor))


@pytest.fixture(params=STORE_PARAMS)
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    made = make_rig(request.param, request, tmp_path)
    yield made
    made.app.close()


@pytest.fixture
def ops(request: pytest.FixtureRequest) -> int:
    return int(request.config.getoption("--ops"))


@pytest.fixture
def writers(request: pytest.FixtureRequest) -> int:
    return int(request.config.getoption("--writers"))
