"""plan_extraction's guards, on vectors chosen for the case (the hashing embedder cannot say how
similar two texts are, so the UPDATES floor of 0.40 is pinned here, literally, and measured in
tests/integration/test_update_floor.py with the real model)."""

from __future__ import annotations

import math

import pytest

from memspace.domain.models import Memory, RelationType
from memspace.domain.ports import Extraction
from memspace.services.reconcile import Plan, plan_extraction
from tests.support import builders
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
        lambda _hash: known, "agent")
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
        "Friday', but they look unrelated (similarity 0.39 < 0.4)"]


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
