"""Shared fixtures: where Neo4j and the language model come from, and the CI rule that a skip of a
real part fails."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.support.scripted_llm import ScriptedLLM
from tests.support.stores import PATIENT

if TYPE_CHECKING:
    from memspace.stores.neo4j import Neo4jStore
    from tests.support.llm_server import LLMEndpoint

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ops", type=int, default=int(os.environ.get("MEMSPACE_TEST_OPS", "2000")),
        help="random operations per store in tests/load/test_isolation.py (default 2000; "
             "10000+ for a long soak)")
    parser.addoption(
        "--writers", type=int, default=16,
        help="concurrent writers in tests/load/test_concurrent_writes.py (default 16)")


@pytest.fixture(scope="session", autouse=True)
def no_memspace_environment() -> Iterator[None]:
    """The caller's MEMSPACE_* settings stay out of the tests: a set MEMSPACE_LLM_MODEL would turn
    a flat-mode test into a model call, and MEMSPACE_STORE=neo4j would move a "sqlite" server
    onto a real Neo4j. Each test states its Settings; MEMSPACE_TEST_* (where the real Neo4j and
    model are) are the tests' own knobs and stay. Session-wide, so session and module fixtures
    that build servers see the cleaned environment too."""
    saved = {name: value for name, value in os.environ.items()
             if name.startswith("MEMSPACE_") and not name.startswith("MEMSPACE_TEST_")}
    for name in saved:
        del os.environ[name]
    yield
    os.environ.update(saved)


@pytest.fixture(scope="session", autouse=True)
def own_user_data_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A test that names no data folder (a server or CLI started as a user would start it) writes
    into a data folder of this session, never the user's own ~/.local/share/memspace."""
    saved = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    yield
    if saved is None:
        del os.environ["XDG_DATA_HOME"]
    else:
        os.environ["XDG_DATA_HOME"] = saved


def skip_or_fail(reason: str) -> None:
    """Outside CI a missing real part skips; under CI=true it is a failure."""
    if IN_CI:
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    """A Bolt URI of a real Neo4j: MEMSPACE_TEST_NEO4J_URI, testcontainers, or tools/neo4j-local."""
    from tests.support.neo4j_server import Neo4jUnavailable, neo4j_server

    try:
        with neo4j_server() as uri:
            _record_default_model(uri)
            yield uri
    except Neo4jUnavailable as exc:
        skip_or_fail(f"no Neo4j server: {exc}")


def _record_default_model(uri: str) -> None:
    """The shared test database is one store for every test: the servers the tests start embed
    with the default model whatever the contract tests wrote into it first (a store holding
    memories and no record would keep all-MiniLM-L6-v2: services/embedding_model.py)."""
    from memspace.services import embedding_model
    from memspace.stores.neo4j import Neo4jStore

    store = Neo4jStore(uri, **PATIENT)
    try:
        store.set_store_info(embedding_model.KEY, embedding_model.E5_SMALL)
    finally:
        store.close()


@pytest.fixture
def neo4j_store(neo4j_uri: str) -> Iterator[Neo4jStore]:
    """A Neo4jStore on the test server, closed after the test."""
    from memspace.stores.neo4j import Neo4jStore

    made = Neo4jStore(neo4j_uri, **PATIENT)
    yield made
    made.close()


@pytest.fixture(scope="session")
def llm_endpoint() -> Iterator[LLMEndpoint]:
    """A real model: MEMSPACE_TEST_LLM_API_BASE, or tools/llm-local (started for the session)."""
    from tests.support.llm_server import LLMUnavailable, llm_server

    try:
        with llm_server() as endpoint:
            yield endpoint
    except LLMUnavailable as exc:
        skip_or_fail(f"no language model: {exc}")


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLM]:
    """An OpenAI-compatible server answering what each test scripts (tests/support/scripted_llm.py)."""
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def scripted(llm: ScriptedLLM) -> Iterator[ScriptedLLM]:
    """The scripted server, emptied for this test; every answer scripted must be asked for."""
    llm.script()
    yield llm
    assert llm.remaining == 0, "the test left scripted answers unused"
    assert llm.unscripted == 0, "the extractor made a call the test did not script"
