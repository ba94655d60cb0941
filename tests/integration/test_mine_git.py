"""`mine-git` over a real repository: rationale commits become notes citing their commit,
once each; with the real local model the facts it extracts carry the commit too."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.errors import InvalidInput
from memspace.services.access.access import AccessService
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.gitrepo import GitRepo
from tests.support.llm_server import LLMEndpoint
from tests.support.stores import STORE_PARAMS, make_store

OP = AccessService.operator()


@pytest.fixture(params=STORE_PARAMS)
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    made = build(settings, store=make_store(request.param, request, tmp_path),
                 embedder=HashEmbedder())
    yield made
    made.close()


def history(root: Path) -> tuple[GitRepo, dict[str, str]]:
    repo = GitRepo(root)
    shas = {}
    repo.write("a.py", "x = 1\n")
    shas["why"] = repo.commit("Use SQLite by default because most teams run one server, so a "
                              "database service is overhead")
    repo.write("a.py", "x = 2\n")
    shas["typo"] = repo.commit("fix typo")
    repo.write("b.py", "y = 1\n")
    shas["instead"] = repo.commit("Cache embeddings in process\n\nWe keep the matrix in memory "
                                  "instead of asking the store on every search, to avoid a round "
                                  "trip per query.")
    return repo, shas


def test_rationale_commits_become_notes_once(app: Container, tmp_path: Path) -> None:
    repo, shas = history(tmp_path / "hist")
    space = app.admin.create_space(f"mine-{os.urandom(3).hex()}").slug
    other = app.admin.create_space(f"else-{os.urandom(3).hex()}").slug
    name = f"hist-{os.urandom(3).hex()}"
    app.repos.add(OP, name, str(repo.root), space)
    with pytest.raises(InvalidInput, match="belongs to space"):
        app.mining.mine(OP, name, other)
    done = app.mining.mine(OP, name, space)
    assert (done.commits, done.notes, done.created) == (3, 2, 2)
    notes = [app.memories.get(OP, i, space).memory for i in done.memory_ids]
    assert sorted(c.text for m in notes for c in m.evidence) == sorted(
        [f"commit:{shas['why']}", f"commit:{shas['instead']}"])
    assert all(m.verification == "not_anchored" and m.category == "history" for m in notes)
    assert any("instead of asking the store" in m.content for m in notes)
    again = app.mining.mine(OP, name, space)
    assert (again.commits, again.created) == (0, 0)
    repo.write("c.py", "z = 1\n")
    repo.commit("Retry twice rather than once: the store restarts take a few seconds")
    later = app.mining.mine(OP, name, space)
    assert (later.commits, later.created) == (1, 1)


@pytest.mark.llm
@pytest.mark.model
def test_with_the_real_model_every_fact_cites_the_commit(llm_endpoint: LLMEndpoint,
                                                         tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data",  # type: ignore[call-arg]
                        llm_model=llm_endpoint.model, llm_api_base=llm_endpoint.api_base,
                        llm_api_key=llm_endpoint.api_key, llm_timeout_s=600)
    app = build(settings, embedder=HashEmbedder())
    try:
        repo = GitRepo(tmp_path / "one")
        repo.write("a.py", "x = 1\n")
        sha = repo.commit("Use SQLite by default because most teams run one server, so a "
                          "database service is overhead")
        space = app.admin.create_space("mine-model").slug
        app.repos.add(OP, "one", str(repo.root), space)
        done = app.mining.mine(OP, "one", space)
        assert done.created == 1 and done.memory_ids
        for memory_id in done.memory_ids:
            memory = app.memories.get(OP, memory_id, space).memory
            assert [c.text for c in memory.evidence] == [f"commit:{sha}"]
    finally:
        app.close()
