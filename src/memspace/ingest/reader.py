"""FileReader: the DocumentReader port — which kind a file is, and its text as chunks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from memspace.domain.errors import InvalidInput, UnreadableDocument
from memspace.domain.files import ExtractedText
from memspace.ingest.chunking import Block, chunk_blocks
from memspace.ingest.decoding import CSV_FALLBACK, decode, refuse_binary
from memspace.ingest.delimited import read_csv
from memspace.ingest.markdown import read_markdown
from memspace.ingest.pdf import read_pdf
from memspace.ingest.plain import read_text

EXTENSIONS = {
    ".pdf": "pdf",
    ".csv": "csv", ".tsv": "csv",
    ".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".mkd": "markdown",
    ".txt": "text", ".text": "text", ".log": "text", "": "text",
}
READABLE = "PDF (.pdf), CSV (.csv, .tsv), Markdown (.md) and plain text (.txt)"
# CSV rows are dense with numbers and codes: the embedder's tokenizer gives ~2.8 characters per
# word piece on them against 3.9-4.9 on prose (bench/bench_ingest.py, the seed documents), so
# CSV chunks get 3/4 of the chunk size to fit the same 256-piece window.
CSV_CHUNK_SHARE = 0.75


@dataclass(frozen=True)
class ReaderLimits:
    max_pdf_pages: int = 500
    max_csv_rows: int = 50_000
    max_document_chars: int = 2_000_000
    chunk_chars: int = 800
    max_chunk_chars: int = 8_000  # one add's limit (MEMSPACE_MAX_MEMORY_CHARS)


class FileReader:
    """Parsers for PDF, CSV, Markdown and plain text, and the chunking they share."""

    def __init__(self, limits: ReaderLimits | None = None) -> None:
        self._limits = limits or ReaderLimits()

    def kind_of(self, filename: str, data: bytes) -> str:
        """By content for PDFs, else by extension; an unknown extension is read as text if it is.

        Raises:
            InvalidInput: a kind memspace does not read (images, Office files, archives …).
        """
        if data[:1024].find(b"%PDF-") != -1:
            return "pdf"
        suffix = PurePath(filename).suffix.lower()
        if suffix in EXTENSIONS:
            return EXTENSIONS[suffix]
        try:
            refuse_binary(data, "file")
        except UnreadableDocument as exc:
            raise InvalidInput(f"'{filename}' is not a file memspace reads ({exc.message}). "
                               f"memspace reads {READABLE}") from exc
        return "text"

    def read(self, kind: str, data: bytes) -> ExtractedText:
        """Raises UnreadableDocument saying why and what to do."""
        notes: list[str] = []
        blocks: list[Block]
        if kind == "pdf":
            blocks, notes = read_pdf(data, self._limits.max_pdf_pages)
        elif kind == "csv":
            text, note = decode(data, "CSV file", fallback=CSV_FALLBACK)
            notes += [note] if note else []
            blocks = read_csv(text, self._limits.max_csv_rows)
        elif kind in ("markdown", "text"):
            text, _ = decode(data, "Markdown file" if kind == "markdown" else "text file")
            blocks = read_markdown(text) if kind == "markdown" else read_text(text)
        else:
            raise UnreadableDocument(f"memspace cannot read documents of kind '{kind}'; it reads "
                                     f"{READABLE}")
        if not blocks:
            raise UnreadableDocument("the file holds no text (only blank lines or empty rows); "
                                     "check that you picked the right file")
        total = sum(len(b.text) for b in blocks)
        if total > self._limits.max_document_chars:
            raise UnreadableDocument(
                f"the file holds {total:,} characters of text; the limit is "
                f"{self._limits.max_document_chars:,} (MEMSPACE_MAX_DOCUMENT_CHARS): split it "
                "into smaller files, or ask the operator to raise the limit"
            )
        target = self._limits.chunk_chars
        if kind == "csv":
            target = int(target * CSV_CHUNK_SHARE)
        chunks = chunk_blocks(blocks, target, self._limits.max_chunk_chars)
        return ExtractedText(tuple(chunks), tuple(notes))
