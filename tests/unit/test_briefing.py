from __future__ import annotations

import pytest

from memspace.domain.errors import InvalidInput
from memspace.llm.tokens import TokenCounter
from memspace.services.access.access import Principal
from tests.unit.conftest import World

COUNT = TokenCounter().count
MIN = 200


def test_entries_are_shortened_to_pointers_before_they_are_dropped(world: World) -> None:
    who = world.principal({"acme": "rw"})
    long_tail = " ".join(f"d{i}" for i in range(40))
    world.app.memories.add(who, f"The architecture review decided on event sourcing {long_tail}")
    brief = world.app.briefings.brief(who, max_tokens=MIN)
    assert COUNT(brief.text) <= MIN
    # the memory is shortened, not dropped (its one line among the recent changes aside)
    memory_id = brief.shortened[0]
    assert memory_id not in brief.included + brief.omitted
    assert "decided on event sourcing d0 …" in brief.text


def test_sections_come_in_a_fixed_order(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "r"})
    writer = world.principal({"other": "rw"}, name="writer")
    world.app.memories.add(who, "Acme fact", space="acme")
    world.app.memories.add(writer, "Other fact")
    world.app.access.set_active_space(who, "acme")
    key = world.app.store.directory.get_key(who.key_id or "")
    assert key is not None
    who = Principal.from_key(key)
    text = world.app.briefings.brief(who, max_tokens=1000).text
    assert text.index("# Shared memory: space 'acme'") < text.index("Acme fact")
    assert text.index("Acme fact") < text.index("## Also readable: other (read)")
    assert text.index("## Also readable: other (read)") < text.index("Other fact")
    assert "## Omitted" not in text


def test_a_budget_that_cannot_hold_the_header_is_refused(world: World) -> None:
    who = world.principal({"acme": "rw"})
    with pytest.raises(InvalidInput, match="maxTokens"):
        world.app.briefings.brief(who, max_tokens=10)
