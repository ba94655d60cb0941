"""The second look (the relate prompt a consolidation pass asks before it links two memories) on
labelled pairs: does it read one subject for an extension or a derivation, and two for a
look-alike? A pass keeps a link only where it reads one subject (services/consolidation/
looks.py `confirm`). Prints figures; asserts nothing.

Usage: link_looks.py [--split tune|test|both] [--timeout S]

Pairs, each asked alone (the fact, one numbered memory), as the pass asks them:
- extension / derivation: every saying of an `extends` or `derives` fact of
  bench/data/consolidation_<split>.jsonl beside every first saying of each fact it names (its
  `of`), and every expected `extends` / `derives` of bench/data/extraction_cases.jsonl and
  extraction_cases_other_domains.jsonl (the note beside its candidate): one subject is right;
- look-alike: every `lookalike` line of the split beside every first saying of the fact it is
  shaped like: two subjects is right (a link between them is wrong whatever the first look said).

    make llm && .venv/bin/python bench/link_looks.py --split both
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memspace.domain.extraction import Candidate  # noqa: E402
from memspace.llm.compare import LitellmComparer  # noqa: E402

DATA = ROOT / "bench" / "data"


def stream_pairs(split: str) -> list[tuple[str, str, str, str]]:
    """(set, kind, newer, older) of one split of the consolidation stream."""
    lines = [json.loads(line) for line in (DATA / f"consolidation_{split}.jsonl").open()]
    firsts: dict[str, list[str]] = {}
    for line in lines:
        if line["version"] == 1 and line["kind"] in ("first", "restatement"):
            firsts.setdefault(line["fact"], []).append(line["text"])
    pairs = []
    for line in lines:
        kind = {"extends": "linked", "derives": "linked", "lookalike": "lookalike"}.get(
            line["kind"])
        if kind is None:
            continue
        for fact in line["of"].split(","):
            pairs += [(split, kind, line["text"], older) for older in firsts.get(fact, [])]
    return pairs


def case_pairs() -> list[tuple[str, str, str, str]]:
    pairs = []
    for name in ("extraction_cases", "extraction_cases_other_domains"):
        for raw in (DATA / f"{name}.jsonl").open():
            case = json.loads(raw)
            pairs += [(name, "linked", case["content"], case["existing"][r["candidate"]]["text"])
                      for r in case.get("expected_relations", ())
                      if r["type"] in ("extends", "derives")]
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "test", "both"), default="both")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    port = os.environ.get("LLM_LOCAL_PORT", "8091")
    comparer = LitellmComparer("openai/local", api_base=f"http://127.0.0.1:{port}/v1",
                               api_key="local", timeout_s=args.timeout)
    splits = ("tune", "test") if args.split == "both" else (args.split,)
    pairs = [p for split in splits for p in stream_pairs(split)] + case_pairs()
    now = datetime.now(UTC)
    tally: Counter[tuple[str, str, str]] = Counter()
    for source, kind, newer, older in pairs:
        found, _ = comparer.compare(newer, [Candidate(0, older, None, now)])
        read = "no answer" if not found else (
            "one subject" if found[0].same_subject else "two subjects")
        tally[(source, kind, read)] += 1
        wrong = (kind == "linked") != (read == "one subject")
        print(f"{'WRONG ' if wrong else ''}{source} {kind}: {read} | {newer} -> {older}")
    print(f"\n.venv/bin/python bench/link_looks.py --split {args.split}")
    for source in dict.fromkeys(p[0] for p in pairs):
        for kind, right in (("linked", "one subject"), ("lookalike", "two subjects")):
            total = sum(n for (s, k, _), n in tally.items() if s == source and k == kind)
            if total:
                print(f"  {source}, {kind}: {tally[(source, kind, right)]} / {total} read as "
                      f"{right}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
