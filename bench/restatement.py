"""Restatement or reversal (services/memories/restatement.py) on the labelled pairs of
bench/data/restatement_pairs.jsonl, with the real embedding model: for each pair the existing
memory is the only neighbour, scored by the model's cosine, and `judge` says created, updated
or conflict. Prints precision and recall of `updated` and `conflict` on the part the rule's
numbers were checked against (`tune`: auth, database, CI, billing) and on the part they never
saw (`heldout`: frontend, mobile, data, team), then every pair judged wrongly.

`--sweep` also prints how the tune part fares with other COVERAGE values (nothing is changed).

    PYTHONPATH=src .venv/bin/python bench/restatement.py [--sweep] [e5-small-v2 | all-minilm-l6-v2]
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory, ScoredMemory
from memspace.domain.text import content_hash
from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder
from memspace.services.memories import restatement
from memspace.services.memories.restatement import judge

DATA = Path(__file__).parent / "data" / "restatement_pairs.jsonl"
AT = datetime(2026, 1, 1, tzinfo=UTC)


def _memory(text: str, kind: str) -> Memory:
    return Memory("existing", "space", text, "general", None, True, AT, "bench",
                  content_hash(text), type=MemoryType(kind))


def verdicts(pairs: list[dict[str, Any]], model: LocalEmbedder) -> list[str]:
    vectors = np.asarray(model.embed([t for p in pairs for t in (p["existing"], p["new"])]))
    floor = model.calibration.update_floor
    out = []
    for n, pair in enumerate(pairs):
        cosine = float(vectors[2 * n] @ vectors[2 * n + 1])
        pair["cosine"] = cosine
        near = [ScoredMemory(_memory(pair["existing"], pair["existingType"]), cosine)]
        out.append(judge(pair["new"], MemoryType(pair["newType"]), near, floor).kind)
    return out


def scores(pairs: list[dict[str, Any]], got: list[str], label: str) -> tuple[float, float, int]:
    said = sum(1 for g in got if g == label)
    right = sum(1 for p, g in zip(pairs, got, strict=True) if g == label == p["label"])
    truth = sum(1 for p in pairs if p["label"] == label)
    return (right / said if said else 0.0), (right / truth if truth else 0.0), truth


def report(name: str, pairs: list[dict[str, Any]], got: list[str]) -> None:
    line = f"{name:8} n={len(pairs):2}"
    for label in ("updated", "conflict"):
        precision, recall, truth = scores(pairs, got, label)
        line += f"  {label}: P={precision:.2f} R={recall:.2f} (of {truth})"
    print(line)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    model = LocalEmbedder(LOCAL_MODELS[args[0] if args else "e5-small-v2"])
    pairs = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    print(f"{model.model.name}: floor {model.calibration.update_floor}, coverage "
          f"{restatement.COVERAGE}, {len(pairs)} pairs")
    got = verdicts(pairs, model)
    for split in ("tune", "heldout"):
        part = [(p, g) for p, g in zip(pairs, got, strict=True) if p["split"] == split]
        report(split, [p for p, _ in part], [g for _, g in part])
    for pair, verdict in zip(pairs, got, strict=True):
        if verdict != pair["label"]:
            print(f"  wrong #{pair['id']} ({pair['split']}): said {verdict}, labelled "
                  f"{pair['label']}, cosine {pair['cosine']:.3f}: {pair['existing']!r} -> "
                  f"{pair['new']!r}")
    if "--sweep" in sys.argv:
        tune = [p for p in pairs if p["split"] == "tune"]
        kept = restatement.COVERAGE
        for value in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
            restatement.COVERAGE = value
            report(f"cov {value}", tune, verdicts(tune, model))
        restatement.COVERAGE = kept


if __name__ == "__main__":
    main()
