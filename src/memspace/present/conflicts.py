"""The conflict queue's wire shapes (docs/conflicts.md) and its readable text, for MCP, REST,
the CLI and the Conflicts view alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memspace.domain.conflicts import PROPOSAL, OpenConflict, Proposal
from memspace.domain.text import counted
from memspace.present.pages import page_json
from memspace.present.quoting import label, quoted
from memspace.present.records import iso, memory_json
from memspace.present.text import memory_line
from memspace.services.conflicts import ConflictPage, Resolution


def proposal_json(proposal: Proposal) -> dict[str, Any]:
    return {"id": PROPOSAL, "content": proposal.content, "type": proposal.type.value,
            "category": proposal.category, "createdBy": proposal.by,
            "createdAt": iso(proposal.at), "stored": False}


def conflict_json(conflict: OpenConflict) -> dict[str, Any]:
    """One conflict: its sides side by side (each memory with who wrote it and when; a refused
    write's proposal as a side that was never stored), why, and the version to quote."""
    sides = [memory_json(m) for m in conflict.memories]
    if conflict.proposal is not None:
        sides.append(proposal_json(conflict.proposal))
    return {"id": conflict.id, "kind": conflict.kind.value, "why": conflict.why,
            "version": conflict.version, "recordedAt": iso(conflict.at),
            "recordedBy": conflict.by, "sides": sides}


def conflicts_json(page: ConflictPage) -> dict[str, Any]:
    """The page; each conflict and stored side keeps its whole id and adds the `shortId` the
    text shows."""
    data = {**page_json(page.space, "conflicts", page.page, conflict_json), "open": page.open}
    for conflict in data["conflicts"]:
        for named in (conflict, *conflict["sides"]):
            if named["id"] in page.short:
                named["shortId"] = page.short[named["id"]]
    return data


def _shown(memory: dict[str, Any], short: Mapping[str, str]) -> dict[str, Any]:
    """`memory` (JSON) with the `shortId` its text shows, when there is one."""
    return {**memory, "shortId": short[memory["id"]]} if memory["id"] in short else memory


def resolution_json(done: Resolution) -> dict[str, Any]:
    return {"space": done.space, "conflictId": done.conflict.id, "kind": done.conflict.kind.value,
            "kept": _shown(memory_json(done.kept), done.short) if done.kept else None,
            "superseded": [_shown(memory_json(m), done.short) for m in done.superseded],
            "droppedProposal": done.dropped_proposal, "reason": done.reason,
            "resolvedBy": done.by, "resolvedAt": iso(done.at)}


def conflicts_text(page: ConflictPage) -> str:
    items = page.page.items
    if not items:
        return f"No open conflicts in '{page.space}'."
    lines = [f"{counted(page.open, 'open conflict')} in '{page.space}', newest first:"]
    short = page.short
    for c in items:
        why = c.why
        for whole in (m.id for m in c.memories):  # the why names its sides too
            why = why.replace(whole, short.get(whole, whole))
        lines.append(f"\n[{c.kind.value}] {short.get(c.id, c.id)} (version {c.version}) — {label(why)}")
        lines += [f"  side {memory_line(m, lean=True, short=short)}" for m in c.memories]
        if c.proposal is not None:
            p = c.proposal
            lines.append(f"  side {PROPOSAL} (never stored; by {p.by} at {iso(p.at)}, "
                         f"{p.type.value}):\n{quoted(p.content, '    ')}")
    lines.append("\nSettle one with resolve_conflict(conflictId, keep, supersede, reason, version).")
    if page.page.next_cursor:
        lines.append(f"More: call again with cursor={page.page.next_cursor}")
    return "\n".join(lines)


def resolution_text(done: Resolution) -> str:
    lines = [f"Resolved {done.conflict.kind.value} conflict {done.conflict.id} in '{done.space}' "
             f"by {done.by} at {iso(done.at)} ({label(done.reason)})."]
    if done.kept is not None:
        lines.append(f"Kept: {memory_line(done.kept, lean=True, short=done.short)}")
    lines += [f"Superseded: {memory_line(m, lean=True, short=done.short)}" for m in done.superseded]
    if done.dropped_proposal:
        lines.append("The proposal was dropped (it was never stored).")
    return "\n".join(lines)
