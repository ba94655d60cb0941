"""A handoff as a person or the next agent reads it (the latest_handoff tool, `memspace handoff
latest`, the session-start hook)."""

from __future__ import annotations

from memspace.domain.models import Handoff
from memspace.present.quoting import NOTICE, handoff_flag, label, quoted, warning
from memspace.present.records import iso


def handoff_text(handoff: Handoff) -> str:
    """A handoff as a person or the next agent reads it: its fields are someone's stored text,
    framed and quoted like a memory's (present/quoting.py), with a warning when any reads like
    instructions to an agent."""
    lines = [f"Handoff [{handoff.id}] from {label(handoff.agent)} on '{label(handoff.topic)}' "
             f"({iso(handoff.created_at)}, saved by {label(handoff.created_by)}):", NOTICE,
             warning(handoff_flag(handoff)) + quoted(handoff.summary)]
    for title, items in (("Done", handoff.done), ("Next steps", handoff.next_steps),
                         ("Open questions", handoff.open_questions), ("Links", handoff.links),
                         ("Evidence", handoff.evidence)):
        if items:
            lines.append(f"{title}:")
            lines += [quoted(label(item)) for item in items]
    return "\n".join(lines)
