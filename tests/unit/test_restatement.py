"""Restatement or reversal (services/memories/restatement.py, versioned_adds.py): updated, conflict, and the
two calls that resolve a conflict."""

from __future__ import annotations

import pytest

from memspace.domain.errors import Conflict, NotFound
from memspace.domain.lifecycle import MemoryStatus, MemoryType
from memspace.present.json import add_json
from memspace.present.text import add_text
from memspace.services.memories.memories import AddRequest
from memspace.services.memories.restatement import coverage, restates
from tests.unit.conftest import World

JWT = "Sessions use opaque tokens instead of JWTs"
REVERSED = "Sessions use JWTs instead of opaque tokens"


def test_word_order_counts_and_a_restatement_must_say_more() -> None:
    assert coverage(JWT, REVERSED) < 0.6 and not restates(JWT, REVERSED + " for the API")
    longer = JWT + ", because they can be revoked at once"
    assert coverage(JWT, longer) == 1.0 and restates(JWT, longer)
    assert not restates(longer, JWT)  # shorter: says less
    assert not restates(JWT, JWT)  # the same length is not more


def _add(world: World, text: str, kind: str | None = "decision", **extra: object):  # type: ignore[no-untyped-def]
    who = world.principal({"acme": "rw"})
    return world.app.memories.submit(who, AddRequest(text, "acme", memory_type=kind, **extra))  # type: ignore[arg-type]


def test_a_restatement_becomes_the_next_version_and_supersedes_the_old(world: World) -> None:
    first = _add(world, JWT, importance=5).memories[0]
    fuller = _add(world, JWT + ", because they can be revoked at once", kind=None)

    assert fuller.status == "updated" and fuller.superseded == [first.id]
    new = fuller.memories[0]
    # the type and importance of the line carry over unless the caller gave them
    assert (new.version, new.type, new.importance) == (2, MemoryType.DECISION, 5)
    old = world.app.store.reads.get_memory(new.space_id, first.id)
    assert old is not None and (old.status, old.superseded_by) == (MemoryStatus.SUPERSEDED, new.id)
    assert add_json(fuller)["status"] == "updated"


def test_a_reversal_of_a_decision_is_a_conflict_and_nothing_is_stored(world: World) -> None:
    first = _add(world, JWT).memories[0]
    before = world.app.store.directory.space_stats(first.space_id).active_memories

    clash = _add(world, REVERSED)

    assert (clash.status, clash.memories) == ("conflict", [])
    assert world.app.store.directory.space_stats(first.space_id).active_memories == before
    data = add_json(clash)["conflict"]
    assert data["memory"]["id"] == first.id
    assert data["resolve"]["replaces"] == {"tool": "add_memory", "arguments": {
        "content": REVERSED, "type": "decision", "supersedes": [first.id]}}
    assert data["resolve"]["bothHold"]["arguments"]["force"] is True
    assert f'"supersedes": ["{first.id}"]' in add_text(clash)


def test_a_conflict_resolved_by_supersedes_replaces_the_old_claim(world: World) -> None:
    first = _add(world, JWT).memories[0]
    replaced = _add(world, REVERSED, supersedes=(first.id,))
    assert (replaced.status, replaced.superseded) == ("created", [first.id])
    assert replaced.memories[0].version == 2
    old = world.app.store.reads.get_memory(first.space_id, first.id)
    assert old is not None and old.superseded_by == replaced.memories[0].id


def test_a_conflict_resolved_by_force_keeps_both(world: World) -> None:
    first = _add(world, JWT).memories[0]
    both = _add(world, REVERSED, force=True)
    assert both.status == "created" and both.superseded == []
    still = world.app.store.reads.get_memory(first.space_id, first.id)
    assert still is not None and still.active


def test_notes_and_other_types_are_never_a_conflict(world: World) -> None:
    _add(world, JWT, kind="fact")
    assert _add(world, REVERSED, kind="fact").status == "created"
    _add(world, "The build uses ruff then mypy", kind=None)
    assert _add(world, "The build uses mypy then ruff", kind=None).status == "created"


def test_supersedes_names_only_current_memories_of_the_space(world: World) -> None:
    elsewhere = world.app.memories.submit(world.principal({"other": "rw"}),
                                          AddRequest("Other team's note", "other")).memories[0]
    with pytest.raises(NotFound):
        _add(world, REVERSED, supersedes=(elsewhere.id,))
    first = _add(world, JWT).memories[0]
    _add(world, REVERSED, supersedes=(first.id,))
    with pytest.raises(Conflict):
        _add(world, "Sessions use signed cookies", supersedes=(first.id,))
