"""What the model is asked about a group (docs/consolidation.md#what-it-decides-and-how): the
extraction call (the group's newest memory as the note, the others as the numbered existing
memories), the rules of judging.py over its answer, then the second look (the relate prompt)
at each memory the group would retire, and what its answers let stand (`confirm`). Without a
model, the rules alone."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import Candidate, Comparison, FactComparer
from memspace.domain.models import Memory, RelationType, Usage
from memspace.services.consolidation.judging import (
    Judged,
    Near,
    Verdict,
    exact,
    keeper,
    one_subject,
    with_model,
    without_model,
)
from memspace.services.consolidation.pass_types import PassParts
from memspace.services.consolidation.values import names_the_change

log = logging.getLogger(__name__)

# How close two memories must be for a model's "no relation" to fold them: "the same fact"
# rather than "about the same thing". Between the UPDATES floor and 1, as a share of the
# distance: halfway when no value of either contradicts the other (0.92 for e5-small-v2), a
# quarter when both state exactly the same values (0.88). Chosen on the tune split,
# bench/data/consolidation_tune.jsonl: in between, pairs with one side saying more were as often
# a conclusion and its premise as one fact (docs/consolidation.md).
SAME_SHARE = 0.5
AGREE_SHARE = 0.25


def judge(parts: PassParts, pass_id: str, newest: Memory,
          group: list[Near]) -> tuple[Verdict, Usage]:
    """A group's verdict and what the model cost."""
    if parts.extractor is None:
        return without_model(newest, group), Usage()
    floor = parts.embedder.calibration.update_floor
    same_floor = floor + (1.0 - floor) * SAME_SHARE
    agree_floor = floor + (1.0 - floor) * AGREE_SHARE
    asked = [i for i, n in enumerate(group) if not exact(newest, n)]
    if not asked:
        return with_model(newest, group, asked, Judged({}, {}), floor, same_floor), Usage()
    offered = [Candidate(number, group[i].memory.content, group[i].memory.category,
                         group[i].memory.created_at) for number, i in enumerate(asked)]
    try:
        extraction = parts.extractor.extract(newest.content, offered, newest.speaker,
                                             newest.observed_at)
    except ExtractionFailed as exc:
        log.info("consolidation %s: the model failed on a group (%s); left for the next pass",
                 pass_id, exc.message)
        return Verdict(newest), exc.usage
    judged = Judged.of(extraction)
    verdict = with_model(newest, group, asked, judged, floor, same_floor, agree_floor)
    verdict = one_subject(verdict, group, replaced_before(parts, newest) if verdict.replaced else [])
    if log.isEnabledFor(logging.DEBUG):  # what bench/consolidation_eval.py --explain prints
        log.debug("group of %s: %s; model %s; would retire %s, queue %s", newest.id[:8],
                  [(n.memory.id[:8], round(n.similarity, 3)) for n in group],
                  {group[asked[k]].memory.id[:8]: (r[0].value, r[1])
                   for k, r in judged.relations.items() if 0 <= k < len(asked)},
                  [m.id[:8] for m in verdict.retired], [q[1].id[:8] for q in verdict.queue])
    looked, spent = second_look(parts, verdict, group)
    return keeper(looked), extraction.usage + spent


def replaced_before(parts: PassParts, newest: Memory) -> list[Memory]:
    """The memories `newest` already replaced when it was written (its own UPDATES edges)."""
    space = newest.space_id
    ids = [r.target_id for r in parts.store.relations.relations_of(space, newest.id)
           if r.type is RelationType.UPDATES and r.source_id == newest.id]
    return [m for m in parts.store.reads.get_memories(space, ids)] if ids else []


def second_look(parts: PassParts, verdict: Verdict,
                group: list[Near]) -> tuple[Verdict, Usage]:
    """Ask the model once more about each memory the group would retire (the same text needs
    no look), then, in a call of their own, about each it would link to: a small model's answer
    on one memory shifts with the others it is shown beside, so what a retirement's look sees
    does not depend on the links proposed. Without a comparer the first answer stands."""
    comparer = parts.comparer
    plain = {n.memory.id for n in group if exact(verdict.keep, n)}
    checked = [m for m in verdict.retired if m.id not in plain]
    retiring = {m.id for m in checked}
    linked = [target for _, target, _, _ in verdict.links if target.id not in retiring]
    if comparer is None or not (checked or linked):
        return unlooked(verdict), Usage()
    by_id: dict[str, Comparison] = {}
    spent = Usage()
    for asked in (checked, linked):
        found, cost = _look(comparer, verdict.keep, asked)
        by_id.update(found)
        spent = spent + cost
    log.debug("second look from %s: %s", verdict.keep.id[:8],
              {k[:8]: (c.same_subject, c.still_true, c.relation, c.changed)
               for k, c in by_id.items()})
    return confirm(verdict, checked + linked, by_id), spent


def _look(comparer: FactComparer, keep: Memory,
          asked: Sequence[Memory]) -> tuple[dict[str, Comparison], Usage]:
    """One relate call about `asked` (none: no call), its answers by memory id."""
    if not asked:
        return {}, Usage()
    offered = [Candidate(i, m.content, m.category, m.created_at) for i, m in enumerate(asked)]
    try:
        found, spent = comparer.compare(keep.content, offered)
    except ExtractionFailed as exc:
        found, spent = [], exc.usage
    return {asked[c.number].id: c for c in found if 0 <= c.number < len(asked)}, spent


def unlooked(verdict: Verdict) -> Verdict:
    """Without a second look, what the first look related otherwise is not retired on code's
    reading alone: it is queued."""
    if not verdict.unsure:
        return verdict
    out = Verdict(verdict.keep, links=verdict.links, queue=list(verdict.queue))
    for old in verdict.retired:
        why = verdict.retire[old.id]
        if old.id in verdict.unsure:
            kind = "replacement" if old.id in verdict.replaced else "restatement"
            out.queue.append((verdict.keep, old, kind, f"{why}; no second look settled it"))
        else:
            out.carries(old, verdict)
    return out


def confirm(verdict: Verdict, checked: Sequence[Memory],
            comparisons: dict[str, Comparison]) -> Verdict:
    """The model's second look at each memory a group would retire (`comparisons` by memory
    id): a restatement holds only on the same subject with the memory still true and nothing
    changed; a replacement only on the same subject with a change the texts hold up. A
    memory the second look disagrees about is queued; one it says is another subject is left
    alone. A link holds only where the second look reads one subject: the first look of a small
    model calls a look-alike ("the Android key expires on …" / "the iOS certificate expires on
    …") a derivation as readily as a conclusion drawn from its premise. `checked` are the
    memories it was asked about (one it did not answer is queued, or not linked)."""
    asked = {m.id for m in checked}
    links = [link for link in verdict.links if link[1].id not in asked
             or (link[1].id in comparisons and comparisons[link[1].id].same_subject)]
    out = Verdict(verdict.keep, links=links, queue=list(verdict.queue))
    for old in verdict.retired:
        why = verdict.retire[old.id]
        seen = comparisons.get(old.id)
        replaced = old.id in verdict.replaced
        if old.id not in asked:
            out.retires(old, why, replaced)
        elif seen is None:
            out.queue.append((verdict.keep, old, "replacement" if replaced else "restatement",
                              f"{why}; the model's second look gave no answer on it"))
        elif not seen.same_subject:
            continue  # about another thing: a look-alike, left as it is
        elif replaced and seen.changed and (seen.relation == "updates" or not seen.still_true
                                            or _named(verdict, old, seen)):
            out.retires(old, why, True)
        elif not replaced and seen.still_true and seen.relation in ("none", "extends") \
                and not seen.changed:
            out.retires(old, why)
        else:
            out.queue.append((verdict.keep, old, "replacement" if replaced else "restatement",
                              f"{why}; but the model's second look disagrees"))
    return out


def _named(verdict: Verdict, old: Memory, seen: Comparison) -> bool:
    """Two values named on one subject and yet "the older still holds" is unsure of the change,
    unless three readings agree on it: the newer's own words report a change ("took over",
    "now"), and the values the model named are those code reads the texts differ by. The named
    values alone once retired a fact drawn from the older one; the words without the values,
    a fact beside it ("charges are collected through Stripe" for "… are now charged the full
    fee")."""
    return old.id in verdict.said and names_the_change(
        old.content, verdict.keep.content, seen.memory_says, seen.fact_says)
