"""Fakes for fast unit tests: a deterministic embedder, a clock that always moves forward, a
scripted fact extractor and a blob store in memory."""

from __future__ import annotations

import hashlib
import math
from collections import deque
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from memspace.domain.embedder import MINILM_CALIBRATION
from memspace.domain.errors import ExtractionFailed, NotFound, Unavailable
from memspace.domain.extraction import Candidate, ExtractedFact, ExtractedRelation, Extraction
from memspace.domain.models import RelationType
from memspace.domain.text import words


class HashEmbedder:
    """Bag of hashed words in 384 dimensions: texts sharing words are similar, others are not."""

    dimensions = 384
    calibration = MINILM_CALIBRATION

    def __init__(self) -> None:
        self.calls = 0

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed(texts)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in words(text) or ["empty"]:
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vector[int.from_bytes(digest[:4], "big") % self.dimensions] += 1.0
            vector[int.from_bytes(digest[4:], "big") % self.dimensions] += 0.5
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector]


class StepClock:
    """Starts at a fixed instant and advances one millisecond per reading."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        self._now += timedelta(milliseconds=1)
        return self._now

    def advance(self, by: timedelta) -> None:
        self._now += by


class ScriptedExtractor:
    """A FactExtractor answering from a queue: Extractions, or ExtractionFailed to raise.

    `before_answer`, when set, runs inside the call — tests use it to change the store while
    the "model" is thinking, the way a second agent would.
    """

    def __init__(self) -> None:
        self.answers: deque[Extraction | ExtractionFailed] = deque()
        self.calls: list[tuple[str, list[Candidate], str | None, datetime | None]] = []
        self.before_answer: Callable[[], None] | None = None

    def facts(self, *facts: ExtractedFact, prompt_tokens: int = 100,
              completion_tokens: int = 20) -> None:
        self.answers.append(Extraction(tuple(facts), 1, prompt_tokens, completion_tokens))

    def fail(self, error: ExtractionFailed) -> None:
        self.answers.append(error)

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        self.calls.append((content, list(candidates), speaker, observed_at))
        if self.before_answer is not None:
            hook, self.before_answer = self.before_answer, None
            hook()
        answer = self.answers.popleft()
        if isinstance(answer, ExtractionFailed):
            raise answer
        return answer


def fact(text: str, category: str = "fact", **relations: tuple[int, str]) -> ExtractedFact:
    """fact("X", a=(0, "updates")) — keyword names are free labels for readability."""
    return ExtractedFact(text, category, tuple(
        ExtractedRelation(number, RelationType(kind.upper()), f"{kind} because test")
        for number, kind in relations.values()))


class MemoryBlobStore:
    """A BlobStore in a dict, optionally refusing writes (a full disk) from the n-th put on."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.fail_puts_after: int | None = None

    def put(self, key: str, data: bytes) -> None:
        if self.fail_puts_after is not None and len(self.blobs) >= self.fail_puts_after:
            raise Unavailable("could not store the bytes (scripted: disk full)")
        self.blobs[key] = bytes(data)

    def get(self, key: str) -> bytes:
        if key not in self.blobs:
            raise NotFound(f"nothing is stored at {key}")
        return self.blobs[key]

    def written_before(self, age_s: float) -> list[str]:
        return sorted(self.blobs) if age_s <= 0 else []

    def delete(self, key: str) -> None:
        self.blobs.pop(key, None)
