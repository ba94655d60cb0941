"""The model's port: what a fact extractor is shown and what it answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.lifecycle import MemoryType
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


# The kinds of memory a fact can be, as the extraction schema offers them to the model
# (anything else is a note).
FACT_TYPES = tuple(t.value for t in MemoryType)
DEFAULT_FACT_TYPE = MemoryType.NOTE.value


@dataclass(frozen=True)
class ExtractedFact:
    text: str
    category: str
    relations: tuple[ExtractedRelation, ...] = ()
    # One of domain.lifecycle.MemoryType's values when the model says what kind of note the
    # fact is; None (or an unknown value) leaves it a note unless the caller gave a type.
    type: str | None = None
    # Candidates the model said this fact contradicts without replacing (candidate, reason):
    # both are kept and the pair waits in the conflict queue (docs/conflicts.md).
    contradicts: tuple[tuple[int, str], ...] = ()


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


def model_name(extractor: object) -> str:
    """The extraction model's name for a fact's provenance (its `model`, if it says)."""
    return str(getattr(extractor, "model", None) or "the configured model")


@dataclass(frozen=True)
class Comparison:
    """How a fact stands to one numbered memory, as the model's second look says (the relate
    prompt of two-pass extraction): about the same subject, whether the memory still holds after
    the fact, the relation, whether the values it named show a change the texts hold up, and
    those values as it named them (the memory's, the fact's)."""

    number: int
    same_subject: bool
    still_true: bool
    relation: str  # none | updates | extends | derives
    changed: bool
    memory_says: str = ""
    fact_says: str = ""


class FactComparer(Protocol):
    """Compares one fact with numbered memories in one call (the consolidation pass's check
    before it retires a memory)."""

    def compare(self, fact: str, memories: Sequence[Candidate]) -> tuple[list[Comparison], Usage]:
        """One verdict per memory the model answered for (others are missing), and the cost.

        Raises:
            ExtractionFailed: the model errored or gave no valid answer within its budget.
        """
