"""The grounding guard: a fact the model extracted is kept only if the new content says it.

Candidates are context for relations, never a source of facts. A small model re-emits them
("Error tracking uses Sentry." beside the migration away from Sentry), keeps the old claim of a
reversal, or merges an existing memory into a new fact. Each of those would store a falsehood,
so such a fact is dropped (the add reports it in `warnings`; with nothing left the content is
stored flat, as given).

Support is decided lexically, in microseconds and without a model call (docs/extraction.md):

- terms: words case-folded, Snowball-stemmed, function words left out; numbers and times
  ("02:00", "1,200") are one term; "one".."twelve" count as digits; a term matches another
  that it starts (≥ 3 characters: "prod" ~ "production"); the speaker's name and dates a
  model resolves from the observation time ("yesterday" → 2026-03-09) count as said.
- restated: under half of the fact's terms are in the content and ≥ 70% are in one candidate;
- repeated: ≥ 85% of its terms are in one candidate, some are not in the content, and the
  content's clause closest to it says something changed ("switched", "now", "from A to B"): the
  fact is the old state;
- merged: under 70% of its terms are in the content, three or more of the terms the content
  lacks come from candidates (four when the content says "it", "they", "that"...: resolving a
  reference borrows a subject), and they are most of what it lacks;
- unsupported: under a third of its terms are in the content;
- contradicted (polarity.py): the fact affirms what the content negates or ends ("We dropped
  GraphQL" → "… use GraphQL"; not when the fact itself tells the change with the content's new
  words), reverses a "from X to Y", or negates what the content states.

A dropped fact that said an existing memory again (≥ 85% of its terms), where the content
itself ends, negates or announces a change of that memory and says at least half of it, still
tells which memory the note replaces: the kept fact closest to the memory gets the UPDATES the
model left out, or, with no fact kept, the content stored as given does.

A kept fact also loses an UPDATES to a candidate it shares no term with (a memory is retired only
by a fact about the same subject) or adds no term to (a repeat is no new value), and, when the
content has no word of change at all ("now", "moved", "not", "from A to B"...), one that does
more than swap one value: "Priya owns the invoicing service" does not replace "Marco owns the
billing service". The service's similarity floor then checks the rest.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.extraction import (
    Candidate,
    DroppedFact,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
)
from memspace.domain.models import RelationType
from memspace.llm.lexicon import share, supported, terms, tokens
from memspace.llm.polarity import announces_change, contradiction, signals_change

RESTATED_CONTENT_BELOW = 0.5
RESTATED_CANDIDATE_FROM = 0.7
UNSUPPORTED_BELOW = 1 / 3
REPEATED_CANDIDATE_FROM = 0.85
MERGED_TERMS_FROM = 3
MERGED_CONTENT_BELOW = 0.7
CHANGED_REASON = "the note changes what this memory says (the model had said it again as a fact)"
REFERENCES = frozenset("it its they them their this that these those he she his her".split())

log = logging.getLogger(__name__)

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
DATE_REACH_DAYS = 400


def _resolved_dates(fact: str, content_terms: set[str], observed_at: datetime | None) -> str:
    """The fact without ISO dates the model could compute: near the observation time, or
    whose day the content names ("June 10" → 2026-06-10)."""
    def keep(match: re.Match[str]) -> str:
        year, month, day = (int(g) for g in match.groups())
        if str(day) in content_terms:
            return " "
        if observed_at is not None:
            try:
                when = datetime(year, month, day, tzinfo=observed_at.tzinfo)
            except ValueError:
                return match.group(0)
            if abs((when - observed_at).days) <= DATE_REACH_DAYS:
                return " "
        return match.group(0)

    return _ISO_DATE.sub(keep, fact)


def judge(fact: str, content: str, candidates: Sequence[str], speaker: str | None = None,
          observed_at: datetime | None = None) -> str | None:
    """Why the content does not support `fact`, or None when it does."""
    said = terms(content) | terms(speaker or "")
    fact_terms = terms(_resolved_dates(fact, said, observed_at))
    if not fact_terms:
        return None
    pools = [terms(c) for c in candidates]
    flipped = contradiction(fact, content, set().union(*pools) if pools else set())
    if flipped:
        return flipped
    from_content = share(fact_terms, said)
    shares = [share(fact_terms, pool) for pool in pools]
    best = max(range(len(shares)), key=shares.__getitem__, default=None)
    if best is not None and from_content < RESTATED_CONTENT_BELOW \
            and shares[best] >= RESTATED_CANDIDATE_FROM:
        return (f"it restates existing memory [{best}] ('{candidates[best]}'), which the new "
                f"content does not say ({from_content:.0%} of its words are in the content)")
    if best is not None and shares[best] >= REPEATED_CANDIDATE_FROM and from_content < 1 \
            and announces_change(fact, content):
        return (f"it repeats existing memory [{best}] ('{candidates[best]}'), which the new "
                "content changes")
    missing = {t for t in fact_terms if not supported(t, said)}
    borrowed = {t for t in missing if any(supported(t, pool) for pool in pools)}
    # "It was upgraded" names its subject in a candidate: resolving it may borrow a few terms.
    allowed = MERGED_TERMS_FROM + (1 if REFERENCES & set(tokens(content)) else 0)
    if len(borrowed) >= allowed and len(borrowed) >= 0.6 * len(missing) \
            and from_content < MERGED_CONTENT_BELOW:
        return (f"it merges words of existing memories ({', '.join(sorted(borrowed))}) that the "
                "new content does not say into the fact")
    if from_content < UNSUPPORTED_BELOW:
        return f"the new content does not say it (only {from_content:.0%} of its words are in it)"
    return None


def ground(extraction: Extraction, content: str, candidates: Sequence[Candidate],
           speaker: str | None = None, observed_at: datetime | None = None) -> Extraction:
    """The extraction without facts the content does not support; those go to `dropped`.

    A dropped fact that was an existing memory said again, where the content itself changes
    that memory, still tells which memory the note replaces: the kept fact about it (or, with
    none kept, the note stored as given) gets the UPDATES the model left out (`_changes_kept`)."""
    texts = [c.content for c in candidates]
    kept: list[ExtractedFact] = []
    dropped: list[DroppedFact] = []
    changes = signals_change(content)
    for fact in extraction.facts:
        reason = judge(fact.text, content, texts, speaker, observed_at)
        if reason is None:
            kept.append(_updates_checked(fact, texts, changes))
        else:
            dropped.append(DroppedFact(fact.text, reason))
    if kept == list(extraction.facts):
        return extraction
    changed = _changed_by_content(dropped, candidates, content, speaker)
    if changed:
        kept = _changes_kept(kept, changed, texts, content)
    return Extraction(tuple(kept), extraction.llm_calls, extraction.prompt_tokens,
                      extraction.completion_tokens, (*extraction.dropped, *dropped))


def _changed_by_content(dropped: Sequence[DroppedFact], candidates: Sequence[Candidate],
                        content: str, speaker: str | None) -> list[Candidate]:
    """Candidates a dropped fact said again (≥ REPEATED_CANDIDATE_FROM of its terms) that the
    content itself changes: read as a fact of the note, the candidate would be dropped as the
    old state (the content ends, negates or reverses it, or its closest clause announces a
    change and the content does not say all of it). The model pointed at the memory; the words
    of the note confirm the change, and the note must say at least half of the memory (its
    subject, not one shared word). A candidate merely said again is not changed."""
    said = terms(content) | terms(speaker or "")
    known = set().union(*(terms(c.content) for c in candidates)) if candidates else set()
    found: list[Candidate] = []
    for fact in dropped:
        own = terms(fact.text)
        if not own:
            continue
        best = max(candidates, key=lambda c: share(own, terms(c.content)), default=None)
        if best is None or best in found or share(own, terms(best.content)) < REPEATED_CANDIDATE_FROM:
            continue
        theirs = terms(best.content)
        about = share(theirs, said)
        if about < RESTATED_CONTENT_BELOW:
            continue  # the note says too little of the memory to be about it
        if contradiction(best.content, content, known) or (
                about < 1 and announces_change(best.content, content)):
            found.append(best)
    return found


def _changes_kept(kept: list[ExtractedFact], changed: Sequence[Candidate], texts: Sequence[str],
                  content: str) -> list[ExtractedFact]:
    """Each changed candidate is updated by the kept fact that shares most terms with it and
    could replace it (`_updates_checked`'s test: a term in common, a term beyond), unless that
    fact already updates it; an EXTENDS to it becomes the UPDATES. With no fact kept, the
    content itself, stored as given, updates every changed candidate. The service's similarity
    floor still checks each."""
    if not kept:
        relations = tuple(ExtractedRelation(c.number, RelationType.UPDATES, CHANGED_REASON)
                          for c in changed)
        return [ExtractedFact(content, changed[0].category, relations)]
    out = list(kept)
    for candidate in changed:
        theirs = terms(candidate.content)
        scored = [(sum(supported(t, terms(f.text)) for t in theirs), i) for i, f in enumerate(out)
                  if _can_replace(terms(f.text), theirs)]
        if not scored:
            continue
        _, index = max(scored, key=lambda s: (s[0], -s[1]))
        fact = out[index]
        if any(r.candidate == candidate.number and r.type is RelationType.UPDATES
               for r in fact.relations):
            continue
        others = tuple(r for r in fact.relations if r.candidate != candidate.number)
        out[index] = replace(fact, relations=(
            *others, ExtractedRelation(candidate.number, RelationType.UPDATES, CHANGED_REASON)))
        log.info("the note changes candidate [%d]: %r updates it", candidate.number, fact.text)
    return out


def _can_replace(own: set[str], theirs: set[str]) -> bool:
    """A fact can replace a memory only if it has a term beyond it and one in common."""
    return bool(own - theirs) and any(supported(t, own) for t in theirs)


def _updates_checked(fact: ExtractedFact, candidates: Sequence[str], changes: bool) -> ExtractedFact:
    """The fact without the UPDATES it cannot make: to a candidate it shares no term with (a
    memory is retired only by a fact about the same subject) or has no term beyond (the same
    thing said again is no new value), and, when the content says
    nothing changed (`changes` False: no "now", "moved", "not", "from A to B"...), to a
    candidate that differs from it in more than one term each way (one swapped value, "Marco"
    → "Priya" or "100" → "300", is a new value; more is another subject or other words)."""
    own = terms(fact.text)

    def possible(number: int) -> bool:
        theirs = terms(candidates[number])
        if not _can_replace(own, theirs):
            return False  # nothing new to say, or nothing in common
        if changes:
            return True
        return (sum(not supported(t, theirs) for t in own) == 1
                and sum(not supported(t, own) for t in theirs) <= 1)

    kept = tuple(r for r in fact.relations
                 if r.type is not RelationType.UPDATES or possible(r.candidate))
    if len(kept) == len(fact.relations):
        return fact
    log.info("dropped %d UPDATES from %r to candidates it cannot replace",
             len(fact.relations) - len(kept), fact.text)
    return replace(fact, relations=kept)
