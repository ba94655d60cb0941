"""Recall and false positives of the secret scanner (services/security/secrets.py) on
bench/data/secrets.jsonl:
real-format FAKE credentials (none is live) and near-misses that must pass (commit shas, UUIDs,
content hashes, base64 images, documented example keys, prose about passwords).

    PYTHONPATH=src python bench/bench_secrets.py [--show]

Prints recall (secrets found / secrets), false positives (near-misses flagged / near-misses)
and, with --show, every miss and false alarm with the kind found (never the value).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memspace.services.security.secrets import SCANNER_VERSION, SecretScanner, redact

CORPUS = Path(__file__).parent / "data" / "secrets.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list misses and false alarms")
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help="the development set (default) or data/secrets_heldout.jsonl, "
                        "written after the rules were tuned and never tuned on")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines()
            if line]
    scanner = SecretScanner()
    found = missed = alarms = clean = leaked = 0
    for row in rows:
        findings = scanner.scan(row["text"])
        if row["secret"]:
            if findings:
                found += 1
                # Redaction must leave nothing the scanner still sees.
                leaked += bool(scanner.scan(redact(row["text"], findings)))
            else:
                missed += 1
                if args.show:
                    print(f"MISS  {row['kind']}: {row['text'][:70]!r}")
        elif findings:
            alarms += 1
            if args.show:
                print(f"ALARM {row['kind']}: {[f.kind for f in findings]} {row['text'][:70]!r}")
        else:
            clean += 1
    secrets, near = found + missed, alarms + clean
    print(f"scanner: {SCANNER_VERSION} + memspace rules; corpus: {secrets} secrets, {near} near-misses")
    print(f"recall: {found}/{secrets} = {found / secrets:.3f}")
    print(f"false positives: {alarms}/{near} = {alarms / near:.3f}")
    print(f"redacted text still flagged: {leaked}/{found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
