"""The guard step for `memspace import-space` (services/portability/portability.py): every text an export
brings (memory contents, active or not; handoff fields; documents' extracted chunks) is screened
under the target space's secrets policy before anything is written, so a refused import writes
nothing and a redacted one stores `[redacted:<kind>]` wherever a credential was."""

from __future__ import annotations

from typing import Any

from memspace.domain.models import Memory, Provenance, ProvenanceKind, provenance_of
from memspace.domain.security import SpacePolicy
from memspace.services.security import ContentGuard

HANDOFF_TEXT = ("summary", "agent", "topic")
HANDOFF_LISTS = ("done", "nextSteps", "openQuestions", "links")


def _fields(records: list[dict[str, Any]]) -> dict[str, tuple[dict[str, Any], Any, str]]:
    """name -> (container, key, text) of every screened text in the records."""
    out: dict[str, tuple[dict[str, Any], Any, str]] = {}
    for r in records:
        if r["type"] == "memory" and isinstance(r.get("content"), str):
            out[f"memory {r['id']} content"] = (r, "content", r["content"])
        elif r["type"] == "handoff":
            for key in HANDOFF_TEXT:
                if isinstance(r.get(key), str):
                    out[f"handoff {r['id']} {key}"] = (r, key, r[key])
            for key in HANDOFF_LISTS:
                for i, item in enumerate(r.get(key) or []):
                    out[f"handoff {r['id']} {key}[{i}]"] = (r, (key, i), str(item))
        elif r["type"] == "document" and r.get("text"):
            for i, chunk in enumerate(r["text"].get("chunks", [])):
                out[f"document {r['id']} chunk {i + 1}"] = (chunk, "text", chunk["text"])
    return out


def screen_records(guard: ContentGuard | None, space_id: str | None,
                   records: list[dict[str, Any]], actor: str,
                   policy: SpacePolicy | None = None) -> None:
    """Apply the policy to the records in place. Raises ContainsSecret under `refuse`."""
    if guard is None:
        return
    fields = _fields(records)
    screened = guard.screen(space_id, {name: text for name, (_, _, text) in fields.items()},
                            actor, policy)
    for name, (holder, key, text) in fields.items():
        clean = screened.fields[name]
        if clean == text:
            continue
        if isinstance(key, tuple):
            holder[key[0]][key[1]] = clean
        else:
            holder[key] = clean


def provenance_fields(memory: Memory) -> dict[str, Any]:
    """What an export line adds for provenance and the suspicious flag (optional fields: an
    export made before provenance was recorded imports as before)."""
    found = provenance_of(memory)
    return {"provenance": {"kind": found.kind.value, "source": found.source},
            "suspicious": memory.suspicious}


def imported(recorded: Any) -> Provenance:
    """An imported memory's provenance: the one its export recorded (moving a space between
    stores does not change where a fact came from, and export -> import -> export stays the
    same file); `import` for an export made before provenance was recorded."""
    if isinstance(recorded, dict) and recorded.get("kind") in {k.value for k in ProvenanceKind}:
        return Provenance(ProvenanceKind(recorded["kind"]), str(recorded.get("source", ""))[:500])
    return Provenance(ProvenanceKind.IMPORT, "memspace import-space (the export did not say "
                      "where from)")
