"""Shared fixtures: where Neo4j and the language model come from, and the CI rule that a skip of a
real part fails."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
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
            yield uri
    except Neo4jUnavailable as exc:
        skip_or_fail(f"no Neo4j server: {exc}")


@pytest.fixture(scope="session")
def llm_endpoint() -> Iterator[LLMEndpoint]:
    """A real model: MEMSPACE_TEST_LLM_API_BASE, or tools/llm-local (started for the session)."""
    from tests.support.llm_server import LLMUnavailable, llm_server

    try:
        with llm_server() as endpoint:
            yield endpoint
    except LLMUnavailable as exc:
        skip_or_fail(f"no language model: {exc}")
