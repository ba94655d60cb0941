"""get_changes_since (services/lifecycle/changes.py): pages oldest first, ties kept in order, kinds, and
the cursor bound to its filters."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memspace.domain.errors import InvalidInput
from memspace.domain.lifecycle import MemoryType
from memspace.domain.ports import WriteBatch
from memspace.services.memories.memories import AddRequest
from tests.support import builders as b
from tests.unit.conftest import World

START = "2025-01-01T00:00:00Z"


def test_pages_come_oldest_first_and_a_tie_is_neither_skipped_nor_repeated(world: World) -> None:
    who = world.principal({"acme": "rw"})
    space = world.app.store.directory.get_space_by_slug("acme")
    assert space is not None
    at = b.memory(space.id, "x").created_at  # five memories in one write: one stamp, one time
    batch = [replace(b.memory(space.id, f"tied note {n}"), created_at=at) for n in range(5)]
    world.app.store.writes.write(WriteBatch(space.id, batch))

    seen: list[str] = []
    page = world.app.changes.since(who, since=START, limit=2, space="acme")
    seen += [c.memory.id for c in page.changes]
    while page.has_more:
        page = world.app.changes.since(who, cursor=page.cursor, limit=2, space="acme")
        seen += [c.memory.id for c in page.changes]
    assert seen == sorted(m.id for m in batch)
    later = world.app.memories.add(who, "after the tie", "acme").memories[0]
    again = world.app.changes.since(who, cursor=page.cursor, space="acme")
    assert [c.memory.id for c in again.changes] == [later.id] and not again.has_more


def test_each_change_says_how_the_memory_last_changed(world: World) -> None:
    who = world.principal({"acme": "rw"})
    add = world.app.memories.add
    created = add(who, "The queue is RabbitMQ", "acme").memories[0]
    old = add(who, "Builds take ten minutes", "acme").memories[0]
    new = world.app.memories.correct(who, old.id, "Builds take four minutes", "acme").memories[0]
    gone = add(who, "Friday demos are at 4pm", "acme").memories[0]
    world.app.memories.forget(who, gone.id, reason="no more demos", space="acme")
    doubted = add(who, "The CDN caches for a day", "acme").memories[0]
    world.app.lifecycle.mark(who, doubted.id, "disputed", "headers say an hour", "acme")

    page = world.app.changes.since(who, since=START, space="acme")

    kinds = {c.memory.id: c.kind for c in page.changes}
    assert kinds == {created.id: "created", old.id: "superseded", new.id: "updated",
                     gone.id: "forgotten", doubted.id: "marked"}


def test_the_cursor_keeps_its_types_and_only_limit_and_max_tokens_change(world: World) -> None:
    who = world.principal({"acme": "rw"})
    for n in range(3):
        world.app.memories.submit(who, AddRequest(f"decision {n} about caching", "acme",
                                                  memory_type="task"))
    world.app.memories.add(who, "a plain note", "acme")
    page = world.app.changes.since(who, since=START, types=["task"], limit=1, space="acme")
    assert [c.memory.type for c in page.changes] == [MemoryType.TASK] and page.has_more
    with pytest.raises(InvalidInput, match="same space and types"):
        world.app.changes.since(who, cursor=page.cursor, types=["note"], space="acme")
    with pytest.raises(InvalidInput, match="same space and types"):
        world.app.changes.since(who, cursor=page.cursor, space="acme")
    rest = world.app.changes.since(who, cursor=page.cursor, types=["task"], limit=10,
                                   max_tokens=200, space="acme")
    assert all(c.memory.type is MemoryType.TASK for c in rest.changes)
    assert 1 <= len(rest.changes) <= 2


def test_max_tokens_bounds_a_page_but_always_gives_one(world: World) -> None:
    who = world.principal({"acme": "rw"})
    for n in range(6):
        world.app.memories.add(who, f"note {n} " + "word " * 30, "acme")
    page = world.app.changes.since(who, since=START, max_tokens=200, space="acme")
    assert 1 <= len(page.changes) < 6 and page.has_more
