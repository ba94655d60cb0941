"""The consolidation pass's rules (services/consolidation/values.py, judging.py): what code
compares, and when a group's memory may be retired without a person."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from memspace.domain.extraction import Candidate, Comparison, ExtractedFact, ExtractedRelation, Extraction
from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory, RelationType, Usage
from memspace.domain.text import content_hash
from memspace.services.consolidation.judging import (
    Judged,
    Near,
    Verdict,
    keeper,
    one_subject,
    protected,
    restates,
    with_model,
    without_model,
)
from memspace.services.consolidation.looks import confirm, second_look, unlooked
from memspace.services.consolidation.pass_types import PassParts
from memspace.services.consolidation.values import (
    other_subjects,
    read,
    same_text,
    subject_terms,
    swapped,
    swaps_subject,
    values_agree,
    values_differ,
)

T0 = datetime(2026, 3, 1, tzinfo=UTC)
UPDATE_FLOOR, SAME_FLOOR = 0.84, 0.92


def memory(text: str, minutes: int = 0, **kw: object) -> Memory:
    base = Memory(id=f"m{abs(hash((text, minutes))) % 10**8:08d}", space_id="s", content=text,
                  category="fact", embedding=None, active=True,
                  created_at=T0 + timedelta(minutes=minutes), created_by="agent",
                  content_hash=content_hash(text))
    return replace(base, **kw)  # type: ignore[arg-type]


def answer(*relations: tuple[int, RelationType], contradicts: tuple[int, ...] = ()) -> Judged:
    fact = ExtractedFact("the note", "fact",
                         tuple(ExtractedRelation(n, t, "why") for n, t in relations),
                         contradicts=tuple((n, "they disagree") for n in contradicts))
    return Judged.of(Extraction((fact,)))


# -- values --------------------------------------------------------------------------------


def test_names_numbers_days_and_identifiers_are_values_and_function_words_are_not() -> None:
    values = read("The payments API runs on port 8443 in eu-west-1 since Tuesday, says Maria.").values
    assert {"8443", "eu-west-1", "tuesday", "maria", "api"} <= values
    assert "the" not in values and "runs" not in values and "payment" not in values


def test_another_owner_or_number_differs_and_a_paraphrase_with_the_same_values_agrees() -> None:
    assert values_differ("Maria owns the payments service.", "Tom owns the payments service.")
    assert values_differ("The build takes 12 minutes.", "The build takes 7 minutes.")
    assert not values_differ("Maria owns payments.", "Payments are owned by Maria.")
    assert values_agree("Deploys happen on Fridays at 16:00.", "We deploy every Friday, 16:00.")
    assert values_agree("The cluster has three nodes.", "There are 3 nodes in the cluster.")


def test_one_side_saying_more_neither_differs_nor_agrees() -> None:
    old, new = "Maria owns payments.", "Maria owns payments and the Stripe integration."
    assert not values_differ(old, new)
    assert not values_agree(old, new)


def test_a_word_swapped_in_one_sentence_is_found_and_a_paraphrase_has_none() -> None:
    staging = "The staging cluster runs in the eu-west-1 region."
    assert swapped(staging, "The production cluster runs in the eu-west-1 region.") == {
        "staging", "production"}
    assert swaps_subject(staging, "The production cluster runs in the eu-west-1 region.")
    # A new value in the same sentence is a swap of values, not of what it is about.
    assert not swaps_subject("Releases go out every Tuesday.", "Releases go out every Thursday.")
    assert not swapped("Maria owns payments.", "Payments are owned by Maria.")
    assert not swapped(staging, "The staging cluster runs in the eu-west-1 region, since May.")


def test_same_text_ignores_case_spacing_and_punctuation_only() -> None:
    assert same_text("Deploys freeze on Fridays.", "deploys  freeze on fridays")
    assert not same_text("Deploys freeze on Fridays.", "Deploys freeze on Thursdays.")


# -- without a model -----------------------------------------------------------------------


def test_without_a_model_only_the_same_text_of_the_same_type_folds() -> None:
    old, same = memory("Deploys freeze on Fridays.", 0), memory("deploys freeze on fridays", 5)
    paraphrase = memory("No deploys go out on a Friday.", 1)
    verdict = without_model(same, [Near(old, 0.99), Near(paraphrase, 0.93)])
    assert [m.id for m in verdict.retired] == [old.id]
    assert [(q[1].id, q[2]) for q in verdict.queue] == [(paraphrase.id, "restatement")]


def test_without_a_model_different_values_are_queued_as_a_possible_replacement() -> None:
    old, new = memory("Maria owns payments.", 0), memory("Tom owns payments.", 5)
    verdict = without_model(new, [Near(old, 0.97)])
    assert not verdict.retired
    assert [q[2] for q in verdict.queue] == ["replacement"]


def test_a_lookalike_with_the_same_values_is_never_folded_with_or_without_a_model() -> None:
    old = memory("The staging cluster runs in the eu-west-1 region.", 0)
    new = memory("The production cluster runs in the eu-west-1 region.", 9)
    flat = without_model(new, [Near(old, 0.97)])
    assert not flat.retired and [q[2] for q in flat.queue] == ["replacement"]
    modelled = with_model(new, [Near(old, 0.97)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR)
    assert not modelled.retired and not modelled.queue
    said_update = with_model(new, [Near(old, 0.97)], [0], answer((0, RelationType.UPDATES)),
                             UPDATE_FLOOR, SAME_FLOOR)
    assert not said_update.retired and "another thing" in said_update.queue[0][3]


def test_the_same_text_of_another_type_is_not_folded() -> None:
    old = memory("Use Postgres 16.", 0, type=MemoryType.DECISION)
    new = memory("Use Postgres 16.", 5, type=MemoryType.NOTE)
    assert not without_model(new, [Near(old, 1.0)]).retired


def test_protected_memories_are_queued_even_when_the_text_is_the_same() -> None:
    for kw in ({"canonical": True}, {"importance": 5}, {"type": MemoryType.CONSTRAINT}):
        old = memory("Keep PII in eu-west-1.", 0, **kw)
        new = memory("Keep PII in eu-west-1.", 5, type=old.type)
        verdict = without_model(new, [Near(old, 1.0)])
        assert not verdict.retired, kw
        assert protected(old) is not None and "not applied because" in verdict.queue[0][3]


# -- with a model --------------------------------------------------------------------------


def test_a_model_update_with_a_changed_value_retires_the_older_as_replaced() -> None:
    old, new = memory("Releases go out every Tuesday.", 0), memory("Releases now go out on Thursday.", 9)
    verdict = with_model(new, [Near(old, 0.9)], [0], answer((0, RelationType.UPDATES)),
                         UPDATE_FLOOR, SAME_FLOOR)
    assert [m.id for m in verdict.retired] == [old.id] and old.id in verdict.replaced
    assert verdict.keep.id == new.id


def test_a_model_update_with_no_value_changed_or_below_the_floor_is_queued() -> None:
    old, new = memory("Maria owns payments.", 0), memory("Payments belong to Maria.", 9)
    verdict = with_model(new, [Near(old, 0.90)], [0], answer((0, RelationType.UPDATES)),
                         UPDATE_FLOOR, SAME_FLOOR)
    assert not verdict.retired and verdict.queue[0][2] == "replacement"
    far_old, far_new = memory("Maria owns payments.", 0), memory("Tom owns billing.", 9)
    verdict = with_model(far_new, [Near(far_old, 0.80)], [0], answer((0, RelationType.UPDATES)),
                         UPDATE_FLOOR, SAME_FLOOR)
    assert not verdict.retired


def test_no_relation_folds_only_the_same_values_above_the_same_floor() -> None:
    old, new = memory("Maria owns payments.", 0), memory("Payments are owned by Maria.", 9)
    assert with_model(new, [Near(old, 0.95)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR).retired
    assert not with_model(new, [Near(old, 0.90)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR).retired
    lookalike = memory("Tom owns payments.", 9)
    verdict = with_model(lookalike, [Near(old, 0.97)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR)
    assert not verdict.retired and not verdict.queue


def test_a_first_look_relation_on_one_fact_said_twice_is_left_to_the_second_look() -> None:
    old, new = memory("Maria owns payments.", 0), memory("Payments belong to Maria.", 9)
    for said in (RelationType.UPDATES, RelationType.EXTENDS):
        first = with_model(new, [Near(old, 0.95)], [0], answer((0, said)), UPDATE_FLOOR,
                           SAME_FLOOR)
        # Code reads one fact said twice: a restatement, unsure until the second look says so.
        assert [m.id for m in first.retired] == [old.id] and first.unsure == {old.id}
        assert not first.replaced and not first.links
        assert confirm(first, [old], compared(old)).retired
        assert not confirm(first, [old], compared(old, changed=True)).retired
        # With no second look to ask, it is queued, never retired on code's reading alone.
        alone = unlooked(first)
        assert not alone.retired and alone.queue[0][1].id == old.id
        assert alone.queue[0][2] == "restatement"
    lookalike = memory("Tom owns payments.", 9)
    verdict = with_model(lookalike, [Near(old, 0.97)], [0], answer((0, RelationType.EXTENDS)),
                         UPDATE_FLOOR, SAME_FLOOR)
    # Values differ: never one fact, nor an extension on the first look's word alone.
    assert not verdict.retired and not verdict.links and not verdict.queue


def test_extends_and_derives_become_links_and_contradictions_are_queued() -> None:
    a, b, c = memory("Maria owns payments.", 0), memory("Payments run on Kafka.", 1), \
        memory("Payments use Stripe.", 2)
    new = memory("Maria owns payments, which settle through Stripe nightly.", 9)
    verdict = with_model(new, [Near(a, 0.9), Near(b, 0.9), Near(c, 0.9)], [0, 1, 2],
                         answer((0, RelationType.EXTENDS), (2, RelationType.DERIVES),
                                contradicts=(1,)), UPDATE_FLOOR, SAME_FLOOR)
    assert [(s.id, t.id, k) for s, t, k, _ in verdict.links] == [
        (new.id, a.id, RelationType.EXTENDS), (new.id, c.id, RelationType.DERIVES)]
    assert [q[1].id for q in verdict.queue] == [b.id] and not verdict.retired


def test_a_decision_the_model_says_is_replaced_goes_to_the_queue() -> None:
    old = memory("We deploy with Jenkins.", 0, type=MemoryType.DECISION)
    new = memory("We deploy with GitHub Actions now.", 9, type=MemoryType.DECISION)
    verdict = with_model(new, [Near(old, 0.9)], [0], answer((0, RelationType.UPDATES)),
                         UPDATE_FLOOR, SAME_FLOOR)
    assert not verdict.retired and "decision" in verdict.queue[0][3]


def test_a_restatement_keeps_the_more_complete_memory() -> None:
    full = memory("Maria owns payments and the Stripe integration since 2025.", 0)
    short = memory("Maria owns payments and the Stripe integration.", 9)
    # No value of either contradicts the other, so the shorter, newer one folds into the one
    # that says more (keeper): nothing the space knew is lost.
    verdict = keeper(with_model(short, [Near(full, 0.97)], [0], answer(), UPDATE_FLOOR,
                                SAME_FLOOR))
    assert verdict.keep.id == full.id and [m.id for m in verdict.retired] == [short.id]


def compared(memory_: Memory, **kw: object) -> dict[str, Comparison]:
    fields: dict[str, object] = {"number": 0, "same_subject": True, "still_true": True,
                                 "relation": "none", "changed": False, **kw}
    return {memory_.id: Comparison(**fields)}  # type: ignore[arg-type]


def test_the_second_look_confirms_a_restatement_only_on_the_same_subject() -> None:
    old = memory("Customer support works from Zendesk.", 0)
    new = memory("Support tickets are handled in Zendesk.", 9)
    first = with_model(new, [Near(old, 0.96)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR)
    assert first.retired  # the first look alone would fold them
    assert not confirm(first, [old], compared(old, same_subject=False)).retired
    assert not confirm(first, [old], compared(old, same_subject=False)).queue
    assert confirm(first, [old], compared(old)).retired
    disagrees = confirm(first, [old], compared(old, still_true=False, relation="updates"))
    assert not disagrees.retired and disagrees.queue[0][2] == "restatement"
    unanswered = confirm(first, [old], {})
    assert not unanswered.retired and "no answer" in unanswered.queue[0][3]


def test_the_second_look_confirms_a_replacement_only_with_a_change_it_can_name() -> None:
    old, new = memory("Releases go out every Tuesday.", 0), memory("Releases go out on Thursday.", 9)
    first = with_model(new, [Near(old, 0.9)], [0], answer((0, RelationType.UPDATES)),
                       UPDATE_FLOOR, SAME_FLOOR)
    assert first.retired
    kept = confirm(first, [old], compared(old, still_true=False, relation="updates", changed=True))
    assert [m.id for m in kept.retired] == [old.id] and old.id in kept.replaced
    unnamed = confirm(first, [old], compared(old, still_true=False, relation="updates"))
    assert not unnamed.retired and unnamed.queue[0][2] == "replacement"
    # Two values named but the older said to hold still: the model is unsure, a person decides.
    unsure = confirm(first, [old], compared(old, changed=True))
    assert not unsure.retired and unsure.queue[0][1].id == old.id
    assert unsure.queue[0][2] == "replacement"
    other = confirm(first, [old], compared(old, same_subject=False, changed=True))
    assert not other.retired and not other.queue


def test_a_link_holds_only_where_the_second_look_reads_one_subject() -> None:
    old = memory("The iOS build signing certificate expires on 2026-03-14.", 0)
    new = memory("The Android upload key certificate expires on 2027-08-02.", 9)
    first = with_model(new, [Near(old, 0.94)], [0], answer((0, RelationType.DERIVES)),
                       UPDATE_FLOOR, SAME_FLOOR)
    assert [(s.id, t.id) for s, t, _, _ in first.links] == [(new.id, old.id)]
    # A look-alike about another thing: not linked, not queued, nothing retired.
    other = confirm(first, [old], compared(old, same_subject=False, changed=True))
    assert not other.links and not other.queue and not other.retired
    assert not confirm(first, [old], {}).links  # no answer: left unlinked
    assert confirm(first, [old], compared(old)).links == first.links
    assert confirm(first, [], {}).links == first.links  # not asked: the first look stands


class RecordingComparer:
    """Answers "one subject, still true, nothing changed" and records what each call showed."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def compare(self, fact: str, memories: list[Candidate]) -> tuple[list[Comparison], Usage]:
        self.calls.append([c.content for c in memories])
        return [Comparison(c.number, True, True, "none", False) for c in memories], Usage()


def test_links_are_looked_at_in_a_call_of_their_own_after_the_retirements() -> None:
    restated, lookalike = memory("Support works from Zendesk.", 0), memory("Sales use HubSpot.", 1)
    new = memory("Support tickets are handled in Zendesk.", 9)
    verdict = Verdict(new)
    verdict.retires(restated, "says the same fact")
    verdict.links.append((new, lookalike, RelationType.DERIVES, "follows"))
    comparer = RecordingComparer()
    parts = PassParts(None, None, None, comparer=comparer)  # type: ignore[arg-type]

    looked, _ = second_look(parts, verdict, [Near(restated, 0.95), Near(lookalike, 0.9)])

    # The retirement's look sees only what would be retired, as it did before links had one.
    assert comparer.calls == [[restated.content], [lookalike.content]]
    assert looked.retired == [restated] and looked.links == verdict.links


def test_a_newer_memory_replaces_one_fact_and_the_lookalike_beside_it_is_queued() -> None:
    old = memory("The nightly reconciliation job runs at 02:30 UTC.", 0)
    lookalike = memory("The nightly analytics export job runs at 02:30 UTC.", 1)
    new = memory("The nightly reconciliation job was moved to 04:00 UTC.", 9)
    first = with_model(new, [Near(old, 0.93), Near(lookalike, 0.88)], [0, 1],
                       answer((0, RelationType.UPDATES), (1, RelationType.UPDATES)),
                       UPDATE_FLOOR, SAME_FLOOR)
    assert {m.id for m in first.retired} == {old.id, lookalike.id}
    kept = one_subject(first, [Near(old, 0.93), Near(lookalike, 0.88)])
    assert [m.id for m in kept.retired] == [old.id]
    assert [q[1].id for q in kept.queue] == [lookalike.id]
    # Restatements of the one old fact go together.
    again = memory("The reconciliation job runs nightly at 02:30 UTC.", 2)
    both = Verdict(new)
    both.retires(old, "r", True)
    both.retires(again, "r", True)
    assert len(one_subject(both, [Near(old, 0.93), Near(again, 0.9)]).retired) == 2


def test_a_memory_that_replaced_a_fact_when_written_does_not_replace_another_one() -> None:
    written = memory("The nightly reconciliation job runs at 02:30 UTC.", 0)
    lookalike = memory("The nightly analytics export job runs at 02:30 UTC.", 1)
    new = memory("The nightly reconciliation job was moved to 04:00 UTC.", 9)
    verdict = with_model(new, [Near(lookalike, 0.88)], [0], answer((0, RelationType.UPDATES)),
                         UPDATE_FLOOR, SAME_FLOOR)
    assert [m.id for m in verdict.retired] == [lookalike.id]
    # Its add already replaced the reconciliation job's memory: the analytics job is another.
    kept = one_subject(verdict, [Near(lookalike, 0.88)], before=[written])
    assert not kept.retired and [q[1].id for q in kept.queue] == [lookalike.id]
    again = memory("The reconciliation job runs every night at 02:30 UTC.", 2)
    restated = with_model(new, [Near(again, 0.9)], [0], answer((0, RelationType.UPDATES)),
                          UPDATE_FLOOR, SAME_FLOOR)
    assert one_subject(restated, [Near(again, 0.9)], before=[written]).retired


def test_what_a_memory_replaced_when_written_counts_only_when_it_said_other_values() -> None:
    # At its add the newest "replaced" the same new threshold said a moment before (the model
    # called a restatement an update): that names no old fact, so the closest one is replaced.
    said_before = memory("The manual review threshold for transfers was lowered to 5,000 EUR.", 5)
    old = memory("The risk team manually reviews any transfer over 10,000 EUR.", 0)
    new = memory("Transfers above 5,000 EUR now go to the risk team for manual review.", 9)
    verdict = with_model(new, [Near(old, 0.92)], [0], answer((0, RelationType.UPDATES)),
                         UPDATE_FLOOR, SAME_FLOOR)
    kept = one_subject(verdict, [Near(old, 0.92)], before=[said_before])
    assert [m.id for m in kept.retired] == [old.id] and not kept.queue


def test_between_the_two_floors_only_the_same_values_fold() -> None:
    old = memory("Alembic writes the database migrations.", 0)
    agree = memory("Database migrations are written with Alembic.", 9)
    says_more = memory("Database migrations are written with Alembic and run in CI.", 9)
    assert restates(old, agree, 0.89, SAME_FLOOR, 0.88)
    assert not restates(old, agree, 0.87, SAME_FLOOR, 0.88)
    premise = memory("All mobile traffic goes through the BFF.", 0)
    conclusion = memory("So the BFF has to consume ledger.balance.v1 to show balances.", 9)
    assert not restates(premise, conclusion, 0.90, SAME_FLOOR, 0.88)
    assert restates(old, says_more, 0.93, SAME_FLOOR, 0.88) == (not swapped(
        old.content, says_more.content))


def test_two_sentences_about_two_things_are_never_one_fact() -> None:
    stairwell = "The east stairwell is closed for painting on Monday mornings."
    lift = "The north lift is closed for servicing every Monday morning."
    assert subject_terms(stairwell) == frozenset({"east", "stairwel"})
    assert other_subjects(stairwell, lift)
    assert not swapped(stairwell, lift)  # not one sentence with a word swapped: read apart
    # The same thing, said another way: its subject shares a word.
    assert not other_subjects(stairwell, "On Monday mornings the east stairwell is painted.")
    # No auxiliary, or nothing before it: no subject read, no refusal.
    assert subject_terms("Painters close the east stairwell on Mondays.") is None
    assert not other_subjects(stairwell, "Painters close the east stairwell on Mondays.")
    # However close the model and the vectors put them, they are not folded.
    old, new = memory(stairwell, 0), memory(lift, 9)
    assert not restates(old, new, 0.97, SAME_FLOOR, 0.88)
    verdict = with_model(new, [Near(old, 0.97)], [0], answer(), UPDATE_FLOOR, SAME_FLOOR)
    assert not verdict.retired

