"""Restatement or reversal (docs/lifecycle.md): what a flat add does when the space already holds
a close memory.

- `updated`: the new text restates a close memory: it covers most of that memory's word
  BIGRAMS (so word order counts: "opaque tokens instead of JWTs" does not restate "JWTs instead
  of opaque tokens") and says more (more words). It becomes that memory's next version.
- `conflict`: a decision, constraint or architecture memory with a close memory of the same
  type that it does not restate. Nothing is stored; the caller resolves it with
  `supersedes: [id]` (the new claim replaces the old) or `force: true` (both hold).
- `created`: anything else.

The restatement check runs first, or every elaborated decision would come back as a conflict.
"Close" is the embedding model's own UPDATES floor (Calibration.update_floor), not a number
fitted here. COVERAGE was chosen on the `tune` part of bench/data/restatement_pairs.jsonl
(`bench/restatement.py --sweep`: 0.6 took "hashed with argon2id" -> "hashed with bcrypt at cost
12" for a restatement, 0.8 did not); the `heldout` part is what it is measured on."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from memspace.domain.lifecycle import CLAIM_TYPES, MemoryType
from memspace.domain.models import Memory, ScoredMemory

# Share of the existing memory's word bigrams the new text must hold to restate it: "most",
# strictly enough that changing the one word a short claim turns on is not a restatement.
COVERAGE = 0.8
# Close memories looked at per add.
NEIGHBOURS = 5

_WORD = re.compile(r"[\w']+")


def words(text: str) -> list[str]:
    return [w.strip("'") for w in _WORD.findall(text.casefold()) if w.strip("'")]


def bigrams(text: str) -> set[tuple[str, str]]:
    """Pairs of neighbouring words (a one-word text: the word paired with nothing)."""
    seq = words(text)
    if len(seq) == 1:
        return {(seq[0], "")}
    return set(pairwise(seq))


def coverage(old: str, new: str) -> float:
    """Share of `old`'s word bigrams that `new` holds too."""
    before = bigrams(old)
    return len(before & bigrams(new)) / len(before) if before else 0.0


def restates(old: str, new: str) -> bool:
    """Does `new` say what `old` says, in the same order, and more?"""
    return coverage(old, new) >= COVERAGE and len(words(new)) > len(words(old))


@dataclass(frozen=True)
class Verdict:
    kind: Literal["created", "updated", "conflict"]
    memory: Memory | None = None  # the memory restated, or the one contradicted
    similarity: float = 0.0


def judge(text: str, kind: MemoryType, neighbours: Sequence[ScoredMemory], floor: float,
          force: bool = False) -> Verdict:
    """The verdict on a new text of type `kind` beside the space's closest active memories
    (best first, cosine scores)."""
    close = [n for n in neighbours if n.score >= floor and n.memory.active]
    for near in close:
        if restates(near.memory.content, text):
            return Verdict("updated", near.memory, near.score)
    if kind in CLAIM_TYPES and not force:
        for near in close:
            if near.memory.type is kind:
                return Verdict("conflict", near.memory, near.score)
    return Verdict("created")
