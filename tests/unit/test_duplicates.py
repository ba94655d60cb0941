"""One active memory per content, enforced by the store itself: what each writer is told."""

from __future__ import annotations

import json

import pytest

from memspace.domain.errors import Conflict, DuplicateContent
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.services.access.access import AccessService
from tests.unit.conftest import World


def test_the_store_refuses_a_second_active_memory_with_the_same_content(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Backups run at 02:00").memories[0]
    # A writer that checked before the first commit (the race) still cannot store a copy.
    twin = world.app.memories.new_memory(
        first.space_id, "backups  run at 02:00", "general", "agent")
    with pytest.raises(DuplicateContent) as refused:
        world.app.store.writes.write(WriteBatch(first.space_id, [twin]))
    assert refused.value.existing == {first.content_hash: first.id}
    assert refused.value.code == "duplicate" and first.id in refused.value.message
    world.app.memories.forget(who, first.id)
    world.app.store.writes.write(WriteBatch(first.space_id, [twin]))  # once forgotten it may return
    active = world.app.store.reads.list_memories(MemoryFilter(first.space_id), 10)
    assert [m.id for m in active] == [twin.id]


def test_importing_content_the_space_already_holds_says_so(world: World) -> None:
    operator = AccessService.operator()
    who = world.principal({"acme": "rw", "other": "rw"})
    world.app.memories.add(who, "Backups run at 02:00", "acme")
    world.app.memories.add(who, "Backups run at 02:00", "other")
    lines = [json.dumps(r) for r in world.app.portability.export(operator, "acme")]
    with pytest.raises(Conflict, match="already holds active memories saying exactly what this "
                                       "export says"):
        world.app.portability.import_space(operator, "other", lines, new_ids=True)
