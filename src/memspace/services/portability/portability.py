"""Export a space to JSON lines and import it into another space or store (SQLite <-> Neo4j).

One JSON object per line, in a fixed order so that export -> import -> export gives the same
file (with kept ids):

    {"type": "header", "format": "memspace-export", "version": 1, "name": …, "description": …}
    {"type": "document", "id": …, "title": …, …, "text": {"chunks": […], "notes": […]} | null}
    {"type": "memory", "id": …, "content": …, "active": …, "invalidatedBy": …, "version": …, …}
    {"type": "relation", "from": …, "to": …, "relation": "UPDATES", …}
    {"type": "handoff", "id": …, "agent": …, "topic": …, "summary": …, "nextSteps": […], …}
    {"type": "conflict", "id": …, "kind": …, "memories": […], "why": …, "proposal": … | null}

Originals of uploads stay behind (metadata and extracted text travel). Embeddings are not
exported: the importing side embeds with its own model, so a space can move to a store that
uses another one.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from memspace.domain.bitemporal import closed_intervals
from memspace.domain.chunks import Chunk
from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, DuplicateContent, NotFound
from memspace.domain.files import ExtractedText
from memspace.domain.graph_port import (
    WithDirectory,
    WithDocuments,
    WithHandoffs,
    WithReads,
    WithRelations,
    WithWrites,
)
from memspace.domain.models import (
    Document,
    DocumentStatus,
    Handoff,
    Memory,
    MemoryFilter,
    Relation,
    RelationType,
)
from memspace.domain.ports import (
    PageAfter,
    WriteBatch,
)
from memspace.domain.role_ports import ConflictStore
from memspace.domain.security import SpacePolicy
from memspace.services.access import AccessService, AdminService, Principal
from memspace.services.documents import DocumentFiles
from memspace.services.portability.export_conflicts import conflict_lines, restore_conflicts
from memspace.services.portability.export_records import handoff_line, iso, memory_line
from memspace.services.portability.import_guard import screen_records
from memspace.services.portability.import_records import FORMAT, VERSION, memory_of, parse_export, time_of
from memspace.services.security import ContentGuard
from memspace.services.shared import AuditLog

PAGE = 1_000


@dataclass
class ImportReport:
    space: str
    documents: int = 0
    memories: int = 0
    relations: int = 0
    handoffs: int = 0
    remapped: bool = False
    conflicts: int = 0  # open conflicts restored (docs/conflicts.md)


class PortabilityPorts(WithDirectory, WithReads, WithWrites, WithRelations, WithHandoffs,
                       WithDocuments, Protocol):
    """The store roles an export reads and an import writes."""


class PortabilityService:
    def __init__(self, store: PortabilityPorts, embedder: Embedder, access: AccessService,
                 files: DocumentFiles, admin: AdminService | None = None,
                 guard: ContentGuard | None = None, audit: AuditLog | None = None,
                 conflicts: ConflictStore | None = None) -> None:
        self._conflicts = conflicts  # the conflict queue's records (export_conflicts.py)
        self._guard, self._audit = guard, audit  # the security step; the operator's log
        self._store = store
        self._embedder = embedder
        self._access = access
        self._files = files
        self._admin = admin  # creates the target space of an operator's import

    # -- export -----------------------------------------------------------------------------

    def export(self, principal: Principal, space: str | None) -> Iterator[dict[str, Any]]:
        """Every document, memory (active or not) and relation of a readable space."""
        target = self._access.resolve(principal, space)
        sid = target.space.id
        if self._audit is not None:
            self._audit.record(principal.actor, "space.export", space_id=sid, target=space)
        yield {"type": "header", "format": FORMAT, "version": VERSION,
               "name": target.space.name, "description": target.space.description}
        documents = self._all_documents(sid)
        for doc in sorted(documents, key=lambda d: (d.created_at, d.id)):
            yield self._document_line(doc)
        memories = self._all_memories(sid)
        memories.sort(key=lambda m: (m.created_at, m.id))
        for memory in memories:
            yield memory_line(memory)
        relations = self._store.relations.relations_among(sid, [m.id for m in memories])
        for rel in sorted(relations,
                          key=lambda r: (r.created_at, r.source_id, r.target_id, r.type.value)):
            yield {"type": "relation", "from": rel.source_id, "to": rel.target_id,
                   "relation": rel.type.value, "createdAt": iso(rel.created_at),
                   "createdBy": rel.created_by, "reason": rel.reason}
        for handoff in reversed(self._all_handoffs(sid)):  # oldest first, like the rest
            yield handoff_line(handoff)
        if self._conflicts is not None:
            yield from conflict_lines(self._conflicts, sid, memories)

    def _all_handoffs(self, space_id: str) -> list[Handoff]:
        out: list[Handoff] = []
        after: PageAfter | None = None
        while True:
            page = self._store.handoffs.list_handoffs(space_id, PAGE, after)
            out += page
            if len(page) < PAGE:
                return out
            after = PageAfter(page[-1].created_at, page[-1].id)

    def _all_memories(self, space_id: str) -> list[Memory]:
        where = MemoryFilter(space_id, include_inactive=True)
        out: list[Memory] = []
        after: PageAfter | None = None
        while True:
            page = self._store.reads.list_memories(where, PAGE, after)
            out += page
            if len(page) < PAGE:
                return out
            after = PageAfter(page[-1].created_at, page[-1].id)

    def _all_documents(self, space_id: str) -> list[Document]:
        out: list[Document] = []
        after: PageAfter | None = None
        while True:
            page = self._store.documents.list_documents(space_id, PAGE, after)
            out += page
            if len(page) < PAGE:
                return out
            after = PageAfter(page[-1].created_at, page[-1].id)

    def _document_line(self, doc: Document) -> dict[str, Any]:
        try:
            extracted = self._files.text(doc)
            text: dict[str, Any] | None = {
                "chunks": [{"text": c.text, "origin": c.origin} for c in extracted.chunks],
                "notes": list(extracted.notes)}
        except NotFound:
            text = None
        return {"type": "document", "id": doc.id, "title": doc.title, "kind": doc.kind,
                "sizeBytes": doc.size_bytes, "sha256": doc.sha256, "status": doc.status.value,
                "error": doc.error, "factCount": doc.fact_count, "chunksTotal": doc.chunks_total,
                "chunksDone": doc.chunks_done, "createdAt": iso(doc.created_at),
                "createdBy": doc.created_by, "text": text}

    # -- import -----------------------------------------------------------------------------

    def import_space(self, principal: Principal, space: str, lines: Iterable[str],
                     new_ids: bool = False, create: bool = False) -> ImportReport:
        """Restore an export into `space` (writable), with ids kept or, with `new_ids`, remapped.
        With `create` the local operator's import first creates the space when it is new.

        Raises:
            InvalidInput: not a memspace export, or a line that cannot be read.
            Conflict: ids already exist in this store (import with new ids instead).
        """
        records = parse_export(lines)
        if (create and principal.operator and self._admin is not None
                and self._store.directory.get_space_by_slug(space) is None):
            # Screened under a new space's policy first: a refused import creates nothing.
            screen_records(self._guard, None, records, principal.actor, SpacePolicy())
            self._admin.create_space(space)
        target = self._access.resolve(principal, space, write=True)
        screen_records(self._guard, target.space.id, records, principal.actor)
        if self._audit is not None:
            self._audit.record(principal.actor, "space.import", space_id=target.space.id,
                               target=space, detail=f"{len(records)} records")
        remap: dict[str, str] = {}
        if new_ids:
            for record in records:
                if record["type"] in ("memory", "document", "handoff"):
                    remap[record["id"]] = uuid.uuid4().hex

        def ident(value: Any) -> Any:
            return remap.get(value, value) if value else value

        sid = target.space.id
        report = ImportReport(target.space.slug, remapped=new_ids)
        for record in (r for r in records if r["type"] == "document"):
            self._import_document(sid, record, ident)
            report.documents += 1
        memories = closed_intervals([memory_of(sid, r, ident) for r in records
                                     if r["type"] == "memory"])
        for start in range(0, len(memories), PAGE):
            chunk = memories[start:start + PAGE]
            vectors = self._embedder.embed([m.content for m in chunk])
            batch = [replace(m, embedding=v) for m, v in zip(chunk, vectors, strict=True)]
            self._write(WriteBatch(sid, batch))
            report.memories += len(batch)
        relations = [
            Relation(ident(r["from"]), ident(r["to"]), RelationType(r["relation"]),
                     time_of(r["createdAt"]) or datetime.min, str(r["createdBy"]), r.get("reason"))
            for r in records if r["type"] == "relation"]
        for start in range(0, len(relations), PAGE):
            self._write(WriteBatch(sid, [], relations[start:start + PAGE]))
            report.relations += len(relations[start:start + PAGE])
        for record in (r for r in records if r["type"] == "handoff"):
            self._import_handoff(sid, record, ident)
            report.handoffs += 1
        if self._conflicts is not None:
            report.conflicts = restore_conflicts(
                self._conflicts, sid, (r for r in records if r["type"] == "conflict"), ident)
        return report

    def _import_handoff(self, space_id: str, r: dict[str, Any], ident: Any) -> None:
        handoff = Handoff(
            ident(r["id"]), space_id, r["agent"], r["topic"], r["summary"], tuple(r["done"]),
            tuple(r["nextSteps"]), tuple(r["openQuestions"]), tuple(r["links"]),
            time_of(r["createdAt"]) or datetime.min, r["createdBy"])
        try:
            self._store.handoffs.add_handoff(handoff)
        except Conflict as exc:
            raise Conflict(f"handoff '{handoff.id}' is already in this store: import with new "
                           "ids (--new-ids)") from exc

    def _write(self, batch: WriteBatch) -> None:
        try:
            self._store.writes.write(batch)
        except DuplicateContent as exc:
            raise Conflict(
                f"{exc.message}: this space already holds active memories saying exactly what "
                "this export says (one active memory per content). Import into a new, empty "
                "space, or forget those memories first"
            ) from exc
        except Conflict as exc:
            raise Conflict(
                f"{exc.message}. Some ids of this export already exist in this store (it was "
                "imported before, or comes from here): import with new ids (--new-ids)"
            ) from exc

    def _import_document(self, space_id: str, r: dict[str, Any], ident: Any) -> None:
        status = DocumentStatus(r["status"])
        error = r.get("error")
        if status in (DocumentStatus.QUEUED, DocumentStatus.PROCESSING):
            # Half-processed in the source: here it is retryable, not silently resumed twice.
            status, error = DocumentStatus.FAILED, "imported before it finished; retry it"
        doc = Document(ident(r["id"]), space_id, r["title"], r["kind"], int(r["sizeBytes"]),
                       r["sha256"], status, time_of(r["createdAt"]) or datetime.min,
                       r["createdBy"], int(r["factCount"]), error, int(r["chunksTotal"]),
                       int(r["chunksDone"]))
        try:
            self._store.documents.add_document(doc)
        except Conflict as exc:
            raise Conflict(
                f"document '{doc.id}' ({doc.title}) is already in this store: the export was "
                "imported before, or comes from here — import with new ids (--new-ids)"
            ) from exc
        if r.get("text"):
            chunks = tuple(Chunk(c["text"], c["origin"]) for c in r["text"]["chunks"])
            self._files.put_text(doc, ExtractedText(chunks, tuple(r["text"].get("notes", []))))
