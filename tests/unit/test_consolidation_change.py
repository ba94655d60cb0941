"""A replacement said as a plain add (services/consolidation/change.py): the words that say a
value changed, and how a pass with a model puts such a pair to its second look, which alone may
retire the older memory."""

from __future__ import annotations

import pytest

from memspace.domain.models import RelationType
from memspace.services.consolidation.change import said_changed, states_change
from memspace.services.consolidation.judging import Near, one_subject, with_model
from memspace.services.consolidation.looks import confirm, unlooked
from memspace.services.consolidation.values import names_the_change
from tests.unit.test_consolidation_rules import SAME_FLOOR, UPDATE_FLOOR, answer, compared, memory


@pytest.mark.parametrize("text", [
    "The canteen now opens at 07:00.",
    "The fire drill was moved to Thursday.",
    "Olga took over the print shop.",
    "The van's payload limit went up to 1,600 kg.",
    "The library no longer lends laptops.",
    "The board meeting was pushed back to 3 May.",
    "Since the refit the gym has eight rowing machines.",
    "We switched the wiki from Confluence to Notion.",
    "The parking fee was lowered to £2.",
])
def test_a_text_that_says_a_value_changed_is_read_as_a_change(text: str) -> None:
    assert states_change(text)


@pytest.mark.parametrize("text", [
    "The canteen opens at 07:00.",
    "The on-call rota changes every Monday at 09:00.",  # a schedule, not a change
    "Olga runs the print shop.",
    "The van carries up to 1,400 kg.",
    "Changes to the budget need two signatures.",
    "The longer route avoids the bridge.",
])
def test_a_plain_statement_or_a_schedule_is_not_a_change(text: str) -> None:
    assert not states_change(text)


def test_a_change_needs_a_new_value_of_the_same_thing_close_enough_to_be_one() -> None:
    old = "The nightly reconciliation job runs at 02:30 UTC."
    assert said_changed(old, "The nightly reconciliation job was moved to 04:00 UTC.", 0.9,
                        UPDATE_FLOOR)
    # The words that say the change are no subject swapped for another.
    assert said_changed("The parking fee is £3 a day.", "The parking fee was lowered to £2 a day.",
                        0.9, UPDATE_FLOOR)
    # The same value again, said as news: a restatement, not a replacement.
    assert not said_changed(old, "The nightly reconciliation job now runs at 02:30 UTC.", 0.95,
                            UPDATE_FLOOR)
    # Below the floor: not about the same thing.
    assert not said_changed(old, "The nightly reconciliation job was moved to 04:00 UTC.",
                            0.80, UPDATE_FLOOR)
    # One sentence with a word swapped that is no value: another job, not a new time.
    assert not said_changed(old, "The nightly export job now runs at 04:00 UTC.", 0.93,
                            UPDATE_FLOOR)
    # Close by vector, but nothing in common save the news: another thing altogether.
    assert not said_changed("The Android signing key expires on 2027-08-02.",
                            "Code freeze for Q3 now starts on 19 September.", 0.85, UPDATE_FLOOR)
    # Two subjects that share no word.
    assert not said_changed("The east stairwell is closed on Mondays.",
                            "The north lift is now closed on Fridays.", 0.9, UPDATE_FLOOR)


def test_a_change_the_first_look_missed_is_retired_only_when_the_second_look_agrees() -> None:
    old = memory("The nightly reconciliation job runs at 02:30 UTC.", 0)
    new = memory("The nightly reconciliation job was moved to 04:00 UTC.", 9)
    for first_look in (answer(), answer((0, RelationType.EXTENDS))):
        first = one_subject(with_model(new, [Near(old, 0.9)], [0], first_look, UPDATE_FLOOR,
                                       SAME_FLOOR), [Near(old, 0.9)])
        assert [m.id for m in first.retired] == [old.id]
        assert first.replaced == {old.id} and first.unsure == {old.id} and not first.links
        # Without a second look it is queued as a possible replacement, never retired.
        alone = unlooked(first)
        assert not alone.retired and [(q[1].id, q[2]) for q in alone.queue] == [
            (old.id, "replacement")]
        agreed = confirm(first, [old], compared(old, still_true=False, relation="updates",
                                                changed=True))
        assert [m.id for m in agreed.retired] == [old.id] and old.id in agreed.replaced
        # Two values named on one subject, the older said to hold still: the newer's own words
        # report the change, so the three readings agree.
        named = confirm(first, [old], compared(old, changed=True, memory_says="02:30 UTC",
                                                fact_says="04:00 UTC"))
        assert [m.id for m in named.retired] == [old.id] and old.id in named.replaced
        unnamed = confirm(first, [old], compared(old))
        assert not unnamed.retired and unnamed.queue[0][2] == "replacement"
        other = confirm(first, [old], compared(old, same_subject=False, changed=True))
        assert not other.retired and not other.queue


def test_an_update_said_in_words_needs_only_the_values_of_the_second_look() -> None:
    old = memory("Bread orders go to Nadia.", 0)
    said = memory("Karim took over the bread orders.", 9)
    plain = memory("Karim handles the bread orders.", 9)
    # Two values named, "the older still holds".
    looks = compared(old, changed=True, memory_says="Nadia", fact_says="Karim")
    for new, retired in ((said, True), (plain, False)):
        first = with_model(new, [Near(old, 0.9)], [0], answer((0, RelationType.UPDATES)),
                           UPDATE_FLOOR, SAME_FLOOR)
        assert first.retired and (old.id in first.said) is retired
        second = confirm(first, [old], looks)
        assert bool(second.retired) is retired and bool(second.queue) is not retired


def test_the_values_named_for_a_change_must_be_those_the_texts_differ_by() -> None:
    old = memory("Late returns are paid at the front desk by card.", 0)
    new = memory("Books returned more than 14 days late are now charged a flat fine.", 9)
    first = with_model(new, [Near(old, 0.9)], [0], answer((0, RelationType.UPDATES)),
                       UPDATE_FLOOR, SAME_FLOOR)
    # "now" reports a change, but the model named a value the newer does not differ by: a
    # fact beside the older one, not its new value. A person decides.
    beside = confirm(first, [old], compared(old, changed=True, memory_says="by card",
                                            fact_says="a flat fine"))
    assert not beside.retired and beside.queue[0][1].id == old.id


@pytest.mark.parametrize(("old_named", "new_named", "named"), [
    ("Sentry", "Datadog", True),
    ("Sentry is the error tracker", "tracked in Datadog", True),  # whole phrases name them too
    ("error tracker", "Datadog", False),  # the older's value is not named
    ("Sentry", "now tracked", False),  # nor the newer's
])
def test_a_change_is_named_by_the_values_only_one_side_states(old_named: str, new_named: str,
                                                              named: bool) -> None:
    assert names_the_change("Sentry is the error tracker.",
                            "Backend errors are now tracked in Datadog.", old_named,
                            new_named) is named


def test_a_different_value_said_without_a_change_is_left_as_before() -> None:
    # "Unleash" beside "LaunchDarkly" with no word of a change: a contradiction or a mistake as
    # often as a change; the first look's silence leaves it (the flat pass queues such pairs).
    old = memory("Feature flags are managed in LaunchDarkly.", 0)
    new = memory("Feature flags are managed in Unleash.", 9)
    verdict = with_model(new, [Near(old, 0.93)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR)
    assert not verdict.retired and not verdict.queue and not verdict.links
