"""Two-pass extraction (MEMSPACE_EXTRACTION_PASSES=2): facts first, then relations per fact.

The one-call extractor (extractor.py) shows the model the candidates while it writes the facts,
and a small model restates or merges them; it also relates a fact that mixes a repeat and a
change to the wrong memory. Here:

1. one call (prompts/extract_facts_only.v1.md) splits the content into facts, with no candidate
   shown, so none can be restated; the grounding guard (grounding.py) then drops what the
   content does not say, as in one call;
2. for each kept fact, one call (prompts/relate_fact.v1.md) gives a verdict on each of the
   fact's own nearest candidates (those sharing the most terms with the fact, at most
   RELATE_TOP, at least MIN_SHARED_TERMS each): none, updates, extends or derives. A fact no
   candidate shares a term with costs no call and has no relation;
3. an UPDATES is kept only when the model names what changes and the words hold it up
   (`swaps_value`): the memory's old value and the fact's new value are both given, each is
   said by its own side, and they differ (or the fact's value is a negation the memory's is
   not); anything else is no relation, so a true memory is never retired on a weak answer.
   The guard's UPDATES rules and the service's similarity floor then run as for one call.

Cost: 1 + (facts with a candidate in reach) calls per add (docs/extraction.md has the figures).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.extraction import Candidate, ExtractedFact, ExtractedRelation, Extraction
from memspace.domain.models import RelationType
from memspace.llm.answers import InvalidAnswer, parse_json
from memspace.llm.extractor import (
    LitellmExtractor,
    Spent,
    _format_time,
    _retry_request,
    answer_budget,
    parse_answer,
)
from memspace.llm.grounding import ground
from memspace.llm.lexicon import share, supported, terms, tokens
from memspace.llm.polarity import NEGATIONS
from memspace.llm.prompts import PromptTemplate, load_prompt
from memspace.llm.schema import MemoryVerdict, RelateAnswer, relate_format, response_format

FACTS_PROMPT = "extract_facts_only.v1"
RELATE_PROMPT = "relate_fact.v1"
RELATE_TOP = 3  # candidates judged per fact
MIN_SHARED_TERMS = 1  # a candidate sharing fewer terms with the fact is not asked about
VALUE_SAID_FROM = 0.5  # share of a named value's terms its side must say
# The relation answer's token budget: the JSON around it plus each verdict's few words.
RELATE_BASE_TOKENS = 48
RELATE_TOKENS_PER_MEMORY = 64

log = logging.getLogger(__name__)


class TwoPassExtractor(LitellmExtractor):
    """Facts in one call without candidates, then one call per fact for its relations."""

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 timeout_s: float = 30.0, max_retries: int = 1, grounding: bool = True,
                 facts_prompt: PromptTemplate | None = None,
                 relate_prompt: PromptTemplate | None = None) -> None:
        super().__init__(model, api_base, api_key, timeout_s, max_retries,
                         prompt=facts_prompt or load_prompt(FACTS_PROMPT), grounding=grounding)
        self._relate_prompt = relate_prompt or load_prompt(RELATE_PROMPT)

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        """The facts call, the guard, then a relation call per fact with a candidate in reach.

        Raises:
            ExtractionFailed: a call failed or gave no valid answer within its budget; carries
                the calls and tokens spent by every pass so far.
        """
        system, user = self._prompt.render(
            speaker=speaker.strip() if speaker and speaker.strip() else "(not given)",
            observed_at=_format_time(observed_at) if observed_at else "(not given)",
            content=content,
        )
        spent = Spent()
        answer = self._ask([{"role": "system", "content": system}, {"role": "user", "content": user}],
                           response_format(0), answer_budget(content), parse_answer,
                           _retry_request, spent)
        first = Extraction(tuple(ExtractedFact(item.text, item.category, (), item.type)
                                 for item in answer.facts))
        if self._grounding:
            first = ground(first, content, candidates, speaker, observed_at)
        related = tuple(self._relate(fact, content, candidates, spent) for fact in first.facts)
        extraction = Extraction(related, *spent.figures(), first.dropped)
        if not self._grounding:
            return extraction
        return ground(extraction, content, candidates, speaker, observed_at)

    def _relate(self, fact: ExtractedFact, content: str, candidates: Sequence[Candidate],
                spent: Spent) -> ExtractedFact:
        nearest = nearest_candidates(fact.text, candidates)
        if not nearest:
            return fact
        system, user = self._relate_prompt.render(
            content=content, fact=fact.text,
            memories="\n".join(f"[{c.number}] {' '.join(c.content.split())}" for c in nearest))
        answer = self._ask([{"role": "system", "content": system}, {"role": "user", "content": user}],
                           relate_format([c.number for c in nearest]),
                           RELATE_BASE_TOKENS + RELATE_TOKENS_PER_MEMORY * len(nearest),
                           parse_relate, _relate_retry, spent)
        return replace(fact, relations=relations_from(fact.text, answer, nearest))


def nearest_candidates(fact: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The fact's own nearest candidates: most terms shared first, then the service's order."""
    own = terms(fact)
    scored = [(sum(supported(t, terms(c.content)) for t in own), i, c)
              for i, c in enumerate(candidates)]
    kept = sorted((s for s in scored if s[0] >= MIN_SHARED_TERMS), key=lambda s: (-s[0], s[1]))
    return [c for _, _, c in kept[:RELATE_TOP]]


def relations_from(fact: str, answer: RelateAnswer,
                   offered: Sequence[Candidate]) -> tuple[ExtractedRelation, ...]:
    """The verdicts as relations: the first per offered memory, "none" left out, an UPDATES
    only when `swaps_value` holds, an EXTENDS only on the same subject."""
    by_number = {c.number: c for c in offered}
    relations: dict[int, ExtractedRelation] = {}
    for verdict in answer.memories:
        memory = by_number.get(verdict.memory)
        if memory is None or verdict.memory in relations:
            continue
        kind = verdict.relation
        if kind == "updates" or (not verdict.still_true and kind != "derives"):
            # A small model often names the swap and still answers "none": the values decide,
            # on a memory said to be about the same subject.
            kind = "updates" if verdict.same_subject and swaps_value(
                verdict, fact, memory.content) else "none"
            if kind == "none" and verdict.relation == "updates":
                log.info("no UPDATES from %r to candidate %d: the values named (%r -> %r) do "
                         "not show a change", fact, verdict.memory, verdict.memory_says,
                         verdict.fact_says)
        if kind == "none" or (kind == "extends" and not verdict.same_subject):
            continue
        reason = f"{verdict.memory_says} -> {verdict.fact_says}" if kind == "updates" else ""
        relations[verdict.memory] = ExtractedRelation(
            verdict.memory, RelationType(kind.upper()), reason)
    return tuple(relations.values())


def swaps_value(verdict: MemoryVerdict, fact: str, memory: str) -> bool:
    """Whether the verdict names a change the texts hold up: the memory's value is said by the
    memory, the fact's by the fact, and they differ in a term or in negation."""
    old, new = terms(verdict.memory_says), terms(verdict.fact_says)
    if not old or not new:
        return False
    if share(old, terms(memory)) < VALUE_SAID_FROM or share(new, terms(fact)) < VALUE_SAID_FROM:
        return False
    negated = _negated(verdict.fact_says) and not _negated(verdict.memory_says)
    return negated or any(not supported(t, old) for t in new)


def _negated(text: str) -> bool:
    return any(w in NEGATIONS or w.endswith(("n't", "n’t")) for w in tokens(text))


def parse_relate(text: str) -> RelateAnswer:
    """The second pass's answer as a RelateAnswer (tolerant as parse_answer).

    Raises:
        InvalidAnswer: no JSON object, or one that does not match RelateAnswer.
    """
    return parse_json(text, RelateAnswer)


def _relate_retry(err: InvalidAnswer) -> str:
    return (f"That answer could not be used: {err}. Reply again with only the JSON object "
            '{"memories": [{"memory": ..., "same_subject": ..., "memory_says": ..., '
            '"fact_says": ..., "relation": ...}]} and nothing else.')
