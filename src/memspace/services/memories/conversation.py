"""Which earlier memory a new one continues, and which words of it the new one is read with.

Agents often save a conversation turn by turn ("Caroline: I went to the support group",
"Melanie: How was it?", "Caroline: Powerful!"). A memory saved by the same writer shortly after
another continues it: the memory keeps that one's id (`follows`), whether or not it carries a
`speaker` (a chat logged as plain "<name>: <text>" lines is still a chat), and search lifts a
memory whose neighbours matched too (services/search/ranking.py). With the `context` feature (off by
default, TurnFeatures), a *turn* (a memory with a speaker) after a turn that asks something is
also read with that question: the question's words go into its full-text terms
(domain.text.index_terms), so "Powerful!" is found by "support group". The content never
changes, and the vector is the content's own.

Measured with bench/recall_conversations.py (e5-small-v2, flat mode; tuned on LoCoMo 26-44 and
chats 1-3, reported on LoCoMo 47-50 and chats 4-6; docs/conversations.md has the tables):
- links without a speaker: plain-text R@10 any, LoCoMo 0.769 -> 0.818, chats 0.904 -> 0.940
  (reported parts);
- the context used to be the last 400 characters of the turn before, whatever it said. On the
  user/assistant chats that cost R@10 any 0.029 and R@5 all 0.022 (tune part): the assistant's
  reply took the words of the fact the user had just stated and outranked it. Only the last
  question of the turn before keeps most of LoCoMo's gain (R@5 all +0.02), but on the chats'
  reported part it still cost R@5 all 0.012 and left metadata below plain text, so it is off
  unless asked for (MEMSPACE_CONVERSATION_FEATURES=all).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from memspace.domain.models import Memory
from memspace.domain.ports import MemoryReadStore

# Two saves by one writer further apart than this are separate conversations. Chat turns come
# seconds to minutes apart; a new session of the same agent is usually hours later.
TURN_GAP = timedelta(minutes=30)
# The most of the question before that is kept as context (a longer one by its end). LoCoMo
# turns: median 96 characters, 95th percentile 290.
CONTEXT_CHARS = 400


def preceding_turn(store: MemoryReadStore, space_id: str, writer: str, now: datetime,
                   observed_at: datetime | None) -> Memory | None:
    """The memory a memory `writer` saves now continues: the one it saved just before, within
    TURN_GAP (and, when both carry `observedAt`, observed within TURN_GAP of this one: turns of
    two sessions stored back to back are not one conversation). A speaker is not needed: an
    agent logging a chat as plain "<name>: <text>" lines is still logging a conversation, and
    the link only lifts a memory whose neighbour the query also found (services/search/ranking.py)."""
    before = store.latest_by_writer(space_id, writer, now - TURN_GAP)
    if before is None or _apart(observed_at, before.observed_at):
        return None
    return before


def reads_with(memory: Memory, before: Memory) -> bool:
    """Is `memory` read with the words of `before`? Only a turn with a turn (both have a
    speaker): facts saved in a row each stand on their own."""
    return bool(memory.speaker and before.speaker)


def context_of(before: Memory) -> str | None:
    """The text a turn is read with: the last question the turn before asks (the sentence
    ending in its last "?", at most CONTEXT_CHARS from its end), or None when it asks none.
    A reply is read with the question it answers ("How was the support group?" ->
    "Powerful!"); a statement before it adds only words the reply does not need, which made
    the turn after a fact compete with the fact (bench/recall_conversations.py, chats)."""
    text = before.content
    end = text.rfind("?")
    if end < 0:
        return None
    start = max(text.rfind(mark, 0, end) for mark in ".!?\n") + 1
    start = max(start, end + 1 - CONTEXT_CHARS)
    asked = text[start:end + 1].strip()
    return ("…" + asked if start > 0 and text[start - 1] not in ".!?\n " else asked) or None


def _apart(one: datetime | None, other: datetime | None) -> bool:
    """Observed further apart than TURN_GAP (a time without an offset is read as UTC)."""
    if one is None or other is None:
        return False
    one, other = (t if t.tzinfo else t.replace(tzinfo=UTC) for t in (one, other))
    return abs(one - other) > TURN_GAP


FEATURES = ("context", "neighbours", "speaker", "time")


@dataclass(frozen=True)
class TurnFeatures:
    """Which conversation features are on (MEMSPACE_CONVERSATION_FEATURES; docs/conversations.md):
    `context`, a turn indexed with the question of the turn before (off by default: on the
    user/assistant chats it made a reply compete with the fact it answered, and saving with
    metadata did worse than plain text); `neighbours`, a memory lifted by the ones around it;
    `speaker`, the lift of the turns of a speaker a query names; `time`, the lift of the
    memories observed in a period a query names."""

    context: bool = False
    neighbours: bool = True
    speaker: bool = True
    time: bool = True

    @classmethod
    def parse(cls, text: str) -> TurnFeatures:
        """"default", "all", "none", or names of FEATURES separated by commas (those on)."""
        names = {n.strip().lower() for n in text.split(",") if n.strip()}
        if names == {"default"}:
            return cls()
        if names == {"all"}:
            names = set(FEATURES)
        if names == {"none"}:
            names = set()
        unknown = names - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown conversation feature(s) {', '.join(sorted(unknown))}; "
                             f"name some of {', '.join(FEATURES)}, or default, all or none")
        return cls(**{f: f in names for f in FEATURES})

    def without(self, name: str) -> TurnFeatures:
        return replace(self, **{name: False})

    def adding(self, name: str) -> TurnFeatures:
        return replace(self, **{name: True})
