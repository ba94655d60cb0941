"""`memspace scan` and `memspace audit`: the operator's security commands (docs/security.md);
a space's security policy is set with `memspace space set` (spaces.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from memspace.cli.common import JsonOpt, command, emit, open_container
from memspace.cli.root import ACCESS, app
from memspace.domain.errors import InvalidInput
from memspace.present.records import iso


@app.command("scan", rich_help_panel=ACCESS)
@command
def scan(
    space: Annotated[str, typer.Option("--space", help="The space to scan.")],
    redact: Annotated[bool, typer.Option(
        "--redact", help="Rewrite each finding as [redacted:<kind>] in place (history kept).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Report the credentials a space already holds (kind and place, never the value)."""
    report = open_container().security.scan(space, fix=redact)
    rows = [{"memoryId": h.memory_id, "active": h.active, "version": h.version,
             "findings": [{"field": f, "kind": k, "where": w} for f, k, w in h.findings]}
            for h in report.hits]
    lines = [f"{h.memory_id} v{h.version}{'' if h.active else ' (inactive)'}: " + "; ".join(
        f"{k} in {f} at {w}" for f, k, w in h.findings) for h in report.hits]
    done = " — redacted in place" if report.redacted and report.hits else ""
    emit({"space": report.space, "scanned": report.scanned, "redacted": report.redacted,
          "memories": rows}, as_json,
         "\n".join([f"{report.space}: {len(report.hits)} of {report.scanned} memories hold "
                    f"credentials{done}", *lines]))


def _since(text: str) -> datetime:
    units = {"m": "minutes", "h": "hours", "d": "days"}
    if text and text[-1] in units and text[:-1].isdigit():
        return datetime.now(UTC) - timedelta(**{units[text[-1]]: int(text[:-1])})
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidInput(f"--since takes 30m, 12h, 7d or an ISO time (2026-12-01T09:00Z), "
                           f"not {text!r}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@app.command("audit", rich_help_panel=ACCESS)
@command
def audit(
    since: Annotated[str, typer.Option(help="30m, 12h, 7d or an ISO time.")] = "7d",
    limit: Annotated[int, typer.Option(help="At most this many entries.")] = 1000,
    as_json: JsonOpt = False,
) -> None:
    """The audit log of administrative actions since then, oldest first (read-only)."""
    entries = open_container().security.audit_since(_since(since), limit)
    rows = [{"at": iso(e.at), "actor": e.actor, "action": e.action, "spaceId": e.space_id,
             "target": e.target, "detail": e.detail} for e in entries]
    text = "\n".join(f"{iso(e.at)}\t{e.actor}\t{e.action}\t{e.target or '-'}\t{e.detail}"
                     for e in entries)
    emit(rows, as_json, text or "No audit entries in that period.")
