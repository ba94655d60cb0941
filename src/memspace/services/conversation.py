"""Which earlier memory a new one continues.

Agents often save a conversation turn by turn ("Caroline: I went to the support group",
"Melanie: How was it?", "Caroline: Powerful!"), each with the `speaker` who said it. Many turns
only make sense with the one before them: "Powerful!" answers nothing on its own. So a turn (a
memory saved with a speaker) saved by the same writer shortly after another turn continues it:
the memory keeps that turn's id (`follows`) and its text as its *context*. The context's words
go into the memory's full-text terms (domain.text.index_terms); the link lets search lift a turn
whose neighbours matched (services/ranking.py). The content itself never changes, and the
vector is the content's own.

Measured with bench/recall_locomo.py (flat mode, MiniLM, one memory per turn), tuning on
conversations 26-44, held out 47-50: full text alone R@10 0.669 -> 0.741 with the turn before's
words. The turn before's meaning used to be folded into the vector too (the mean of the vectors
of the content and of "context + content", a second embedding per turn: vector list alone
0.516 -> 0.567); with the neighbour lift in place that adds nothing (fused R@10 0.812 with it,
0.813 without; held-out part 0.804 / 0.807), so a turn is embedded once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memspace.domain.models import Memory
from memspace.domain.ports import MemoryReadStore

# Two saves by one writer further apart than this are separate conversations. Chat turns come
# seconds to minutes apart; a new session of the same agent is usually hours later.
TURN_GAP = timedelta(minutes=30)
# How much of the turn before is kept as context: the end of it, where the part a reply answers
# usually is. LoCoMo turns: median 96 characters, 95th percentile 290.
CONTEXT_CHARS = 400


def preceding_turn(store: MemoryReadStore, space_id: str, writer: str, now: datetime,
                   observed_at: datetime | None) -> Memory | None:
    """The turn a turn `writer` saves now continues: the memory it saved just before, if that
    was a turn too (it has a speaker) saved within TURN_GAP (and, when both carry
    `observedAt`, observed within TURN_GAP of this one: turns of two sessions stored back to
    back are not one conversation)."""
    before = store.latest_by_writer(space_id, writer, now - TURN_GAP)
    # Only a turn continues a turn: facts saved without a speaker (several agents sharing one
    # key, say) are not a conversation, and would cost a second embedding for nothing.
    if before is None or not before.speaker:
        return None
    if _apart(observed_at, before.observed_at):
        return None
    return before


def context_of(before: Memory) -> str:
    """The text a turn is read with: the end of the turn before (CONTEXT_CHARS)."""
    text = before.content
    return text if len(text) <= CONTEXT_CHARS else "…" + text[-CONTEXT_CHARS:]


def _apart(one: datetime | None, other: datetime | None) -> bool:
    """Observed further apart than TURN_GAP (a time without an offset is read as UTC)."""
    if one is None or other is None:
        return False
    one, other = (t if t.tzinfo else t.replace(tzinfo=UTC) for t in (one, other))
    return abs(one - other) > TURN_GAP
