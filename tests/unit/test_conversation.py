"""A memory continuing a conversation links to the one before, and (feature `context`) is searched
with its question (services/memories/conversation.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest

from memspace.domain.models import Memory
from memspace.present.json import search_json
from memspace.services.memories.conversation import CONTEXT_CHARS, TURN_GAP, _apart
from memspace.services.search.search import SearchRequest
from tests.unit.conftest import World, _world


@pytest.fixture
def world() -> Iterator[World]:
    """Flat mode with every conversation feature on, `context` included (off by default)."""
    made = _world(None, features="all")
    yield made
    made.app.close()


def _stored(world: World, memory_id: str) -> Memory:
    space = world.app.store.directory.get_space_by_slug("acme")
    found = world.app.store.reads.get_memory(space.id, memory_id)  # type: ignore[union-attr]
    assert found is not None
    return found


def test_the_next_save_of_the_same_writer_is_read_with_the_turn_before(world: World) -> None:
    who = world.principal({"acme": "rw"})
    asked = world.app.memories.add(who, "Melanie: How was the support group?",
                                   speaker="Melanie").memories[0]
    reply = world.app.memories.add(who, "Caroline: Powerful, I will go again.",
                                   speaker="Caroline").memories[0]
    assert _stored(world, reply.id).context == "Melanie: How was the support group?"
    assert _stored(world, reply.id).content == "Caroline: Powerful, I will go again."
    assert _stored(world, reply.id).follows == asked.id
    assert _stored(world, asked.id).follows is None


def test_another_writer_or_a_document_does_not_continue_the_conversation(world: World) -> None:
    alice, bob = world.principal({"acme": "rw"}, "alice"), world.principal({"acme": "rw"}, "bob")
    world.app.memories.add(alice, "Alice: the deploy is at five", speaker="Alice")
    first = world.app.memories.add(bob, "Bob: lunch is at noon", speaker="Bob").memories[0]
    assert _stored(world, first.id).context is None
    assert _stored(world, first.id).follows is None


def test_saves_without_a_speaker_follow_each_other_but_are_not_read_with_each_other(
        world: World) -> None:
    # A chat logged as plain "<name>: <text>" lines is still a conversation: the link lets a
    # line whose neighbour matched be lifted. Only turns (with a speaker) take the words of the
    # turn before: a fact stands on its own.
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "The deploy window is Friday at five").memories[0]
    fact = world.app.memories.add(who, "Billing runs on Postgres 16").memories[0]
    turn = world.app.memories.add(who, "Sure, can you do it?", speaker="Bo").memories[0]
    assert _stored(world, fact.id).follows == first.id
    assert _stored(world, fact.id).context is None
    assert _stored(world, turn.id).follows == fact.id
    assert _stored(world, turn.id).context is None  # the memory before it is not a turn
    reply = world.app.memories.add(who, "Yes, tomorrow.", speaker="Ana").memories[0]
    assert _stored(world, reply.id).context == "Sure, can you do it?"


def test_turns_observed_far_apart_are_separate_conversations(world: World) -> None:
    who = world.principal({"acme": "rw"})
    day = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    first = world.app.memories.add(who, "Caroline: I went to a support group. Guess where?",
                                   speaker="Caroline", observed_at=day).memories[0]
    same = world.app.memories.add(who, "Melanie: wow, where?", speaker="Melanie",
                                  observed_at=day).memories[0]
    later = world.app.memories.add(who, "Melanie: hi again", speaker="Melanie",
                                   observed_at=day + TURN_GAP * 2).memories[0]
    assert _stored(world, same.id).context == "Guess where?"
    assert _stored(world, same.id).follows == first.id
    assert _stored(world, later.id).context is None
    assert _stored(world, later.id).follows is None


def test_a_turn_is_read_with_the_last_question_before_it_and_not_with_a_statement(
        world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "user: We brought our puppy home today. She is a beagle.",
                           speaker="user")
    reply = world.app.memories.add(who, "assistant: Congratulations! Crate training helps. "
                                   "Have you picked a name? Tell me.", speaker="assistant")
    answer = world.app.memories.add(who, "user: Pepper!", speaker="user").memories[0]
    stored = _stored(world, reply.memories[0].id)
    assert stored.context is None  # a statement adds words the reply does not need
    assert stored.follows is not None  # but it is still the turn before
    assert _stored(world, answer.id).context == "Have you picked a name?"


def test_a_long_turn_before_is_kept_by_its_end(world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "x" * 150 + " the question at the end?", speaker="Ana")
    reply = world.app.memories.add(who, "an answer", speaker="Bo").memories[0]
    context = _stored(world, reply.id).context
    assert context is not None and context.endswith("the question at the end?")
    assert len(context) <= CONTEXT_CHARS + 1


def test_a_turn_is_searched_by_its_own_vector_embedded_once(world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Melanie: How was the support group?", speaker="Melanie")
    texts: list[list[str]] = []
    embed = world.embedder.embed

    def spy(batch: list[str]) -> list[list[float]]:
        texts.append(list(batch))
        return embed(batch)

    world.embedder.embed = spy  # type: ignore[method-assign]
    reply = world.app.memories.add(who, "Caroline: Powerful!", speaker="Caroline").memories[0]
    stored = _stored(world, reply.id)
    assert stored.context == "Melanie: How was the support group?"
    # the context is for the full-text terms and the neighbour lift, not the vector
    assert texts == [["Caroline: Powerful!"]]
    [alone] = embed(["Caroline: Powerful!"])
    [nearest] = world.app.store.search.nearest_active(stored.space_id, alone, 1, 0.0)
    assert nearest.memory.id == reply.id and nearest.score == pytest.approx(1.0)


def test_speaker_and_observed_at_are_kept_in_flat_mode_and_shown(world: World) -> None:
    who = world.principal({"acme": "rw"})
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC) + timedelta(hours=2)
    world.app.memories.add(who, "I went to a support group yesterday", speaker="Caroline",
                           observed_at=when)
    [hit] = search_json(world.app.search.search(who, SearchRequest(query="support group")))["results"]
    assert hit["speaker"] == "Caroline"
    assert datetime.fromisoformat(hit["observedAt"]) == when


# The README's turn gap, written out (not services/memories/conversation.py's TURN_GAP), so that changing
# the constant fails here until the README says the new number.
README_TURN_GAP_MINUTES = 30


@pytest.mark.parametrize("minutes, continues", [(README_TURN_GAP_MINUTES - 1, True),
                                                (README_TURN_GAP_MINUTES + 1, False)])
def test_a_save_29_minutes_after_the_last_continues_it_and_31_minutes_does_not(
    world: World, minutes: int, continues: bool,
) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Ana: is the deploy today?", speaker="Ana").memories[0]
    assert world.clock is not None
    world.clock.advance(timedelta(minutes=minutes))
    reply = world.app.memories.add(who, "Bo: yes, at five", speaker="Bo").memories[0]
    assert (_stored(world, reply.id).follows == first.id) is continues


@pytest.mark.parametrize("minutes, continues", [(README_TURN_GAP_MINUTES - 1, True),
                                                (README_TURN_GAP_MINUTES + 1, False)])
def test_turns_observed_29_minutes_apart_are_one_conversation_and_31_minutes_two(
    world: World, minutes: int, continues: bool,
) -> None:
    # saved back to back (an import of a chat log): only when they were observed counts
    who = world.principal({"acme": "rw"})
    day = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    first = world.app.memories.add(who, "Ana: is the deploy today?", speaker="Ana",
                                   observed_at=day).memories[0]
    reply = world.app.memories.add(who, "Bo: yes, at five", speaker="Bo",
                                   observed_at=day + timedelta(minutes=minutes)).memories[0]
    assert (_stored(world, reply.id).follows == first.id) is continues
    # the gap counts either way round: observed `minutes` before the turn it would continue
    earlier = world.app.memories.add(who, "Cy: and me?", speaker="Cy", observed_at=day).memories[0]
    assert (_stored(world, earlier.id).follows == reply.id) is continues


def test_turns_observed_exactly_30_minutes_apart_are_one_conversation() -> None:
    day = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert not _apart(day, day + timedelta(minutes=README_TURN_GAP_MINUTES))
    assert _apart(day, day + timedelta(minutes=README_TURN_GAP_MINUTES, seconds=1))


def test_observed_times_compare_across_offsets_and_a_time_without_one_is_utc() -> None:
    at_noon_utc = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)
    two_hours_east = timezone(timedelta(hours=2))
    assert not _apart(datetime(2023, 5, 8, 14, 10, tzinfo=two_hours_east), at_noon_utc)  # 10 min
    assert _apart(datetime(2023, 5, 8, 12, 10, tzinfo=two_hours_east), at_noon_utc)  # 110 min
    assert not _apart(datetime(2023, 5, 8, 12, 10), at_noon_utc)  # no offset: read as UTC
    assert _apart(datetime(2023, 5, 8, 13, 0), at_noon_utc)


def test_a_turn_without_an_observed_time_is_not_kept_apart_by_it() -> None:
    day = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert not _apart(None, day) and not _apart(day, None) and not _apart(None, None)
