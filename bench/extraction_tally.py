"""Scoring of bench/extraction_eval.py: labelled cases, the figures per run, and the grounding
figure (facts that restate a candidate the content does not say). Asserts nothing."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memspace.domain.extraction import Candidate, Extraction
from memspace.domain.text import STOP_WORDS
from memspace.embeddings.local import E5_SMALL, LocalEmbedder
from memspace.llm.extractor import PROMPT
from memspace.llm.two_pass import FACTS_PROMPT, RELATE_PROMPT

# The floor of the model the service embeds with by default (embeddings/local.py).
UPDATE_SIMILARITY_FLOOR = E5_SMALL.calibration.update_floor

CASES = Path(__file__).resolve().parent / "data" / "extraction_cases.jsonl"
# Kept apart from CASES: other domains (vendors, support, people, budgets), never tuned on.
OTHER_CASES = Path(__file__).resolve().parent / "data" / "extraction_cases_other_domains.jsonl"
TYPES = ("updates", "extends", "derives")
# Kinds whose content must never deactivate a candidate.
MUST_NOT_UPDATE = ("restatement", "different-subject", "new")
CANDIDATES_FROM = datetime(2026, 1, 5, tzinfo=UTC)

Pair = tuple[int, str]


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    candidates: list[Candidate]
    content: str
    speaker: str | None
    observed_at: datetime | None
    expected_facts: int
    expected: frozenset[Pair]


def load_cases(path: Path) -> list[Case]:
    cases = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        candidates = [Candidate(n, item["text"], item.get("category", "fact"),
                                CANDIDATES_FROM + timedelta(days=7 * n))
                      for n, item in enumerate(raw["existing"])]
        expected = frozenset((r["candidate"], r["type"]) for r in raw["expected_relations"])
        if any(n >= len(candidates) or kind not in TYPES for n, kind in expected):
            raise ValueError(f"{path}:{line_no} ({raw['id']}): a relation names no candidate or type")
        observed = raw.get("observed_at")
        cases.append(Case(raw["id"], raw["kind"], candidates, raw["content"], raw.get("speaker"),
                          datetime.fromisoformat(observed) if observed else None,
                          raw["expected_facts"], expected))
    return cases


def predicted_pairs(extraction: Extraction) -> frozenset[Pair]:
    return frozenset((r.candidate, r.type.value.lower()) for f in extraction.facts for r in f.relations)


def floor_similarity() -> Callable[[str, str], float]:
    """Cosine similarity under the local embedder, as services/memories/reconcile.py computes it."""
    embedder = LocalEmbedder()

    def similarity(a: str, b: str) -> float:
        first, second = embedder.embed([a, b])
        return float(np.dot(np.asarray(first), np.asarray(second)))

    return similarity


def ratio(hit: int, total: int) -> str:
    return f"{hit / total:6.1%} ({hit}/{total})" if total else "     - (0/0)"


_PLAIN_WORD = re.compile(r"\w+")


def _plain_words(text: str) -> set[str]:
    return {w for w in _PLAIN_WORD.findall(text.lower()) if w not in STOP_WORDS}


def not_grounded(fact: str, content: str, candidates: list[str]) -> bool:
    """A fact that restates a candidate without support in the content: >= 70% of its words
    come from one candidate and < 50% from the content. Plain lower-cased words, no stemming:
    deliberately not the guard's own test (memspace.llm.grounding), so it checks the guard."""
    words = _plain_words(fact)
    if not words:
        return False
    from_content = len(words & _plain_words(content)) / len(words)
    return from_content < 0.5 and any(
        len(words & _plain_words(c)) / len(words) >= 0.7 for c in candidates)


def stored_facts(case: Case, got: Extraction) -> list[str]:
    """What the add stores: the facts, or the content itself when none is left (flat)."""
    return [f.text for f in got.facts] or [case.content]


class Tally:
    def __init__(self, similarity: Callable[[str, str], float] | None = None) -> None:
        self.similarity = similarity  # of two texts under the service's embedder, when given
        self.cases_wrong_update_kept = 0  # … and not vetoed by UPDATE_SIMILARITY_FLOOR
        self.tp: Counter[str] = Counter()
        self.fp: Counter[str] = Counter()
        self.fn: Counter[str] = Counter()
        self.unrelated = self.unrelated_ok = 0
        self.must_not_update = self.wrong_updates = 0
        self.count_ok = 0
        self.by_kind: dict[str, list[bool]] = defaultdict(list)
        self.scored = 0
        self.calls: list[int] = []
        self.prompt_tokens: list[int] = []
        self.completion_tokens: list[int] = []
        self.seconds: list[float] = []
        self.failures: list[tuple[str, str]] = []
        self.first_valid = 0  # answers usable on the first call (no retry, no failure)
        self.cases_wrong_update = 0  # cases with an UPDATES the labels do not have
        self.facts = self.facts_not_grounded = 0
        self.flat = 0  # adds stored as the content itself: no fact was left
        self.dropped: Counter[str] = Counter()  # facts the guard dropped, by the start of its reason

    def score(self, case: Case, got: Extraction) -> bool:
        predicted = predicted_pairs(got)
        self.scored += 1
        for kind in TYPES:
            want = {p for p in case.expected if p[1] == kind}
            have = {p for p in predicted if p[1] == kind}
            self.tp[kind] += len(want & have)
            self.fp[kind] += len(have - want)
            self.fn[kind] += len(want - have)
        expected_related = {n for n, _ in case.expected}
        predicted_related = {n for n, _ in predicted}
        for candidate in case.candidates:
            if candidate.number not in expected_related:
                self.unrelated += 1
                self.unrelated_ok += candidate.number not in predicted_related
        self.first_valid += got.llm_calls == 1
        expected_updates = {n for n, kind in case.expected if kind == "updates"}
        wrong = [(f.text, case.candidates[r.candidate].content) for f in got.facts for r in f.relations
                 if r.type.value.lower() == "updates" and r.candidate not in expected_updates]
        if self.similarity is not None:
            self.cases_wrong_update_kept += any(
                self.similarity(fact, old) >= UPDATE_SIMILARITY_FLOOR for fact, old in wrong)
        self.cases_wrong_update += any(kind == "updates" and n not in expected_updates
                                       for n, kind in predicted)
        if case.kind in MUST_NOT_UPDATE:
            self.must_not_update += 1
            self.wrong_updates += any(kind == "updates" for _, kind in predicted)
        stored = stored_facts(case, got)
        self.facts += len(stored)
        texts = [c.content for c in case.candidates]
        self.facts_not_grounded += sum(not_grounded(f, case.content, texts) for f in stored)
        self.flat += not got.facts
        for dropped in got.dropped:
            self.dropped[" ".join(dropped.reason.split()[:3])] += 1
        count_ok = len(stored) == case.expected_facts
        self.count_ok += count_ok
        exact = predicted == case.expected
        self.by_kind[case.kind].append(exact)
        return exact and count_ok

    def spent(self, calls: int, prompt_tokens: int, completion_tokens: int, seconds: float) -> None:
        self.calls.append(calls)
        self.prompt_tokens.append(prompt_tokens)
        self.completion_tokens.append(completion_tokens)
        self.seconds.append(seconds)

    def report(self, model: str, title: str, passes: int = 1) -> None:
        prompt = PROMPT if passes == 1 else f"{FACTS_PROMPT} + {RELATE_PROMPT} per fact"
        print(f"\n== {title}\nmodel {model}, prompt {prompt}: {len(self.calls)} adds, "
              f"{self.scored} answered, {len(self.failures)} failed")
        print("\nrelation   precision            recall")
        for kind in TYPES:
            print(f"{kind:<10} {ratio(self.tp[kind], self.tp[kind] + self.fp[kind]):<20} "
                  f"{ratio(self.tp[kind], self.tp[kind] + self.fn[kind])}")
        print(f"\nno relation where none expected   {ratio(self.unrelated_ok, self.unrelated)} candidates")
        print(f"UPDATES on must-not-update cases  {ratio(self.wrong_updates, self.must_not_update)} cases"
              f" ({', '.join(MUST_NOT_UPDATE)}; lower is better)")
        print(f"wrong UPDATES proposed            {ratio(self.cases_wrong_update, len(self.calls))} cases"
              " (all kinds; would deactivate a true memory)")
        if self.similarity is not None:
            print(f"  ... a true memory deactivated   {ratio(self.cases_wrong_update_kept, len(self.calls))}"
                  f" cases (past the service's similarity floor, {UPDATE_SIMILARITY_FLOOR}: below it an"
                  " UPDATES is refused and queued as a suggestion; aim <= 2%)")
        print(f"facts not grounded in the content {ratio(self.facts_not_grounded, self.facts)} facts"
              " (restate a candidate: >= 70% of words from it, < 50% from the content; aim 0)")
        print(f"facts dropped by the guard        {sum(self.dropped.values())}"
              + "".join(f"; {n} {why}..." for why, n in self.dropped.most_common()))
        print(f"stored flat (no fact left)        {ratio(self.flat, self.scored)} adds")
        print(f"fact count exact                  {ratio(self.count_ok, self.scored)} cases"
              " (a flat add counts as one fact)")
        if passes == 1:  # with two passes the calls per add vary with the facts
            print(f"valid JSON on the first call      {ratio(self.first_valid, len(self.calls))} adds")
        print("\nkind               relations exactly right")
        for kind, results in sorted(self.by_kind.items()):
            print(f"{kind:<18} {ratio(sum(results), len(results))}")
        if self.calls:
            ordered = sorted(self.seconds)
            p50 = ordered[max(0, round(0.50 * len(ordered)) - 1)]
            p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
            print(f"\nper add: {statistics.mean(self.calls):.2f} calls, "
                  f"{statistics.mean(self.prompt_tokens):.0f} prompt + "
                  f"{statistics.mean(self.completion_tokens):.0f} completion tokens, "
                  f"{p50:.2f} s p50, {p95:.2f} s p95, {statistics.mean(self.seconds):.2f} s mean")
        for case_id, reason in self.failures:
            print(f"failed {case_id}: {reason}")


