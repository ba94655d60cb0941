"""Recall and false positives of the `suspicious` flag (services/security/instructions.py) on
bench/data/injections.jsonl: prompt-injection strings of four families (instructions addressed
to an agent, tool-call syntax, chat role markers, hidden Unicode) and benign look-alikes (prose
about instructions, code naming tools, role-like words, non-Latin scripts).

    PYTHONPATH=src python bench/bench_injections.py [--show]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memspace.services.security.instructions import suspicious_reason

CORPUS = Path(__file__).parent / "data" / "injections.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list misses and false alarms")
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help="the development set (default) or data/injections_heldout.jsonl, "
                        "written after the patterns and never tuned on")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines()
            if line]
    caught = missed = alarms = clean = 0
    for row in rows:
        reason = suspicious_reason(row["text"])
        if row["injection"]:
            caught += reason is not None
            missed += reason is None
            if reason is None and args.show:
                print(f"MISS  {row['kind']}: {row['text'][:70]!r}")
        else:
            alarms += reason is not None
            clean += reason is None
            if reason is not None and args.show:
                print(f"ALARM {row['kind']} ({reason}): {row['text'][:70]!r}")
    print(f"corpus: {caught + missed} injections, {alarms + clean} benign look-alikes")
    print(f"recall: {caught}/{caught + missed} = {caught / (caught + missed):.3f}")
    print(f"false positives: {alarms}/{alarms + clean} = {alarms / (alarms + clean):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
