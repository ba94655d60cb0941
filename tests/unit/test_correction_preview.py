"""The guided save form previews a correction through the same rules that write it."""

from __future__ import annotations

import pytest

from memspace.domain.errors import Conflict, Forbidden, InvalidInput
from memspace.present.json import correction_preview_json
from tests.unit.conftest import World


def test_preview_shows_the_updates_edge_and_writes_nothing(world: World) -> None:
    who = world.principal({"acme": "rw"})
    old = world.app.memories.add(who, "Standup is at 9:30", category="process").memories[0]
    preview = correction_preview_json(
        world.app.memories.preview_correction(who, old.id, "  Standup is at 10:00 ", reason="moved"))
    assert preview["relation"] == {"from": None, "to": old.id, "type": "UPDATES", "reason": "moved"}
    assert preview["content"] == "Standup is at 10:00" and preview["category"] == "process"
    assert preview["replaces"]["id"] == old.id and preview["supersedes"] == [old.id]
    assert world.app.memories.get(who, old.id).memory.active is True
    _, page = world.app.memories.list(who, include_inactive=True)
    assert [m.id for m in page.items] == [old.id]


def test_preview_refuses_what_the_correction_would_refuse(world: World) -> None:
    writer = world.principal({"acme": "rw"})
    reader = world.principal({"acme": "r"}, name="reader")
    old = world.app.memories.add(writer, "Deploys happen on Fridays").memories[0]
    with pytest.raises(InvalidInput, match="exactly what"):
        world.app.memories.preview_correction(writer, old.id, "deploys happen on fridays")
    with pytest.raises(InvalidInput, match="empty"):
        world.app.memories.preview_correction(writer, old.id, "   ")
    with pytest.raises(Forbidden):
        world.app.memories.preview_correction(reader, old.id, "Deploys happen on Mondays")
    world.app.memories.correct(writer, old.id, "Deploys happen on Mondays")
    with pytest.raises(Conflict, match="already replaced"):
        world.app.memories.preview_correction(writer, old.id, "Deploys happen on Tuesdays")


def test_memory_detail_names_no_source_for_a_typed_memory(world: World) -> None:
    who = world.principal({"acme": "rw"})
    memory = world.app.memories.add(who, "The wiki lives in Notion").memories[0]
    assert world.app.memories.get(who, memory.id).source is None
