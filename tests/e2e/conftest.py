"""The real app, the real embedding model, over real HTTP — once per store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from memspace.domain.models import Access
from memspace.embeddings.local import LocalEmbedder
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.server import bound_socket, running_server
from tests.support.stores import PATIENT_SETTINGS

ARTIFACTS = Path(__file__).parents[1] / "artifacts"


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """all-MiniLM-L6-v2 loaded once for the whole session (0.3 s, once)."""
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
    # The port the server really listens on, so what it tells clients about itself (the upload
    # view's CSP, OAuth metadata) can be checked against the URL the tests reach it at.
    sock = bound_socket()
    port = int(sock.getsockname()[1])
    # Metrics on, as an operator would run it: every e2e test also goes through the metered
    # wiring, and the page each module leaves is kept as a sample (tests/artifacts/metrics-*).
    if request.param == "sqlite":
        settings = Settings(_env_file=None, data_dir=data_dir, metrics=True,  # type: ignore[call-arg]
                            port=port)
    else:
        settings = Settings(_env_file=None, store="neo4j", metrics=True,  # type: ignore[call-arg]
                            **PATIENT_SETTINGS,
                            neo4j_uri=request.getfixturevalue("neo4j_uri"), data_dir=data_dir,
                            port=port)
    app = build(settings, embedder=embedder)
    with running_server(app, sock=sock) as url:
        yield Deployment(url, app)
        sample = httpx2.get(f"{url}/metrics", timeout=10)
        assert sample.status_code == 200
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        module = request.module.__name__.rsplit(".", 1)[-1]
        (ARTIFACTS / f"metrics-{module}-{request.param}.txt").write_text(sample.text, encoding="utf-8")
    app.close()
