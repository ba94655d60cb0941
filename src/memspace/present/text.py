"""Readable text of answers, for MCP tool results and the CLI (the same data goes out as JSON)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memspace.domain.models import Document, Handoff, Memory
from memspace.present.json import add_json
from memspace.present.records import iso

if TYPE_CHECKING:  # result types only: the idempotency ledger imports present.json at run time
    from memspace.services.adding import AddResult
    from memspace.services.documents import DocumentPage
    from memspace.services.graph import GraphView
    from memspace.services.memory_reads import CorrectionPreview, MemoryDetail
    from memspace.services.search import SearchResult
    from memspace.services.spaces import Glance, Identity, SpaceListing


def _line(memory: dict[str, Any]) -> str:
    state = "" if memory.get("active", True) else " [inactive]"
    version = f" v{memory['version']}" if "version" in memory else ""
    line = f"[{memory['id']}]{version} ({memory['category']}){state} {memory['content']}"
    if memory.get("documentId"):
        where = ", ".join(x for x in (memory.get("documentTitle"), memory.get("origin")) if x)
        line += f" (from {where or 'document ' + memory['documentId']})"
    return line


def memory_line(memory: Memory, titles: Mapping[str, str] | None = None) -> str:
    """`[id] vN (category) content`, marked when inactive, with the document it came from."""
    state = "" if memory.active else " [inactive]"
    line = f"[{memory.id}] v{memory.version} ({memory.category}){state} {memory.content}"
    if memory.document_id:
        title = titles.get(memory.document_id) if titles else None
        where = ", ".join(x for x in (title, memory.origin) if x)
        line += f" (from {where or 'document ' + memory.document_id})"
    return line


def search_text(found: SearchResult) -> str:
    head = f"{len(found.hits)} result(s) in space '{found.space}' ({found.mode} search" + (
        ", cold: the store's indexes" if found.path == "cold" else "") + ")"
    empty = (f". {found.message}." if found.message
             else ". Nothing matched; try other words or a keyword.")
    lines = [head + (":" if found.hits else empty)]
    for n, hit in enumerate(found.hits, start=1):
        lines.append(f"{n}. {memory_line(hit.memory, found.titles)}")
        for rel in hit.related:
            arrow = "->" if rel.direction == "out" else "<-"
            lines.append(f"     {arrow} {rel.via.value} ({rel.hops} hop): "
                         f"{memory_line(rel.memory, found.titles)}")
    if found.profile is not None:
        stats = found.profile.stats
        lines.append(f"Space '{found.profile.space.slug}': {stats.active_memories} active memories, "
                     f"{stats.relations} relations.")
    return "\n".join(lines)


def graph_launch_text(seen: Glance) -> str:
    """What the memory graph launcher says, useful without a UI: the space's size and newest facts."""
    stats = seen.stats
    text = (f"Opened the memory graph of space '{seen.space.slug}': {stats.active_memories} "
            f"active memories, {stats.inactive_memories} superseded or forgotten, "
            f"{stats.relations} relations, {stats.documents} documents.")
    if seen.memories:
        text += " Most recent: " + "; ".join(m.content for m in seen.memories[:3])
    return text


def add_text(result: AddResult) -> str:
    """An add's answer as text. Rendered from its wire form: a replay exists only as the answer
    the ledger stored (services/adding.py), and both must read the same."""
    return _add_text(add_json(result))


def _add_text(data: dict[str, Any]) -> str:
    if data.get("replayed"):
        first = _add_text({**data, "replayed": False})
        return f"Already done by an earlier call with this idempotencyKey. {first}"
    if data["status"] == "duplicate":
        return (f"Already known in '{data['space']}' (exact repeat, nothing written): "
                f"{_line(data['memories'][0])}")
    lines = [f"Saved {len(data['memories'])} memory(ies) in '{data['space']}' ({data['mode']} mode):"]
    lines += [f"- {_line(m)}" for m in data["memories"]]
    for rel in data["relations"]:
        lines.append(f"- {rel['from']} {rel['type']} {rel['to']}")
    if data["superseded"]:
        lines.append("Superseded (now inactive): " + ", ".join(data["superseded"]))
    if data["mode"] == "pending":
        lines.append("Its facts are extracted in the background; getMemory shows when they replace "
                     "it (status pending -> extracted, or flat with the reason).")
    lines += [f"Warning: {w}" for w in data["warnings"]]
    if data.get("similar"):
        lines.append("Similar memories already in the space — if the new memory replaces one of "
                     "these, call correct_memory with its id (and forget the new one):")
        lines += [f"- [{s['id']}] v{s['version']} ({s['similarity']:.2f}) {s['content']}"
                  for s in data["similar"]]
    return "\n".join(lines)


def _page(head: str, rows: Sequence[str], next_cursor: str | None) -> str:
    """A page of a listing: its head line, a dash per row, and how to get the next page."""
    lines = [head, *(f"- {row}" for row in rows)]
    if next_cursor:
        lines.append(f"More available: call again with cursor={next_cursor}")
    return "\n".join(lines)


def list_text(title: str, memories: Sequence[Memory], next_cursor: str | None,
              titles: Mapping[str, str] | None = None) -> str:
    return _page(f"{title}: {len(memories)} shown.", [memory_line(m, titles) for m in memories],
                 next_cursor)


def document_line(document: Document) -> str:
    """`[id] title (kind, status, N facts)`, with progress while processing and the reason of a
    failure."""
    state = document.status.value
    if state in ("queued", "processing") and document.chunks_total:
        state += f" {document.chunks_done}/{document.chunks_total} chunks"
    line = f"[{document.id}] {document.title} ({document.kind}, {state}, {document.fact_count} facts)"
    return line + (f" — failed: {document.error}" if document.error else "")


def documents_text(space: str, documents: Sequence[Document], next_cursor: str | None) -> str:
    return _page(f"{len(documents)} document(s) in '{space}'.", [document_line(d) for d in documents],
                 next_cursor)


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
    lines = [f"{len(listing.spaces)} space(s) this key can use:"]
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
    listed = ", ".join(f"{g.space.slug} ({g.access.value})" for g in who.spaces) or "none"
    return f"You are '{who.name}'. Spaces: {listed}. Current space: {current}."


def memory_text(detail: MemoryDetail) -> str:
    memory = detail.memory
    lines = [memory_line(memory, detail.titles),
             f"Saved by {memory.created_by} at {iso(memory.created_at)}."]
    if detail.source is not None:
        source = detail.source
        lines.append(f"From document [{source.id}] {source.title} ({source.kind}).")
    if not memory.active:
        if memory.invalidated_by:
            lines.append(f"Replaced by {memory.invalidated_by} at {iso(memory.invalidated_at)}.")
        elif memory.forget_reason:
            lines.append(f"Forgotten by {memory.forgotten_by}: {memory.forget_reason}.")
    for rel in detail.relations:
        why = f" ({rel.reason})" if rel.reason else ""
        lines.append(f"{rel.source_id} {rel.type.value} {rel.target_id} — {rel.created_by}, "
                     f"{iso(rel.created_at)}{why}")
    for near in detail.related:
        lines.append(f"  {near.hops} hop(s) via {near.via.value}: "
                     f"{memory_line(near.memory, detail.titles)}")
    return "\n".join(lines)


def correction_preview_text(preview: CorrectionPreview) -> str:
    return (f"Would save a new memory that UPDATES [{preview.replaces.id}], which becomes "
            f"inactive: {preview.content}")


def handoff_text(handoff: Handoff) -> str:
    """A handoff as a person or the next agent reads it."""
    lines = [f"Handoff [{handoff.id}] from {handoff.agent} on '{handoff.topic}' "
             f"({iso(handoff.created_at)}, saved by {handoff.created_by}):", handoff.summary]
    for title, items in (("Done", handoff.done), ("Next steps", handoff.next_steps),
                         ("Open questions", handoff.open_questions), ("Links", handoff.links)):
        if items:
            lines.append(f"{title}:")
            lines += [f"- {item}" for item in items]
    return "\n".join(lines)


def graph_text(graph: GraphView) -> str:
    return (f"{len(graph.nodes)} memories and {len(graph.edges)} relations in '{graph.space}'"
            + (" (newest only)." if graph.truncated else "."))
