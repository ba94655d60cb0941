"""Fact-extraction quality: run LitellmExtractor over labelled cases and print figures. Asserts nothing.

Usage: extraction_eval.py [--cases PATH] [--limit N] [--misses] [--local] [--timeout S] [--no-floor]
                          [--passes 1|2] [--dump PATH [--resume]] [--replay PATH]

The model comes from MEMSPACE_LLM_MODEL (plus MEMSPACE_LLM_API_BASE / MEMSPACE_LLM_API_KEY for an
OpenAI-compatible server), read through memspace.startup.settings.Settings like the service does, e.g.

  MEMSPACE_LLM_MODEL=openai/qwen2.5:7b-instruct MEMSPACE_LLM_API_BASE=http://127.0.0.1:11434/v1 \\
  MEMSPACE_LLM_API_KEY=ollama .venv/bin/python bench/extraction_eval.py --misses

or, with the pinned local model (tools/llm-local; `make llm` starts it), `--local`:

  make llm && .venv/bin/python bench/extraction_eval.py --local

Cases: bench/data/extraction_cases.jsonl (52, the set the prompt was developed on) or, with
--cases, bench/data/extraction_cases_other_domains.jsonl (31, other domains, kept apart and never
tuned on). Each case gives the existing candidate facts, the new content
(optionally its speaker and observed_at), the expected number of facts and the expected
relations {candidate, type}. Relations are compared as the set of (candidate, type) pairs over
all facts of a case. Printed: precision/recall per relation type, how often a candidate that
should stay unrelated was left alone, UPDATES wrongly given to restatements and other subjects,
exact fact counts, how often the first answer was valid JSON of the right shape, cases where an
UPDATES not expected would deactivate a true memory (the model's answer, and what is left after
the service's similarity floor, measured with the local embedder unless --no-floor),
calls/tokens per add, latency p50/p95, and failures. Two reports come from the same answers:
the model's, unguarded, and after the grounding guard (memspace.llm.grounding: what an add
stores; an add left with no fact is stored flat and counts as one fact), with facts not grounded
in the content (plain-word test, not the guard's), the facts the guard dropped and its cost.
Latency figures are only honest on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from extraction_tally import CASES, Case, Tally, floor_similarity, load_cases, predicted_pairs
from pydantic import SecretStr

from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import ExtractedFact, ExtractedRelation, Extraction
from memspace.domain.models import RelationType
from memspace.llm.extractor import LitellmExtractor
from memspace.llm.grounding import ground
from memspace.llm.two_pass import TwoPassExtractor
from memspace.startup.settings import Settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--limit", type=int, default=None, help="only the first N cases")
    parser.add_argument("--misses", action="store_true", help="print every case not exactly right")
    parser.add_argument("--local", action="store_true",
                        help="use tools/llm-local (`make llm`) at 127.0.0.1:$LLM_LOCAL_PORT (8091)")
    parser.add_argument("--dump", type=Path, default=None,
                        help="also write every answer (facts, relations, usage) to this JSON-lines file")
    parser.add_argument("--resume", action="store_true",
                        help="with --dump: cases already in the dump are read back, the rest asked")
    parser.add_argument("--replay", type=Path, default=None,
                        help="score the answers of a --dump file instead of asking the model")
    parser.add_argument("--passes", type=int, choices=(1, 2), default=None,
                        help="1: one call per add; 2: facts, then one call per fact for its "
                             "relations (llm/two_pass.py). Default MEMSPACE_EXTRACTION_PASSES (1)")
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
    if args.passes:
        settings = settings.model_copy(update={"extraction_passes": args.passes})
    if args.replay:
        settings = settings.model_copy(update={"llm_model": settings.llm_model or "openai/local"})
    if not settings.llm_model:
        print("extraction_eval needs a model, nothing was run. Set MEMSPACE_LLM_MODEL to a litellm "
              "model string (e.g. openai/gpt-4o-mini), or for a local OpenAI-compatible server "
              "MEMSPACE_LLM_MODEL=openai/<name> MEMSPACE_LLM_API_BASE=http://127.0.0.1:11434/v1 "
              "MEMSPACE_LLM_API_KEY=<any>.")
        return 0
    cases = load_cases(args.cases)[:args.limit]
    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    # The guard runs here rather than inside the extractor, so one call gives both figures.
    # With two passes the relation calls are then made for every fact, also those the guard
    # would drop before them in an add: the calls and tokens printed are an upper bound.
    kind = TwoPassExtractor if settings.extraction_passes == 2 else LitellmExtractor
    extractor = kind(settings.llm_model, api_base=settings.llm_api_base, api_key=api_key,
                                 timeout_s=settings.llm_timeout_s, grounding=False)
    replayed = load_dump(args.replay) if args.replay else None
    if args.resume and args.dump and args.dump.exists():
        replayed = load_dump(args.dump)  # cases already answered are read back, not asked again
    similarity = None if args.no_floor else floor_similarity()
    raw, guarded = Tally(similarity), Tally(similarity)
    guard_seconds: list[float] = []
    for case in cases:
        got, seconds = answer(case, extractor, replayed)
        for tally in (raw, guarded):
            tally.spent(got.llm_calls, got.prompt_tokens, got.completion_tokens, seconds)
        if args.dump and not (replayed and case.id in replayed):
            with args.dump.open("a", encoding="utf-8") as out:
                out.write(json.dumps(dump_line(case, got, seconds)) + "\n")
        if isinstance(got, Failed):
            for tally in (raw, guarded):
                tally.failures.append((case.id, got.message))
            continue
        checked = time.perf_counter()
        kept = ground(got, case.content, case.candidates, case.speaker, case.observed_at)
        guard_seconds.append(time.perf_counter() - checked)
        raw.score(case, got)
        right = guarded.score(case, kept)
        print(f"{'ok  ' if right else 'MISS'} {case.id}", flush=True)
        if args.misses and not right:
            show(case, kept)
    model = f"{settings.llm_model} (answers replayed from {args.replay})" if args.replay \
        else settings.llm_model
    model += f", {settings.extraction_passes} pass{'es' if settings.extraction_passes == 2 else ''}"
    raw.report(model, "the model's answer, unguarded", settings.extraction_passes)
    guarded.report(model, "after the grounding guard (what an add stores)",
                   settings.extraction_passes)
    if guard_seconds:
        print(f"grounding guard: {statistics.mean(guard_seconds) * 1e3:.2f} ms mean per add, "
              f"{max(guard_seconds) * 1e3:.2f} ms max, no model call")
    return 0


@dataclass(frozen=True)
class Failed(Extraction):
    """An add whose extraction failed (ExtractionFailed), with what it spent."""

    message: str = ""


def answer(case: Case, extractor: LitellmExtractor | TwoPassExtractor,
           replayed: dict[str, tuple[Extraction, float]] | None) -> tuple[Extraction, float]:
    """The model's answer to one case and its seconds: asked now, or read from a dump."""
    if replayed is not None and case.id in replayed:
        return replayed[case.id]
    started = time.perf_counter()
    try:
        got = extractor.extract(case.content, case.candidates, case.speaker, case.observed_at)
    except ExtractionFailed as exc:
        failed = Failed((), exc.llm_calls, exc.prompt_tokens, exc.completion_tokens,
                        message=exc.message)
        return failed, time.perf_counter() - started
    return got, time.perf_counter() - started


def dump_line(case: Case, got: Extraction, seconds: float) -> dict[str, object]:
    line: dict[str, object] = {
        "id": case.id, "calls": got.llm_calls, "prompt_tokens": got.prompt_tokens,
        "completion_tokens": got.completion_tokens, "seconds": round(seconds, 3),
        "facts": [{"text": f.text, "type": f.type, "category": f.category,
                   "relations": [[r.candidate, r.type.value.lower()] for r in f.relations]}
                  for f in got.facts]}
    if isinstance(got, Failed):
        line["failed"] = got.message
    return line


def load_dump(path: Path) -> dict[str, tuple[Extraction, float]]:
    """Answers recorded with --dump, by case id (the guard and the scoring rerun on them)."""
    answers: dict[str, tuple[Extraction, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        facts = tuple(ExtractedFact(f["text"], f.get("category", "fact"), tuple(
            ExtractedRelation(n, RelationType(kind.upper()), "") for n, kind in f["relations"]),
            f.get("type")) for f in raw["facts"])
        usage = (raw.get("calls", 1), raw.get("prompt_tokens", 0), raw.get("completion_tokens", 0))
        got = Failed((), *usage, message=raw["failed"]) if "failed" in raw \
            else Extraction(facts, *usage)
        answers[raw["id"]] = (got, float(raw.get("seconds", 0.0)))
    return answers


def show(case: Case, got: Extraction) -> None:
    print(f"     expected {case.expected_facts} facts, {sorted(case.expected)}; "
          f"got {len(got.facts)}, {sorted(predicted_pairs(got))}")
    for item in got.facts:
        rels = ", ".join(f"{r.type.value}->{r.candidate}" for r in item.relations)
        print(f"       [{item.type}/{item.category}] {item.text}" + (f"  ({rels})" if rels else ""))
    for dropped in got.dropped:
        print(f"       DROPPED {dropped.text!r}: {dropped.reason}")


if __name__ == "__main__":
    sys.exit(main())
