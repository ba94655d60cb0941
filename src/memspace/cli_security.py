"""`memspace space set`, `memspace scan` and `memspace audit`: the operator's security commands
(docs/security.md)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer

from memspace.cli_code import EvidenceOpt
from memspace.cli_common import JsonOpt, command, emit, open_container
from memspace.domain.errors import InvalidInput
from memspace.present.records import iso, space_json
from memspace.services.access import AccessService


@command
def space_set(
    slug: Annotated[str, typer.Argument(help="The space.")],
    evidence: EvidenceOpt = None,
    secrets: Annotated[str | None, typer.Option(
        "--secrets", help="refuse (default) | redact | allow: writes holding a credential.")] = None,
    injections: Annotated[str | None, typer.Option(
        "--injections", help="flag (default) | quarantine: what an instruction-like write does.")] = None,
    description: Annotated[str | None, typer.Option(help="What the space is for.")] = None,
    instructions: Annotated[Path | None, typer.Option(
        help="A text or Markdown file of instructions for the agents working in the space "
             "(get_context shows it first); '-' reads stdin.", allow_dash=True)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Change a space: its description and agent instructions, its evidence policy, what a write
    holding a secret or reading like instructions does (with no option, show the security
    policy)."""
    app = open_container()
    if description is not None or instructions is not None:
        text = None
        if instructions is not None and str(instructions) != "-" and not instructions.is_file():
            raise typer.BadParameter(f"file '{instructions}' does not exist",
                                     param_hint="'--instructions'")
        if instructions is not None:
            text = sys.stdin.read() if str(instructions) == "-" else instructions.read_text("utf-8")
        space = app.admin.set_space(slug, description, text)
        emit(space_json(space) | {"instructions": space.instructions}, as_json,
             f"Space '{space.slug}' updated ({len(space.instructions):,} characters of "
             "instructions).")
        if evidence is None and secrets is None and injections is None:
            return
    if evidence is not None:
        slug = app.evidence.set_policy(AccessService.operator(), slug, evidence)
        typer.echo(f"Space '{slug}' evidence policy: {evidence.strip().lower()}.")
        if secrets is None and injections is None:
            return
    if secrets is None and injections is None:
        space, policy = app.security.policy(slug)
        emit({"space": space.slug, "secrets": policy.secrets.value,
              "injections": policy.injections.value}, as_json,
             f"{space.slug}: secrets {policy.secrets}, injections {policy.injections}")
        return
    change = app.security.set_policy(slug, secrets, injections)
    emit({"space": change.space.slug, "secrets": change.after.secrets.value,
          "injections": change.after.injections.value}, as_json,
         f"{change.space.slug}: secrets {change.after.secrets}, injections "
         f"{change.after.injections} (was secrets {change.before.secrets}, injections "
         f"{change.before.injections})")


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
