"""The GraphStore contract for handoffs and memory versions, on every store alike."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta

import pytest

from memspace.domain.errors import NotFound
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Handoff, MemoryFilter, RelationType
from memspace.domain.ports import PageAfter, WriteBatch
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

EMBED = HashEmbedder()


def handoff(space_id: str, agent: str = "planner", topic: str = "release", minutes: int = 0,
            **kw: object) -> Handoff:
    base = Handoff(
        id=f"ho-{uuid.uuid4().hex}", space_id=space_id, agent=agent, topic=topic,
        summary=f"{agent} on {topic} at +{minutes}", done=("wrote the plan",),
        next_steps=("run the migration", "tell ops"), open_questions=(),
        links=("https://example.test/pr/1", "src/memspace/cli/main.py"),
        created_at=b.BASE + timedelta(minutes=minutes), created_by=f"key:{agent}",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_a_handoff_reads_back_as_written(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    written = handoff(space.id, open_questions=("Is the cut-over on Monday?",), links=())
    store.handoffs.add_handoff(written)
    assert store.handoffs.latest_handoff(space.id) == written


def test_latest_handoff_is_the_newest_and_narrows_by_agent_and_topic_ignoring_case(
    store: GraphStore,
) -> None:
    space = b.space()
    store.directory.create_space(space)
    first = handoff(space.id, "Planner", "Release", minutes=1)
    second = handoff(space.id, "reviewer", "release", minutes=2)
    third = handoff(space.id, "planner", "docs", minutes=3)
    for h in (second, first, third):
        store.handoffs.add_handoff(h)
    assert store.handoffs.latest_handoff(space.id) == third
    assert store.handoffs.latest_handoff(space.id, agent="PLANNER") == third
    assert store.handoffs.latest_handoff(space.id, topic="release") == second
    assert store.handoffs.latest_handoff(space.id, agent="planner", topic="RELEASE") == first
    assert store.handoffs.latest_handoff(space.id, agent="nobody") is None


def test_handoffs_list_newest_first_a_page_at_a_time_and_stay_in_their_space(
    store: GraphStore,
) -> None:
    space, other = b.space(), b.space("other")
    store.directory.create_space(space)
    store.directory.create_space(other)
    made = [handoff(space.id, "a" if i % 2 else "b", minutes=i) for i in range(5)]
    for h in made:
        store.handoffs.add_handoff(h)
    store.handoffs.add_handoff(handoff(other.id, minutes=10))
    page = store.handoffs.list_handoffs(space.id, 3)
    assert [h.id for h in page] == [h.id for h in reversed(made)][:3]
    rest = store.handoffs.list_handoffs(space.id, 3, PageAfter(page[-1].created_at, page[-1].id))
    assert [h.id for h in rest] == [made[1].id, made[0].id]
    assert [h.agent for h in store.handoffs.list_handoffs(space.id, 10, agent="A")] == ["a", "a"]
    assert store.handoffs.latest_handoff(other.id) is not None
    assert all(h.space_id == space.id for h in store.handoffs.list_handoffs(space.id, 10))


def test_a_handoff_to_a_missing_space_is_not_found(store: GraphStore) -> None:
    with pytest.raises(NotFound):
        store.handoffs.add_handoff(handoff("no-such-space-" + uuid.uuid4().hex))


def test_memories_keep_the_version_they_were_written_with(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    first = b.memory(space.id, "Deploys run on Tuesdays", EMBED.embed(["a"])[0])
    store.writes.write(WriteBatch(space.id, [first]))
    fixed = replace(b.memory(space.id, "Deploys run on Thursdays", EMBED.embed(["b"])[0]),
                    version=2)
    edge = b.relation(fixed, first, RelationType.UPDATES)
    store.writes.write(WriteBatch(space.id, [fixed], [edge], {first.id: fixed.id}))
    current = store.reads.get_memory(space.id, fixed.id)
    old = store.reads.get_memory(space.id, first.id)
    assert current is not None and current.version == 2
    assert old is not None and old.version == 1 and not old.active
    listed = store.reads.list_memories(MemoryFilter(space.id), 5)
    assert [(m.id, m.version) for m in listed] == [(fixed.id, 2)]
    hits = store.search.vector_search(MemoryFilter(space.id), EMBED.embed(["b"])[0], 1)
    assert hits[0].memory.version == 2


def test_forgetting_a_memory_moves_its_version_on(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    memory = b.memory(space.id, "The VPN needs a token", EMBED.embed(["vpn"])[0])
    store.writes.write(WriteBatch(space.id, [memory]))
    gone = store.writes.forget(space.id, memory.id, "no VPN any more", "test", b.BASE)
    assert gone.version == 2
    again = store.reads.get_memory(space.id, memory.id)
    assert again is not None and again.version == 2 and not again.active
