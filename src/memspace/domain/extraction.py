"""The model's port: what a fact extractor is shown and what it answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.models import RelationType, Usage


@dataclass(frozen=True)
class Candidate:
    """An existing memory shown to the model, by its number in the prompt (never its id)."""

    number: int
    content: str
    category: str
    created_at: datetime


@dataclass(frozen=True)
class ExtractedRelation:
    candidate: int
    type: RelationType
    reason: str


# The kinds of memory a fact can be (the model picks one; anything else is a note).
FACT_TYPES = ("decision", "constraint", "architecture", "fact", "incident", "failed_approach",
              "procedure", "status", "task", "preference", "reference", "note")
DEFAULT_FACT_TYPE = "note"


@dataclass(frozen=True)
class ExtractedFact:
    text: str
    category: str
    relations: tuple[ExtractedRelation, ...] = ()
    type: str | None = None


@dataclass(frozen=True)
class DroppedFact:
    """A fact the model gave that the new content does not support (llm/grounding.py)."""

    text: str
    reason: str

    @property
    def warning(self) -> str:
        return f"dropped the extracted fact '{self.text}': {self.reason}"


@dataclass(frozen=True)
class Extraction:
    """What one model call made of one chunk, with what it cost."""

    facts: tuple[ExtractedFact, ...]
    llm_calls: int = 1
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Facts removed because the content does not say them; the add reports each in `warnings`.
    dropped: tuple[DroppedFact, ...] = ()

    @property
    def usage(self) -> Usage:
        return Usage(self.llm_calls, self.prompt_tokens, self.completion_tokens)


class FactExtractor(Protocol):
    """Splits content into atomic facts and relates each to numbered candidates, in one call."""

    def extract(
        self,
        content: str,
        candidates: Sequence[Candidate],
        speaker: str | None = None,
        observed_at: datetime | None = None,
    ) -> Extraction:
        """Relations to numbers not offered are already dropped, and so are facts the content
        does not support (they are listed in `Extraction.dropped`, never stored).

        Raises:
            ExtractionFailed: the model errored, timed out or answered nonsense after the
                bounded retries; carries the calls and tokens spent so far.
        """
