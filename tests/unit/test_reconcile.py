"""plan_extraction's guards, on vectors chosen for the case (the hashing embedder cannot say how
similar two texts are, so the UPDATES floor of 0.40 is pinned here, literally, and measured in
tests/integration/test_update_floor.py with the real model)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from memspace.domain.chunks import ChunkSource
from memspace.domain.embedder import MINILM_CALIBRATION
from memspace.domain.extraction import ExtractedFact, Extraction
from memspace.domain.models import Memory, Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.services.memories.reconcile import Plan, drop_repeats, plan_extraction, retarget
from tests.support import builders
from tests.support.builders import BASE
from tests.support.fakes import fact


def plan(similarity: float, *, kind: str = "updates", candidate_number: int = 0,
         known: Memory | None = None) -> tuple[Plan, Memory]:
    """One fact related to one candidate whose vectors have exactly `similarity`."""
    old = builders.memory("space-1", "The deploy window is Friday")
    vectors = {"The deploy window is Thursday": [similarity, math.sqrt(1 - similarity**2)],
               old.content: [1.0, 0.0]}

    def fact_memory(text: str, category: str) -> Memory:
        return builders.memory("space-1", text, category=category)

    made = plan_extraction(
        Extraction((fact("The deploy window is Thursday", "process", a=(candidate_number, kind)),)),
        [old], fact_memory, lambda texts: [vectors[t] for t in texts],
        lambda _hash: known, "agent", floor=MINILM_CALIBRATION.update_floor)
    return made, old


@pytest.mark.parametrize("kind", ["updates", "extends"])
def test_a_relation_just_above_the_floor_is_kept(kind: str) -> None:
    made, old = plan(0.41, kind=kind)
    [new] = made.memories
    assert made.warnings == []
    assert [(r.source_id, r.target_id, r.type, r.created_by) for r in made.relations] == [
        (new.id, old.id, RelationType(kind.upper()), "agent")]
    assert made.supersede == ({old.id: new.id} if kind == "updates" else {})
    assert new.version == (2 if kind == "updates" else 1)
    assert (new.category, new.embedding) == ("process", [0.41, pytest.approx(math.sqrt(1 - 0.41**2))])


def test_an_update_just_below_the_floor_is_refused_and_both_stay() -> None:
    made, _ = plan(0.39)
    assert (made.supersede, made.relations, [m.version for m in made.memories]) == ({}, [], [1])
    assert made.warnings == [
        "kept both: 'The deploy window is Thursday' was said to replace 'The deploy window is "
        "Friday', but they look unrelated (similarity 0.39 < 0.4); queued as a suggested update "
        "(list_conflicts)"]
    # kept for the conflict queue (services/memories/conflict_recorder.py), not dropped
    [(new, old, similarity)] = made.suggested
    assert (new.content, old.content, similarity) == (
        "The deploy window is Thursday", "The deploy window is Friday", pytest.approx(0.39))


def test_a_fact_said_to_contradict_a_candidate_is_kept_beside_it_for_the_queue() -> None:
    old = builders.memory("space-1", "The office is closed on holidays")
    said = ExtractedFact("The office is open on holidays", "fact",
                         contradicts=((0, "open or closed?"), (5, "not offered")))
    made = plan_extraction(
        Extraction((said,)), [old], lambda text, cat: builders.memory("space-1", text, category=cat),
        lambda texts: [[1.0, 0.0] for _ in texts], lambda _hash: None, "agent",
        floor=MINILM_CALIBRATION.update_floor)
    [new] = made.memories
    assert (made.relations, made.supersede, made.suggested) == ([], {}, [])
    assert [(n.id, o.id, why) for n, o, why in made.contradicts] == [
        (new.id, old.id, "open or closed?")]


def test_only_a_weak_extends_is_not_vetoed() -> None:
    made, _ = plan(0.05, kind="extends")
    assert [r.type for r in made.relations] == [RelationType.EXTENDS] and made.warnings == []


@pytest.mark.parametrize("number", [-1, 1])
def test_a_relation_to_a_candidate_that_was_not_offered_is_dropped(number: int) -> None:
    made, _ = plan(0.9, candidate_number=number)
    assert (len(made.memories), made.relations, made.supersede) == (1, [], {})


def test_a_fact_already_active_is_reported_not_stored() -> None:
    active = builders.memory("space-1", "The deploy window is Thursday")
    made, _ = plan(0.9, known=active)
    assert (made.memories, made.relations, made.known) == ([], [], [active])


class Memories:
    """The one store call retarget and drop_repeats make: get_memory, from a dict."""

    def __init__(self, *memories: Memory) -> None:
        self.by_id = {m.id: m for m in memories}

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        assert space_id == "space-1"
        return self.by_id.get(memory_id)


def chain(*texts: str) -> list[Memory]:
    """Memories each replaced by the next; the last one is active."""
    made = [builders.memory("space-1", t) for t in texts]
    for n in range(len(made) - 1):
        made[n] = replace(made[n], active=False, invalidated_by=made[n + 1].id, version=n + 1)
    made[-1] = replace(made[-1], version=len(made))
    return made


def update_plan(old: Memory) -> tuple[Plan, Memory, Relation, Relation]:
    new = builders.memory("space-1", "The deploy window is Thursday")
    update = Relation(new.id, old.id, RelationType.UPDATES, new.created_at, "agent", "moved")
    extends = Relation(new.id, "mem-other", RelationType.EXTENDS, new.created_at, "agent", None)
    plan = Plan(memories=[replace(new, version=old.version + 1)], relations=[update, extends],
                supersede={old.id: new.id})
    return plan, new, update, extends


def test_an_update_that_lost_the_race_is_aimed_at_the_head_of_the_chain() -> None:
    old, middle, head = chain("Friday", "Saturday", "Sunday")
    plan, new, update, extends = update_plan(old)
    assert retarget(plan, "space-1", Memories(old, middle, head)) is True  # type: ignore[arg-type]
    assert plan.supersede == {head.id: new.id}
    assert [m.version for m in plan.memories] == [4]
    assert plan.relations == [replace(update, target_id=head.id), extends]
    assert plan.warnings == [f"'{old.id}' changed while this was saved; updated its successor "
                             f"'{head.id}' instead"]


def test_an_update_whose_target_is_still_active_is_left_alone() -> None:
    [old] = chain("Friday")
    plan, new, update, extends = update_plan(old)
    assert retarget(plan, "space-1", Memories(old)) is False  # type: ignore[arg-type]
    assert (plan.supersede, plan.relations, plan.warnings) == ({old.id: new.id}, [update, extends], [])


def test_an_update_already_at_the_head_or_on_a_broken_chain_is_dropped_quietly() -> None:
    old, middle = chain("Friday", "Saturday")
    plan, new, update, _ = update_plan(old)
    broken = Memories(old)  # its successor is gone
    assert retarget(plan, "space-1", broken) is True  # type: ignore[arg-type]
    assert (plan.supersede, plan.warnings, plan.relations[0]) == ({}, [], update)
    plan, new, update, _ = update_plan(old)
    mine = replace(middle, id=new.id)  # the chain already ends at this very write
    assert retarget(plan, "space-1", Memories(replace(old, invalidated_by=new.id), mine)) is True  # type: ignore[arg-type]
    assert (plan.supersede, plan.warnings, [m.version for m in plan.memories]) == ({}, [], [2])


def test_facts_another_add_committed_first_are_reported_as_known_and_not_written() -> None:
    [old_a, old_b] = chain("A"), chain("B")
    repeat, fresh = (builders.memory("space-1", t) for t in ("repeat", "fresh"))
    known = builders.memory("space-1", "repeat")
    plan = Plan(memories=[repeat, fresh],
                relations=[Relation(repeat.id, old_a[0].id, RelationType.UPDATES, BASE, "a"),
                           Relation(fresh.id, old_b[0].id, RelationType.UPDATES, BASE, "a")],
                supersede={old_a[0].id: repeat.id, old_b[0].id: fresh.id})
    drop_repeats(plan, {repeat.content_hash: known.id, "sha-gone": "mem-gone",
                        "sha-same": known.id}, "space-1", Memories(known))  # type: ignore[arg-type]
    assert [m.id for m in plan.memories] == [fresh.id]
    assert [r.source_id for r in plan.relations] == [fresh.id]
    assert plan.supersede == {old_b[0].id: fresh.id}
    assert plan.known == [known]


def test_a_plan_becomes_one_write_batch() -> None:
    memory = builders.memory("space-1", "x")
    plan = Plan(memories=[memory], supersede={"old": memory.id})
    source = ChunkSource("doc-1", 2, "page 3")
    assert plan.batch("space-1", BASE, source) == WriteBatch(
        "space-1", [memory], [], {"old": memory.id}, at=BASE, source=source)


def test_every_fact_is_weighed_past_repeats_known_facts_and_refused_relations() -> None:
    old = builders.memory("space-1", "The deploy window is Friday")
    known = builders.memory("space-1", "Billing runs on Postgres")
    texts = ["The deploy window is Thursday", "Lunch is at noon", "Billing runs on Postgres",
             "Releases need two approvals", old.content]
    vectors = {t: [1.0, 0.0] if "deploy" in t or "approvals" in t else [0.0, 1.0] for t in texts}
    extraction = Extraction((
        fact("Lunch is at noon", x=(0, "updates"), y=(0, "extends")),  # refused, then kept
        fact("Lunch is at noon"),  # a repeat within the answer
        fact("Billing runs on Postgres"),  # already active
        fact("The deploy window is Thursday", gone=(7, "extends"), a=(0, "updates")),
        fact("Releases need two approvals", a=(0, "extends")),
    ))
    asked: list[str] = []

    def find_known(content_hash: str) -> Memory | None:
        asked.append(content_hash)
        return known if content_hash == known.content_hash else None

    made = plan_extraction(extraction, [old],
                           lambda text, category: builders.memory("space-1", text, category=category),
                           lambda batch: [vectors[t] for t in batch], find_known, "agent",
                           floor=MINILM_CALIBRATION.update_floor)
    assert [m.content for m in made.memories] == [
        "Lunch is at noon", "The deploy window is Thursday", "Releases need two approvals"]
    assert [(r.type, r.target_id) for r in made.relations] == [
        (RelationType.EXTENDS, old.id), (RelationType.UPDATES, old.id), (RelationType.EXTENDS, old.id)]
    assert made.known == [known] and len(made.warnings) == 1
    assert len(asked) == 4  # the repeat was not looked up again


def test_only_the_lost_race_is_re_aimed_and_only_its_update() -> None:
    settled, moved_on = chain("Friday")[0], chain("Monday", "Tuesday")
    plan, new, update, extends = update_plan(moved_on[0])
    bystander = builders.memory("space-1", "Standup is at 9:30")
    other_update = Relation(bystander.id, settled.id, RelationType.UPDATES, BASE, "agent")
    plan.memories.append(bystander)
    plan.relations.append(other_update)
    plan.supersede = {settled.id: bystander.id, **plan.supersede}  # the first one still stands
    store = Memories(settled, *moved_on)
    assert retarget(plan, "space-1", store) is True  # type: ignore[arg-type]
    assert plan.supersede == {settled.id: bystander.id, moved_on[1].id: new.id}
    assert [m.version for m in plan.memories] == [3, 1]
    assert plan.relations == [replace(update, target_id=moved_on[1].id), extends, other_update]
