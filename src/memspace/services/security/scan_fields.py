"""What `memspace scan` reads besides a memory's text (services/security/security.py): every other field
a reader is shown — a memory's category, speaker, citations and forget reason, a handoff's
fields, a document's title and extracted text — and, with `--redact`, what it can rewrite in
place: those fields of a memory, a document's text (and a text file's original; a PDF's
original, whose bytes cannot be redacted, is deleted)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from memspace.domain.chunks import Chunk
from memspace.domain.errors import NotFound
from memspace.domain.files import ExtractedText
from memspace.domain.models import Document, Handoff, Memory
from memspace.domain.ports import DocumentStore, HandoffStore, PageAfter
from memspace.domain.security import BesideText
from memspace.services.documents import DocumentFiles
from memspace.services.security.secrets import SecretFinding, redact
from memspace.services.security.upload_screen import TEXT_KINDS

PAGE = 1_000
Finder = Callable[[str], list[SecretFinding]]


@dataclass(frozen=True)
class OtherHit:
    """A handoff or a document holding credentials: (field, kind, where) each, never the value."""

    what: str  # handoff | document
    id: str
    findings: tuple[tuple[str, str, str], ...]
    redacted: bool = False


def memory_fields(memory: Memory) -> dict[str, str]:
    """The fields of a memory beside its text and context that a reader is shown."""
    fields = {"category": memory.category, "speaker": memory.speaker or "",
              "forgetReason": memory.forget_reason or ""}
    fields |= {f"evidence[{i}]": c.text for i, c in enumerate(memory.evidence)}
    return {name: text for name, text in fields.items() if text}


def scrubbed_beside(memory: Memory, find: Finder) -> BesideText:
    """The memory's fields beside its text with each credential replaced by
    `[redacted:<kind>]`; a citation's command, URL, path and symbol each."""
    def clean(text: str | None) -> str | None:
        return redact(text, find(text)) if text else text

    citations = tuple(replace(c, value=clean(c.value) or c.value, path=clean(c.path),
                              symbol=clean(c.symbol)) for c in memory.evidence)
    return BesideText(clean(memory.category) or memory.category, clean(memory.speaker),
                      clean(memory.forget_reason), citations)


def found_in(fields: dict[str, str], find: Finder) -> tuple[tuple[str, str, str], ...]:
    return tuple((name, f.kind, f.where) for name, text in fields.items() for f in find(text))


class RecordPorts(Protocol):
    """Where handoffs and documents are kept (the store's roles)."""

    @property
    def handoffs(self) -> HandoffStore: ...

    @property
    def documents(self) -> DocumentStore: ...


class OtherRecords:
    def __init__(self, handoffs: HandoffStore, documents: DocumentStore,
                 files: DocumentFiles) -> None:
        self._handoffs = handoffs
        self._documents = documents
        self._files = files

    @classmethod
    def of(cls, store: RecordPorts, files: DocumentFiles) -> OtherRecords:
        return cls(store.handoffs, store.documents, files)

    def scan(self, space_id: str, find: Finder, fix: bool) -> tuple[int, list[OtherHit]]:
        """(how many handoffs and documents were read, those holding credentials)."""
        scanned, hits = 0, []
        for handoff in self._all_handoffs(space_id):
            scanned += 1
            fields = {"summary": handoff.summary, "agent": handoff.agent, "topic": handoff.topic}
            for name, items in (("done", handoff.done), ("nextSteps", handoff.next_steps),
                                ("openQuestions", handoff.open_questions),
                                ("links", handoff.links)):
                fields |= {f"{name}[{i}]": item for i, item in enumerate(items)}
            if found := found_in(fields, find):
                hits.append(OtherHit("handoff", handoff.id, found))
        for document in self._all_documents(space_id):
            scanned += 1
            try:
                text = self._files.text(document)
            except NotFound:
                text = ExtractedText((), ())
            fields = {"title": document.title}
            fields |= {f"chunk {i + 1} ({c.origin})": c.text for i, c in enumerate(text.chunks)}
            found = found_in(fields, find)
            if not found:
                continue
            if fix and text.chunks:
                self._redact_document(document, text, find)
            hits.append(OtherHit("document", document.id, found, fix and bool(text.chunks)))
        return scanned, hits

    def _redact_document(self, document: Document, text: ExtractedText, find: Finder) -> None:
        chunks = tuple(Chunk(redact(c.text, find(c.text)), c.origin) for c in text.chunks)
        self._files.put_text(document, ExtractedText(chunks, text.notes))
        try:
            original = self._files.original(document)
        except NotFound:
            return
        if document.kind in TEXT_KINDS:
            raw = original.decode("utf-8", errors="replace")
            self._files.put_original(document, redact(raw, find(raw)).encode("utf-8"))
        else:
            self._files.drop_original(document)

    def _all_handoffs(self, space_id: str) -> Iterator[Handoff]:
        after: PageAfter | None = None
        while True:
            page = self._handoffs.list_handoffs(space_id, PAGE, after)
            yield from page
            if len(page) < PAGE:
                return
            after = PageAfter(page[-1].created_at, page[-1].id)

    def _all_documents(self, space_id: str) -> Iterator[Document]:
        after: PageAfter | None = None
        while True:
            page = self._documents.list_documents(space_id, PAGE, after)
            yield from page
            if len(page) < PAGE:
                return
            after = PageAfter(page[-1].created_at, page[-1].id)
