"""Cosine similarity of hand-written fact pairs under a local embedder: the measurement behind
each model's Calibration (embeddings/local.py; services/memories/similar.py, services/memories/reconcile.py).
Prints one line per pair.

    .venv/bin/python bench/similar_pairs.py [e5-small-v2 | all-minilm-l6-v2]
"""

from __future__ import annotations

import sys

from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

PAIRS = {
    "replaces": [
        ("Deploys happen on Tuesdays", "Deploys happen on Thursdays from now on"),
        ("The API rate limit is 100 requests per minute",
         "The API rate limit was raised to 500 requests per minute"),
        ("Alice owns the billing service", "Bob took over the billing service from Alice"),
        ("We use Postgres 14 in production", "Production runs Postgres 16 since the upgrade"),
        ("Use ruff for linting", "We switched from flake8 to ruff"),
        ("The staging database lives at db-staging.internal",
         "Staging DB moved to pg-staging.acme.internal"),
    ],
    "related, not replacing": [
        ("Deploys happen on Tuesdays", "Deploys need two approvals"),
        ("Alice owns the billing service", "The billing service is written in Go"),
        ("We use Postgres 14 in production", "Redis caches session tokens"),
    ],
    "unrelated": [
        ("Our standup is at 9:30", "Lunch is at noon"),
        ("Deploys happen on Tuesdays", "The logo is dark blue"),
        ("Alice owns the billing service", "Incident reviews happen every Thursday at 15:00"),
    ],
}


def main() -> None:
    model = LocalEmbedder(LOCAL_MODELS[sys.argv[1] if len(sys.argv) > 1 else "e5-small-v2"])
    for kind, pairs in PAIRS.items():
        for a, b in pairs:
            va, vb = model.embed([a, b])
            cosine = sum(x * y for x, y in zip(va, vb, strict=True))
            print(f"{kind:24s} {cosine:.2f}  {a!r} / {b!r}")


if __name__ == "__main__":
    main()
