"""A write citing nothing does not read the space's checkouts (what citations are anchored
in): one read less on every add."""

from __future__ import annotations

from typing import Any

import pytest

from memspace.services.memories import AddRequest
from tests.unit.conftest import World


def test_a_write_citing_nothing_does_not_read_the_spaces_checkouts(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    who = world.principal({"acme": "rw"})
    repos = world.app.store.code_index
    listed: list[str] = []
    real = repos.list_repos

    def spy(space_id: str) -> Any:
        listed.append(space_id)
        return real(space_id)

    monkeypatch.setattr(repos, "list_repos", spy)
    world.app.memories.add(who, "Deploys need two approvals")
    assert listed == []
    cited = world.app.memories.submit(who, AddRequest(
        "Rollbacks need one approval", evidence=("https://wiki.example.com/rollbacks",)))
    assert cited.status == "created" and len(listed) == 1
