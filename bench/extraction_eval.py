"""Fact-extraction quality: run LitellmExtractor over labelled cases and print figures. Asserts nothing.

Usage: extraction_eval.py [--cases PATH] [--limit N] [--misses] [--local] [--timeout S] [--no-floor]

The model comes from MEMSPACE_LLM_MODEL (plus MEMSPACE_LLM_API_BASE / MEMSPACE_LLM_API_KEY for an
OpenAI-compatible server), read through memspace.config.Settings like the service does, e.g.

  MEMSPACE_LLM_MODEL=openai/qwen2.5:7b-instruct MEMSPACE_LLM_API_BASE=http://127.0.0.1:11434/v1 \\
  MEMSPACE_LLM_API_KEY=ollama .venv/bin/python bench/extraction_eval.py --misses

or, with the pinned local model (tools/llm-local; `make llm` starts it), `--local`:

  make llm && .venv/bin/python bench/extraction_eval.py --local

Each case (bench/data/extraction_cases.jsonl) gives the existing candidate facts, the new content
(optionally its speaker and observed_at), the expected number of facts and the expected
relations {candidate, type}. Relations are compared as the set of (candidate, type) pairs over
all facts of a case. Printed: precision/recall per relation type, how often a candidate that
should stay unrelated was left alone, UPDATES wrongly given to restatements and other subjects,
exact fact counts, how often the first answer was valid JSON of the right shape, cases where an
UPDATES not expected would deactivate a true memory (the model's answer, and what is left after
the service's similarity floor, measured with the local embedder unless --no-floor),
calls/tokens per add, latency p50/p95, and failures. Latency figures are only honest on an idle
machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from pydantic import SecretStr

from memspace.config import Settings
from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import Candidate, Extraction
from memspace.embeddings.local import E5_SMALL, LocalEmbedder
from memspace.llm.extractor import PROMPT, LitellmExtractor

# The floor of the model the service embeds with by default (embeddings/local.py).
UPDATE_SIMILARITY_FLOOR = E5_SMALL.calibration.update_floor

CASES = Path(__file__).resolve().parent / "data" / "extraction_cases.jsonl"
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
    """Cosine similarity under the local embedder, as services/reconcile.py computes it."""
    embedder = LocalEmbedder()

    def similarity(a: str, b: str) -> float:
        first, second = embedder.embed([a, b])
        return float(np.dot(np.asarray(first), np.asarray(second)))

    return similarity


def ratio(hit: int, total: int) -> str:
    return f"{hit / total:6.1%} ({hit}/{total})" if total else "     - (0/0)"


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
        count_ok = len(got.facts) == case.expected_facts
        self.count_ok += count_ok
        exact = predicted == case.expected
        self.by_kind[case.kind].append(exact)
        return exact and count_ok

    def spent(self, calls: int, prompt_tokens: int, completion_tokens: int, seconds: float) -> None:
        self.calls.append(calls)
        self.prompt_tokens.append(prompt_tokens)
        self.completion_tokens.append(completion_tokens)
        self.seconds.append(seconds)

    def report(self, model: str) -> None:
        print(f"\nmodel {model}, prompt {PROMPT}: {len(self.calls)} adds, {self.scored} answered, "
              f"{len(self.failures)} failed")
        print("\nrelation   precision            recall")
        for kind in TYPES:
            print(f"{kind:<10} {ratio(self.tp[kind], self.tp[kind] + self.fp[kind]):<20} "
                  f"{ratio(self.tp[kind], self.tp[kind] + self.fn[kind])}")
        print(f"\nno relation where none expected   {ratio(self.unrelated_ok, self.unrelated)} candidates")
        print(f"UPDATES on must-not-update cases  {ratio(self.wrong_updates, self.must_not_update)} cases"
              f" ({', '.join(MUST_NOT_UPDATE)}; lower is better)")
        print(f"wrong UPDATES (a true memory off) {ratio(self.cases_wrong_update, len(self.calls))} cases"
              " (all kinds; aim <= 2%)")
        if self.similarity is not None:
            print(f"  ... past the similarity floor  {ratio(self.cases_wrong_update_kept, len(self.calls))}"
                  f" cases (the service refuses an UPDATES below {UPDATE_SIMILARITY_FLOOR})")
        print(f"fact count exact                  {ratio(self.count_ok, self.scored)} cases")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--limit", type=int, default=None, help="only the first N cases")
    parser.add_argument("--misses", action="store_true", help="print every case not exactly right")
    parser.add_argument("--local", action="store_true",
                        help="use tools/llm-local (`make llm`) at 127.0.0.1:$LLM_LOCAL_PORT (8091)")
    parser.add_argument("--no-floor", action="store_true",
                        help="skip loading the local embedder for the similarity-floor figure")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per call (default MEMSPACE_LLM_TIMEOUT_S; 600 with --local, "
                             "whose first call fills the prompt cache)")
    args = parser.parse_args()

    settings = Settings()
    if args.local:
        port = os.environ.get("LLM_LOCAL_PORT", "8091")
        settings = settings.model_copy(update={
            "llm_model": "openai/local", "llm_api_base": f"http://127.0.0.1:{port}/v1",
            "llm_api_key": SecretStr("local"), "llm_timeout_s": args.timeout or 600.0})
    elif args.timeout:
        settings = settings.model_copy(update={"llm_timeout_s": args.timeout})
    if not settings.llm_model:
        print("extraction_eval needs a model, nothing was run. Set MEMSPACE_LLM_MODEL to a litellm "
              "model string (e.g. openai/gpt-4o-mini), or for a local OpenAI-compatible server "
              "MEMSPACE_LLM_MODEL=openai/<name> MEMSPACE_LLM_API_BASE=http://127.0.0.1:11434/v1 "
              "MEMSPACE_LLM_API_KEY=<any>.")
        return 0
    cases = load_cases(args.cases)[:args.limit]
    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    extractor = LitellmExtractor(settings.llm_model, api_base=settings.llm_api_base, api_key=api_key,
                                 timeout_s=settings.llm_timeout_s)
    tally = Tally(None if args.no_floor else floor_similarity())
    for case in cases:
        started = time.perf_counter()
        try:
            got = extractor.extract(case.content, case.candidates, case.speaker, case.observed_at)
        except ExtractionFailed as exc:
            tally.spent(exc.llm_calls, exc.prompt_tokens, exc.completion_tokens,
                        time.perf_counter() - started)
            tally.failures.append((case.id, exc.message))
            continue
        tally.spent(got.llm_calls, got.prompt_tokens, got.completion_tokens, time.perf_counter() - started)
        right = tally.score(case, got)
        print(f"{'ok  ' if right else 'MISS'} {case.id}", flush=True)
        if args.misses and not right:
            print(f"     expected {case.expected_facts} facts, {sorted(case.expected)}; "
                  f"got {len(got.facts)}, {sorted(predicted_pairs(got))}")
            for item in got.facts:
                rels = ", ".join(f"{r.type.value}->{r.candidate}" for r in item.relations)
                print(f"       [{item.category}] {item.text}" + (f"  ({rels})" if rels else ""))
    tally.report(settings.llm_model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
