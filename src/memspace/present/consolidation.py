"""A consolidation pass's wire shape (docs/consolidation.md) and its readable text, for the CLI
(`memspace consolidate`) and anything else that shows a pass. Only ids, kinds, counts and the
pass's own words are shown: memory text is read with getMemory, under the quoting rule."""

from __future__ import annotations

from typing import Any

from memspace.domain.consolidation import ChangeKind, PassChange, PassCost, PassRecord
from memspace.domain.text import counted
from memspace.present.records import iso
from memspace.services.consolidation import PassReport, UndoReport


def cost_json(cost: PassCost) -> dict[str, Any]:
    return {"memoriesRead": cost.memories_read, "groups": cost.groups,
            "modelCalls": cost.model_calls, "promptTokens": cost.prompt_tokens,
            "completionTokens": cost.completion_tokens, "seconds": cost.seconds}


def change_json(change: PassChange) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": change.kind.value, "why": change.why}
    if change.kept is not None:
        out["kept"] = change.kept
    if change.retired:
        out["retired"] = list(change.retired)
    if change.relation is not None:
        out["relation"] = {"from": change.relation.source_id, "to": change.relation.target_id,
                           "type": change.relation.type.value}
    if change.conflict_id is not None:
        out["conflictId"] = change.conflict_id
    if change.sides:
        out["sides"] = list(change.sides)
    return out


def _counts(changes: tuple[PassChange, ...]) -> dict[str, int]:
    return {kind.value: sum(1 for c in changes if c.kind is kind) for kind in ChangeKind}


def pass_json(report: PassReport) -> dict[str, Any]:
    return {"space": report.space.slug, "passId": report.pass_id, "dryRun": report.dry_run,
            "busy": report.busy, "counts": _counts(report.changes),
            "changes": [change_json(c) for c in report.changes], "cost": cost_json(report.cost)}


def change_line(change: PassChange) -> str:
    """One change, by ids (a memory id's first 8 characters, as the listings show them)."""
    kind = change.kind.value.ljust(11)
    if change.relation is not None:
        r = change.relation
        return f"  {kind} {r.source_id[:8]} {r.type.value} {r.target_id[:8]}"
    if change.kind is ChangeKind.QUEUED:
        sides = " and ".join(s[:8] for s in change.sides)
        return f"  {kind} {change.conflict_id}: {sides} — {change.why}"
    if change.kind is ChangeKind.EXTRACTION:
        return f"  {kind} {(change.kept or '')[:8]} handed to the model ({change.why})"
    gone = ", ".join(r[:8] for r in change.retired)
    if change.kind is ChangeKind.EXPIRY:
        return f"  {kind} {gone} left the current set ({change.why})"
    return f"  {kind} kept {(change.kept or '')[:8]}, superseded {gone}"


def cost_words(cost: PassCost) -> str:
    tokens = cost.prompt_tokens + cost.completion_tokens
    model = (f"{counted(cost.model_calls, 'model call')} ({tokens:,} tokens)"
             if cost.model_calls else "no model call")
    return (f"read {counted(cost.memories_read, 'memory', 'memories')}, "
            f"{counted(cost.groups, 'group')}, {model}, {cost.seconds:.2f} s")


def pass_text(report: PassReport, undo_hint: str = "") -> str:
    if report.busy:
        return (f"Another consolidation pass holds {report.space.slug} now; nothing was done. "
                "Run again when it has finished.")
    head = (f"Dry run over {report.space.slug} (nothing written)" if report.dry_run
            else f"Consolidation pass {report.pass_id} over {report.space.slug}")
    lines = [f"{head}: {cost_words(report.cost)}."]
    if not report.changes:
        lines.append("Nothing to change." if not report.dry_run else "Nothing would change.")
        return "\n".join(lines)
    counts = _counts(report.changes)
    said = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
    lines.append(("Would make: " if report.dry_run else "Made: ") + said + ".")
    lines += [change_line(c) for c in report.changes]
    retired = any(c.retired or c.relation for c in report.changes)
    if undo_hint and retired and not report.dry_run:
        lines.append(undo_hint)
    return "\n".join(lines)


def undo_json(done: UndoReport) -> dict[str, Any]:
    return {"space": done.space.slug, "passId": done.pass_id, "restored": list(done.restored),
            "skipped": list(done.skipped), "unlinked": done.unlinked, "undoneBy": done.by,
            "undoneAt": iso(done.at)}


def undo_text(done: UndoReport) -> str:
    lines = [f"Undid consolidation pass {done.pass_id} in {done.space.slug}: "
             f"{counted(len(done.restored), 'memory', 'memories')} current again, "
             f"{counted(done.unlinked, 'link')} removed."]
    if done.skipped:
        lines.append("Left as they are (changed since the pass): "
                     + ", ".join(s[:8] for s in done.skipped) + ".")
    return "\n".join(lines)


def record_json(record: PassRecord) -> dict[str, Any]:
    return {"passId": record.id, "startedAt": iso(record.started_at),
            "finishedAt": iso(record.finished_at) if record.finished_at else None,
            "since": record.since, "until": record.until, "counts": _counts(record.changes),
            "cost": cost_json(record.cost),
            "undoneAt": iso(record.undone_at) if record.undone_at else None,
            "undoneBy": record.undone_by}


def passes_text(space: str, records: list[PassRecord]) -> str:
    if not records:
        return f"No consolidation pass has run over {space} yet."
    lines = [f"Consolidation passes over {space}, newest first:"]
    for r in records:
        said = ", ".join(f"{n} {k}" for k, n in _counts(r.changes).items() if n) or "no change"
        state = (f"undone {iso(r.undone_at)} by {r.undone_by}" if r.undone_at
                 else "finished" if r.finished_at else "stopped midway")
        lines.append(f"  {r.id}  {iso(r.started_at)}  {said}; {cost_words(r.cost)}; {state}")
    return "\n".join(lines)
