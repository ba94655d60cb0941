"""Wire shapes of valid and record time (docs/time.md): a memory's two intervals and the
timeline getMemory shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memspace.domain.bitemporal import TimeSlice
from memspace.present.records import iso
from memspace.services.shared import TODAY_LEFT_OUT, Period, described

__all__ = ["TODAY_LEFT_OUT", "period_json", "slice_json", "slice_text", "timeline_json",
           "timeline_text"]


def slice_json(at: TimeSlice | None) -> dict[str, Any]:
    """The slice an answer was read at (`asOf`, `knownAt`), echoed; nothing for current facts."""
    if at is None:
        return {}
    return {k: iso(v) for k, v in (("asOf", at.as_of), ("knownAt", at.known_at)) if v}


def slice_text(at: TimeSlice | None) -> str:
    return f" — {described(at)}" if at is not None else ""


def period_json(period: Period) -> dict[str, Any]:
    memory = period.memory
    data: dict[str, Any] = {
        "id": memory.id, "version": memory.version, "content": memory.content,
        "status": memory.status.value,
        "validFrom": iso(period.valid_from), "validTo": iso(period.valid_to),
        "recordedAt": iso(period.recorded_at), "supersededAt": iso(period.superseded_at),
        "recordedBy": memory.created_by, "reason": period.why,
    }
    if memory.forget_reason:
        data |= {"forgottenAt": iso(memory.invalidated_at), "forgottenBy": memory.forgotten_by,
                 "forgetReason": memory.forget_reason}
    return data


def timeline_json(line: Sequence[Period]) -> list[dict[str, Any]]:
    return [period_json(p) for p in line]


def timeline_text(line: Sequence[Period], short: Mapping[str, str] | None = None) -> list[str]:
    """One line per version, oldest first: valid [from, to), recorded [at, superseded), who, why."""
    if len(line) < 2 and not any(p.memory.forget_reason for p in line):
        return []
    lines = ["Timeline (valid [from, to) · recorded [at, superseded)):"]
    for p in line:
        why = f" — {p.why}" if p.why else ""
        gone = f"; forgotten: {p.memory.forget_reason}" if p.memory.forget_reason else ""
        name = (short or {}).get(p.memory.id, p.memory.id)
        lines.append(f"  v{p.memory.version} [{name}] valid [{iso(p.valid_from)}, "
                     f"{iso(p.valid_to) or 'open'}) · recorded [{iso(p.recorded_at)}, "
                     f"{iso(p.superseded_at) or 'open'}) by {p.memory.created_by}{why}{gone}")
    return lines
