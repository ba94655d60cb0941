"""One `store` fixture, parametrised over every GraphStore: the contract runs on each alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.graph_port import GraphStore
from tests.support.stores import STORE_PARAMS, make_store


@pytest.fixture(params=STORE_PARAMS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    made = make_store(request.param, request, tmp_path)
    yield made
    made.close()
