"""What a pass decides about one group of memories (docs/consolidation.md), as rules over what
code can compare and, with a model, the one extraction call's relations. No I/O.

A group is a memory of the pass's window (the newest of the group: the one whose relations are
asked) and the older memories of the space close to it by vector. Every retirement needs a rule
that cannot take one fact for another: without a model only the same words of the same type
fold; with one, the model's looks and what code reads must agree. A protected memory: queued."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memspace.domain.extraction import Extraction
from memspace.domain.lifecycle import CLAIM_TYPES, MAX_IMPORTANCE
from memspace.domain.models import Memory, RelationType
from memspace.services.consolidation.change import said_changed
from memspace.services.consolidation.values import (
    other_subjects,
    richer,
    same_text,
    swapped,
    swaps_subject,
    values_agree,
    values_differ,
)


@dataclass(frozen=True)
class Near:
    """An older memory of the group and its cosine with the group's newest."""

    memory: Memory
    similarity: float


@dataclass
class Verdict:
    """A group's decisions: `retire` maps each retired memory to why (superseded by `keep`);
    `replaced` says which of them were replaced rather than restated; `unsure` which of them
    the model's first look related otherwise (only its second look may retire those); `said`
    which replacements the newer's own words report as a change; `links` are edges from the
    newest; `queue` holds pairs (newest, older, kind, why) for people."""

    keep: Memory
    retire: dict[str, str] = field(default_factory=dict)
    retired: list[Memory] = field(default_factory=list)
    replaced: set[str] = field(default_factory=set)
    links: list[tuple[Memory, Memory, RelationType, str]] = field(default_factory=list)
    queue: list[tuple[Memory, Memory, str, str]] = field(default_factory=list)
    unsure: set[str] = field(default_factory=set)
    said: set[str] = field(default_factory=set)

    def retires(self, old: Memory, why: str, replaced: bool = False, unsure: bool = False,
                said: bool = False) -> None:
        if old.id not in self.retire:
            self.retire[old.id] = why
            self.retired.append(old)
        for marked, marks in ((replaced, self.replaced), (unsure, self.unsure),
                              (said, self.said)):
            if marked:
                marks.add(old.id)

    def carries(self, old: Memory, source: Verdict) -> None:
        """Retire `old` as `source` did, with its marks."""
        self.retires(old, source.retire[old.id], old.id in source.replaced,
                     old.id in source.unsure, old.id in source.said)


def protected(memory: Memory) -> str | None:
    """Why a memory is never retired without a person (None: it may be)."""
    if memory.canonical:
        return "it is canonical"
    if memory.importance >= MAX_IMPORTANCE:
        return f"its importance is {MAX_IMPORTANCE}"
    if any(c.kind == "commit" or (c.kind == "file" and c.anchor) for c in memory.evidence):
        return "it cites pinned evidence"
    if memory.type in CLAIM_TYPES:
        return f"it is a {memory.type.value}"
    return None


def _fold_or_queue(verdict: Verdict, newest: Memory, old: Memory, why: str, kind: str,
                   replaced: bool = False, unsure: bool = False, said: bool = False) -> None:
    guard = protected(old)
    if guard is not None:
        verdict.queue.append((newest, old, kind, f"{why}; not applied because {guard}"))
    else:
        verdict.retires(old, why, replaced, unsure, said)


def exact(newest: Memory, near: Near) -> bool:
    return same_text(newest.content, near.memory.content) and newest.type is near.memory.type


def without_model(newest: Memory, group: Sequence[Near]) -> Verdict:
    """Only the same words of the same type fold by themselves; every other close pair is
    queued with why, for a person (or an agent) to settle."""
    verdict = Verdict(newest)
    for near in group:
        old = near.memory
        if exact(newest, near):
            _fold_or_queue(verdict, newest, old, "the same text of the same type", "restatement")
        elif values_differ(old.content, newest.content):
            verdict.queue.append((newest, old, "replacement", _differ_why(near)))
        elif swaps_subject(old.content, newest.content):
            verdict.queue.append((newest, old, "replacement", (
                f"the same sentence (similarity {near.similarity:.2f}) with a word swapped: a "
                "new value, or another thing altogether")))
        else:
            verdict.queue.append((newest, old, "restatement", (
                f"close (similarity {near.similarity:.2f}) and stating the same values; "
                "without a model a pass cannot tell whether they say the same fact")))
    return verdict


@dataclass(frozen=True)
class Judged:
    """The model's relations from the newest memory to the group's older ones, by position in
    the group (what the extraction call was shown), and the pairs it called contradictory."""

    relations: dict[int, tuple[RelationType, str]]
    contradicts: dict[int, str]

    @classmethod
    def of(cls, extraction: Extraction) -> Judged:
        relations: dict[int, tuple[RelationType, str]] = {}
        contradicts: dict[int, str] = {}
        for fact in extraction.facts:
            for relation in fact.relations:
                # UPDATES wins over EXTENDS over DERIVES when facts of one note disagree.
                order = (RelationType.UPDATES, RelationType.EXTENDS, RelationType.DERIVES)
                held = relations.get(relation.candidate)
                if held is None or order.index(relation.type) < order.index(held[0]):
                    relations[relation.candidate] = (relation.type, relation.reason)
            for number, why in fact.contradicts:
                contradicts.setdefault(number, why)
        return cls(relations, contradicts)


def restates(old: Memory, new: Memory, similarity: float, same_floor: float,
             agree_floor: float) -> bool:
    """With no relation from the model, may the two be one fact said twice? Never one sentence
    with a word swapped, nor two whose subjects share no word; at `same_floor` when no value of
    either contradicts the other (one may say more), from the lower `agree_floor` only when
    both state exactly the same values."""
    if swapped(old.content, new.content) or values_differ(old.content, new.content) \
            or other_subjects(old.content, new.content):
        return False
    return similarity >= same_floor or (
        similarity >= agree_floor and values_agree(old.content, new.content))


def with_model(newest: Memory, group: Sequence[Near], asked: Sequence[int], judged: Judged,
               update_floor: float, same_floor: float, agree_floor: float | None = None) -> Verdict:
    """The model's relation and the values code reads must agree before anything is retired.

    `asked` are the positions in `group` the model was shown (in the order shown: candidate
    number i is group[asked[i]]); the others are the same text and need no model."""
    verdict = Verdict(newest)
    agree_floor = same_floor if agree_floor is None else agree_floor
    shown = {position: number for number, position in enumerate(asked)}
    for position, near in enumerate(group):
        old = near.memory
        if position not in shown:
            if exact(newest, near):
                _fold_or_queue(verdict, newest, old, "the same text of the same type",
                               "restatement")
            continue
        number = shown[position]
        relation = judged.relations.get(number)
        if number in judged.contradicts:
            verdict.queue.append((newest, old, "replacement",
                                  "the model says they contradict each other"))
        elif relation is not None and relation[0] is RelationType.UPDATES:
            if swaps_subject(old.content, newest.content):
                verdict.queue.append((newest, old, "replacement", (
                    "the model says the newer replaces it, but a word that names what it is "
                    "about was swapped too: it may be another thing")))
            elif values_differ(old.content, newest.content) and near.similarity >= update_floor:
                _fold_or_queue(verdict, newest, old, (
                    "replaced: the model says the newer replaces it, and each states a value "
                    "the other does not"), "replacement", replaced=True, said=said_changed(
                        old.content, newest.content, near.similarity, update_floor))
            elif restates(old, newest, near.similarity, same_floor, agree_floor):
                _restated_unsure(verdict, newest, near, "replaces it")
            else:
                verdict.queue.append((newest, old, "replacement", (
                    "the model says the newer replaces it, but no value of it changed")))
        elif said_changed(old.content, newest.content, near.similarity, update_floor):
            # The add's own call saw this pair and did not call it an update; the newer says
            # a value changed, so only the second look may retire the older (unsure).
            said = relation[0].value.lower() if relation else "nothing"
            _fold_or_queue(verdict, newest, old, (
                "replaced: the newer says a value changed and each states a value the other "
                f"does not; the model's first look said {said}"),
                "replacement", replaced=True, unsure=True, said=True)
        elif relation is not None and restates(old, newest, near.similarity, same_floor,
                                               agree_floor):
            _restated_unsure(verdict, newest, near, f"{relation[0].value.lower()} it")
        elif relation is not None and not (relation[0] is RelationType.EXTENDS
                                           and values_differ(old.content, newest.content)):
            # An extension adds a detail and leaves the older true; two memories each stating
            # a value the other does not are as often a new value or a look-alike, which the
            # first look alone does not tell apart: such a pair is not linked.
            verdict.links.append((newest, old, relation[0], relation[1] or
                                  f"added by a consolidation pass ({relation[0].value.lower()})"))
        elif restates(old, newest, near.similarity, same_floor, agree_floor):
            _fold_or_queue(verdict, newest, old, (
                f"says the same fact (similarity {near.similarity:.2f}, no value the other "
                "contradicts, no relation from the model)"), "restatement")
    return verdict


def _restated_unsure(verdict: Verdict, newest: Memory, near: Near, said: str) -> None:
    """The first look related the two, but code reads one fact said twice (close, no value of
    either missing or contradicted, nothing swapped): the first look of a small model calls a
    paraphrase an update or an extension as often as not, so the second look decides."""
    _fold_or_queue(verdict, newest, near.memory, (
        f"says the same fact (similarity {near.similarity:.2f}, no value the other contradicts; "
        f"the model's first look said the newer {said})"), "restatement", unsure=True)


def one_subject(verdict: Verdict, group: Sequence[Near],
                before: Sequence[Memory] = ()) -> Verdict:
    """A newer memory replaces one fact. When the memories it would replace are not all one
    fact said again (two of them differ, or swap what they are about), all but those that agree
    with the one it replaces are queued: "the reconciliation job moved to 04:00" replaces "the
    reconciliation job runs at 02:30", not "the analytics export job runs at 02:30" beside it.
    The one it replaces is what it replaced already when it was written (`before`: an UPDATES
    of its own, when that stated other values: one stating the newest's own values was the same
    new fact said before it, and names nothing it replaced), else the closest."""
    before = [m for m in before if values_differ(m.content, verdict.keep.content)]
    replaced = [m for m in verdict.retired if m.id in verdict.replaced]
    if not replaced or (len(replaced) < 2 and not before):
        return verdict
    closeness = {n.memory.id: n.similarity for n in group}
    best = before[0] if before else max(replaced, key=lambda m: closeness.get(m.id, 0.0))
    apart = {m.id for m in replaced if m.id != best.id and (
        values_differ(m.content, best.content) or swaps_subject(m.content, best.content))}
    if not apart:
        return verdict
    out = Verdict(verdict.keep, links=verdict.links, queue=list(verdict.queue))
    for old in verdict.retired:
        if old.id in apart:
            out.queue.append((verdict.keep, old, "replacement", (
                "the model says the newer replaces it, but the newer replaces another fact "
                "that this one differs from")))
        else:
            out.carries(old, verdict)
    return out


def keeper(verdict: Verdict) -> Verdict:
    """A restatement keeps the most complete of its memories: when an older restated one says
    more than the newest (and nothing newer replaced it), it stays and the newest folds into it."""
    if verdict.replaced or not verdict.retired:
        return verdict
    best = max(verdict.retired, key=lambda m: (richer(m.content, verdict.keep.content),
                                               m.created_at))
    if not richer(best.content, verdict.keep.content) or protected(verdict.keep) is not None:
        return verdict
    swapped = Verdict(best, links=verdict.links, queue=verdict.queue)
    for old in verdict.retired:
        if old.id != best.id:
            swapped.retires(old, verdict.retire[old.id])
    swapped.retires(verdict.keep, f"says the same fact as the more complete '{best.id}'")
    return swapped


def _differ_why(near: Near) -> str:
    # Only the pass's own words: the values themselves are in the sides, under the quoting rule.
    return (f"close (similarity {near.similarity:.2f}), each stating a value the other does "
            "not: the newer may replace the older, or be about another thing")
