"""Readable text of answers, for MCP tool results and the CLI (the same data goes out as JSON)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memspace.domain.models import Document, Memory, provenance_of
from memspace.domain.text import counted, kind_label
from memspace.present.json import add_json
from memspace.present.quoting import label, quoted, warning
from memspace.present.records import EXCERPT_CHARS, excerpt, iso
from memspace.present.search_text import search_text as search_text  # named here too
from memspace.present.timeline import slice_text, timeline_text
from memspace.services.shared import described

if TYPE_CHECKING:  # result types only: the idempotency ledger imports present.json at run time
    from memspace.services.access import Glance, Identity, SpaceListing
    from memspace.services.briefing import GraphView
    from memspace.services.documents import DocumentPage
    from memspace.services.lifecycle import ChangesPage, Marked, Version
    from memspace.services.memories import AddResult, CorrectionPreview, MemoryDetail


def _state(active: bool, status: str, superseded_by: str | None,
           short: Mapping[str, str] | None = None) -> str:
    """` [disputed]`, ` [superseded by id]`…: nothing for a current memory."""
    if status == "current" and active:
        return ""
    if superseded_by:
        return f" [superseded by {(short or {}).get(superseded_by, superseded_by)}]"
    return f" [{status}{'' if active else ', inactive'}]"


def _source(title: str | None, origin: str | None, document_id: str) -> str:
    """` (from Guide > Install)`: the document and where in it, its title said once (a
    Markdown section's path starts with it); the id when neither is known."""
    if title and origin and (origin == title or origin.startswith(title + " > ")):
        title = None
    where = ", ".join(label(x) for x in (title, origin) if x)
    return f" (from {where or 'document ' + document_id})"


def _made(kind: str, source: str, document_id: str | None) -> str:
    """` · agent: key ci-bot`; nothing for a document's chunk, whose `(from …)` says it."""
    return "" if kind == "document" and document_id else f" · {kind}: {label(source)}"


def _expiry(at: str | None) -> str:
    """` (expires 2026-06-30 15:00 UTC)` for a current memory with an expiry, else nothing."""
    return f" (expires {at[:16].replace('T', ' ')} UTC)" if at else ""


def _line(memory: dict[str, Any], short: Mapping[str, str] | None = None) -> str:
    state = _state(memory.get("active", True), memory.get("status", "current"),
                   memory.get("supersededBy"), short)
    state += _expiry(memory.get("expiresAt") if memory.get("active", True) else None)
    version = f" v{memory['version']}" if "version" in memory else ""
    line = (f"[{(short or {}).get(memory['id'], memory['id'])}]{version} "
            f"({kind_label(memory.get('type', 'note'), memory['category'])}){state}")
    if memory.get("bodyChars"):
        line += f" ({memory['bodyChars']:,} chars; getMemory reads it whole)"
    if memory.get("documentId"):
        line += _source(memory.get("documentTitle"), memory.get("origin"), memory["documentId"])
    if memory.get("evidence"):
        line += f" [{memory.get('verification')}: {', '.join(map(label, memory['evidence']))}]"
    if made := memory.get("provenance"):
        line += _made(made["kind"], made["source"], memory.get("documentId"))
    return f"{line}\n{warning(memory.get('suspicious'))}{quoted(memory['content'])}"


def memory_line(memory: Memory, titles: Mapping[str, str] | None = None,
                lean: bool = False, chars: int = EXCERPT_CHARS,
                short: Mapping[str, str] | None = None) -> str:
    """`[id] vN (type, category)`, its status when not current, the document it came from, its
    citations and provenance; then its text as a quote (present/quoting.py): recalled text is
    data. `lean`: the text cut to about `chars` characters; `short`: ids -> short ids."""
    state = _state(memory.active, memory.status.value, memory.superseded_by, short)
    state += _expiry(iso(memory.expires_at) if memory.active else None)
    shown = excerpt(memory.content, chars if lean else None)
    name = (short or {}).get(memory.id, memory.id)
    line = f"[{name}] v{memory.version} ({kind_label(memory.type.value, memory.category)}){state}"
    if shown is not memory.content:
        line += f" ({len(memory.content):,} chars; getMemory reads it whole)"
    if memory.document_id:
        title = titles.get(memory.document_id) if titles else None
        line += _source(title, memory.origin, memory.document_id)
    if memory.evidence:
        line += f" [{memory.verification}: {', '.join(label(c.text) for c in memory.evidence)}]"
    made = provenance_of(memory)
    line += _made(made.kind, made.source, memory.document_id)
    return f"{line}\n{warning(memory.suspicious)}{quoted(shown)}"


def graph_launch_text(seen: Glance) -> str:
    """What the memory graph launcher says, useful without a UI: the space's size and newest facts."""
    stats = seen.stats
    text = (f"Opened the memory graph of space '{seen.space.slug}': "
            f"{counted(stats.active_memories, 'active memory', 'active memories')}, "
            f"{stats.inactive_memories} superseded or forgotten, "
            f"{counted(stats.relations, 'relation')}, {counted(stats.documents, 'document')}.")
    if seen.memories:
        text += " Most recent: " + "; ".join(m.content for m in seen.memories[:3])
    return text


def add_text(result: AddResult) -> str:
    """An add's answer as text. Rendered from its wire form: a replay exists only as the answer
    the ledger stored (services/memories/adding.py), and both must read the same."""
    return _add_text(add_json(result))


def _add_text(data: dict[str, Any]) -> str:
    short: dict[str, str] = data.get("shortIds", {})
    if data.get("replayed"):
        first = _add_text({**data, "replayed": False})
        return f"Already done by an earlier call with this idempotencyKey. {first}"
    if data["status"] == "duplicate":
        return (f"Already known in '{data['space']}' (exact repeat, nothing written): "
                f"{_line(data['memories'][0], short)}")
    if data["status"] == "conflict":
        clash = data["conflict"]
        fixes = clash["resolve"]
        return "\n".join([
            f"CONFLICT, nothing saved in '{data['space']}': it contradicts "
            f"{_line(clash['memory'], short)} (similarity {clash['similarity']:.2f}).",
            "If the new claim replaces it, call add_memory with "
            f"{json.dumps(fixes['replaces']['arguments'])}",
            f"If both hold, call add_memory with {json.dumps(fixes['bothHold']['arguments'])}"])
    if data["status"] == "dry_run":
        lines = [f"Dry run in '{data['space']}', nothing written. Would save:"]
    else:
        verb = "Updated (restated as the next version)" if data["status"] == "updated" else "Saved"
        lines = [f"{verb} {counted(len(data['memories']), 'memory', 'memories')} in '{data['space']}' "
                 f"({data['mode']} mode):"]
    lines += [f"- {_line(m, short)}" for m in data["memories"]]
    for rel in data["relations"]:
        lines.append(f"- {short.get(rel['from'], rel['from'])} {rel['type']} "
                     f"{short.get(rel['to'], rel['to'])}")
    if data["superseded"]:
        lines.append("Superseded (now inactive): "
                     + ", ".join(short.get(i, i) for i in data["superseded"]))
    if data["mode"] == "pending":
        lines.append("Its facts are extracted in the background; getMemory shows when they replace "
                     "it (extraction pending -> extracted, or flat with the reason).")
    lines += [f"Warning: {w}" for w in data["warnings"]]
    if data.get("similar"):
        lines.append("Similar memories already in the space — if the new memory replaces one of "
                     "these, call correct_memory with its id (and forget the new one):")
        lines += [f"- [{short.get(s['id'], s['id'])}] v{s['version']} ({s['similarity']:.2f}) {s['content']}"
                  for s in data["similar"]]
    return "\n".join(lines)


def _page(head: str, rows: Sequence[str], next_cursor: str | None) -> str:
    """A page of a listing: its head line, a dash per row, and how to get the next page."""
    lines = [head, *(f"- {row}" for row in rows)]
    if next_cursor:
        lines.append(f"More available: call again with cursor={next_cursor}")
    return "\n".join(lines)


def list_text(title: str, memories: Sequence[Memory], next_cursor: str | None,
              titles: Mapping[str, str] | None = None, lean: bool = False,
              short: Mapping[str, str] | None = None) -> str:
    return _page(f"{title}: {len(memories)} shown.",
                 [memory_line(m, titles, lean, short=short) for m in memories], next_cursor)


def document_line(document: Document) -> str:
    """`[id] title (kind, status, N facts)`, with progress while processing and the reason of a
    failure."""
    state = document.status.value
    if state in ("queued", "processing") and document.chunks_total:
        state += f" {document.chunks_done}/{document.chunks_total} chunks"
    facts = counted(document.fact_count, "fact")
    line = f"[{document.id}] {document.title} ({document.kind}, {state}, {facts})"
    return line + (f" — failed: {document.error}" if document.error else "")


def documents_text(space: str, documents: Sequence[Document], next_cursor: str | None) -> str:
    return _page(f"{counted(len(documents), 'document')} in '{space}'.",
                 [document_line(d) for d in documents], next_cursor)


def document_text(page: DocumentPage) -> str:
    lines = [document_line(page.document)]
    lines += [f"Note: {n}" for n in page.notes]
    if page.unavailable:
        lines.append(f"No text to show: {page.unavailable}")
    elif page.chunks:
        last = page.offset + len(page.chunks)
        lines.append(f"Text, chunks {page.offset + 1}-{last} of {page.total}:")
        lines += [f"--- ({c.origin})\n{c.text}" for c in page.chunks]
    if page.next_offset is not None:
        lines.append(f"More text: call again with offset={page.next_offset}")
    return "\n".join(lines)


def spaces_text(listing: SpaceListing) -> str:
    lines = [f"{counted(len(listing.spaces), 'space')} this key can use:"]
    for s in listing.spaces:
        marks = [m for m, on in (("active", s.is_active), ("default", s.is_default)) if on]
        tag = f" [{', '.join(marks)}]" if marks else ""
        lines.append(
            f"- {s.space.slug}{tag}: {s.access.value}, {s.stats.active_memories} memories, "
            f"last active {iso(s.space.last_active_at)}"
            + (f" — {s.space.description}" if s.space.description else "")
        )
    return "\n".join(lines)


def identity_text(who: Identity) -> str:
    current = who.active_space or who.default_space or "none (pass `space`)"
    listed = ", ".join(f"{g.space.slug} ({g.access.value}"
                       + (f", {counted(g.open_conflicts, 'open conflict')}" if g.open_conflicts else "")
                       + ")" for g in who.spaces) or "none"
    return f"You are '{who.name}'. Spaces: {listed}. Current space: {current}."


def memory_text(detail: MemoryDetail) -> str:
    memory, short = detail.memory, detail.short
    lines = ([f"NOT TODAY'S VIEW: {described(detail.at)}."] if detail.at is not None else []) + [
        memory_line(memory, detail.titles, short=short),
        f"Saved by {memory.created_by} at {iso(memory.created_at)}."]
    if detail.source is not None:
        source = detail.source
        lines.append(f"From document [{source.id}] {label(source.title)} ({source.kind}).")
    if not memory.active:
        if memory.invalidated_by:
            lines.append(f"Replaced by {short.get(memory.invalidated_by, memory.invalidated_by)} "
                         f"at {iso(memory.invalidated_at)}.")
        elif memory.forget_reason:
            lines.append(f"Forgotten by {label(memory.forgotten_by or '')}: "
                         f"{label(memory.forget_reason)}.")
    for rel in detail.relations:
        why = f" ({label(rel.reason)})" if rel.reason else ""
        lines.append(f"{short.get(rel.source_id, rel.source_id)} {rel.type.value} "
                     f"{short.get(rel.target_id, rel.target_id)} — {rel.created_by}, "
                     f"{iso(rel.created_at)}{why}")
    for near in detail.related:
        lines.append(f"  {counted(near.hops, 'hop')} via {near.via.value}: "
                     f"{memory_line(near.memory, detail.titles, short=short)}")
    return "\n".join(lines + timeline_text(detail.timeline, short))


def correction_preview_text(preview: CorrectionPreview) -> str:
    return (f"Would save a new memory that UPDATES [{preview.replaces.id}], which becomes "
            f"inactive: {preview.content}")


def graph_text(graph: GraphView) -> str:
    return (f"{len(graph.nodes)} memories and {len(graph.edges)} relations in '{graph.space}'"
            + (" (newest only)" if graph.truncated else "") + slice_text(graph.at) + ".")


def marked_text(marked: Marked) -> str:
    r = marked.revision
    return (f"Marked {marked.previous.value} -> {r.status} by {r.by} at {iso(r.at)} "
            f"({label(r.reason)}) in '{marked.space}':\n{memory_line(marked.memory, short=marked.short)}")


def changes_text(page: ChangesPage) -> str:
    lines = [f"{counted(len(page.changes), 'change')} in '{page.space}', oldest first:"]
    lines += [f"- {c.kind}: {memory_line(c.memory, lean=True, short=page.short)}" for c in page.changes]
    if page.has_more:
        lines.append(f"More: call again with cursor={page.cursor}")
    else:
        lines.append(f"That is all for now; later, call with cursor={page.cursor} for what "
                     "changes next.")
    return "\n".join(lines)


def revisions_text(space: str, line: list[Version]) -> str:
    lines = [f"{counted(len(line), 'version')} in '{space}', oldest first:"]
    for v in line:
        m = v.memory
        why = f" — {label(v.why)}" if v.why else ""
        lines.append(f"- v{m.version} [{m.id}] by {m.created_by} at {iso(m.created_at)}{why}: "
                     f"{excerpt(m.content, EXCERPT_CHARS)}")
        lines += [f"    marked {r.status} by {r.by} at {iso(r.at)}: {label(r.reason)}"
                  for r in v.marks]
    return "\n".join(lines)
