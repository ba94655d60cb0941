"""The real app, the real embedding model, over real HTTP — once per store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memspace.bootstrap import Container, build
from memspace.config import Settings
from memspace.domain.models import Access
from memspace.embeddings.local import LocalEmbedder
from tests.support.server import running_server


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """all-MiniLM-L6-v2 loaded once for the whole session (torch import costs ~5 s)."""
    model = LocalEmbedder()
    model.warm_up()
    return model


@dataclass
class Deployment:
    url: str
    app: Container

    def space(self, slug: str) -> str:
        """Create a space with a unique slug (stores outlive one test run) and return it."""
        unique = f"{slug}-{uuid.uuid4().hex[:8]}"
        self.app.admin.create_space(unique)
        return unique

    def key(self, name: str, grants: dict[str, str]) -> str:
        """A raw key; grants map slugs to "rw" or "r"."""
        levels = {"rw": Access.READWRITE, "r": Access.READ}
        return self.app.admin.create_key(name, {s: levels[g] for s, g in grants.items()}).raw


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)], scope="module")
def deployment(request: pytest.FixtureRequest, embedder: LocalEmbedder,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data_dir: Path = tmp_path_factory.mktemp("e2e")
    if request.param == "sqlite":
        settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    else:
        settings = Settings(_env_file=None, store="neo4j",  # type: ignore[call-arg]
                            neo4j_uri=request.getfixturevalue("neo4j_uri"), data_dir=data_dir)
    app = build(settings, embedder=embedder)
    with running_server(app) as url:
        yield Deployment(url, app)
    app.close()
