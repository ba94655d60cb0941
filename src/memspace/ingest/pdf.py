"""PDF: the text layer of each page, through pypdf (docs/operations.md on its errors and logging)."""

from __future__ import annotations

import io
import logging
import re

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError

from memspace.domain.errors import UnreadableDocument
from memspace.ingest.chunking import Block

# A line that ends in a hyphen continues on the next one ("well-" / "known"): join them bare.
_HYPHEN_BREAK = re.compile(r"(?<=\w)-\n(?=\w)")


def read_pdf(data: bytes, max_pages: int) -> tuple[list[Block], list[str]]:
    """One block per page that has text, and notes on pages that had none or failed.

    Raises:
        UnreadableDocument: encrypted, damaged, over `max_pages`, or without any text layer.
    """
    # pypdf reports the damage it works around ("EOF marker not found", "Ignoring wrong
    # pointing object") as logging warnings: noise in the server's log and the CLI's output.
    # What matters reaches the user as this document's error or notes instead.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = _opened(data, max_pages)
    blocks: list[Block] = []
    blank: list[int] = []
    broken: list[str] = []
    for number, page in enumerate(reader.pages, start=1):
        try:
            raw = page.extract_text() or ""
        except Exception as exc:  # one damaged page must not cost the others
            broken.append(f"page {number} ({type(exc).__name__})")
            continue
        text = _HYPHEN_BREAK.sub("-", raw.replace("\r\n", "\n")).replace("\n", " ").strip()
        if text:
            blocks.append(Block(" ".join(text.split()), number, number, "page"))
        else:
            blank.append(number)
    if not blocks:
        if broken:
            raise UnreadableDocument(_damaged("no page could be read: " + ", ".join(broken)))
        raise UnreadableDocument(
            "no text layer: this PDF holds only images (a scan?), and memspace does not do OCR; "
            "run it through OCR first (e.g. ocrmypdf) or upload the text another way"
        )
    notes = []
    if blank:
        notes.append(f"no text on {_pages(blank)} (images only, or empty); those pages were skipped")
    if broken:
        notes.append(f"could not read {', '.join(broken)}; those pages were skipped")
    return blocks, notes


def _opened(data: bytes, max_pages: int) -> PdfReader:
    """The PDF's reader, once it is known to open and to be within `max_pages`."""
    if b"%PDF-" not in data[:1024]:
        raise UnreadableDocument(
            "damaged PDF: the file does not start like a PDF (no %PDF- header); upload the "
            "original file, or give it the extension of what it really is"
        )
    try:
        reader = PdfReader(io.BytesIO(data))
        count = len(reader.pages)
    except FileNotDecryptedError as exc:
        raise UnreadableDocument(
            "encrypted PDF: it needs a password to open; upload an unencrypted copy (for "
            "example print it to PDF, or remove the password in your PDF viewer)"
        ) from exc
    except DependencyError as exc:  # AES without the `cryptography` package
        raise UnreadableDocument(f"encrypted PDF that this server cannot decrypt ({exc}); upload "
                                 "an unencrypted copy") from exc
    except Exception as exc:
        # Malformed input makes pypdf raise more than its own PdfReadError tree (KeyError,
        # ValueError, RecursionError …): every one of them means the file cannot be read.
        raise UnreadableDocument(_damaged(f"{type(exc).__name__}: {exc}")) from exc
    if count == 0:
        raise UnreadableDocument("damaged PDF: it has no pages; upload the original file again")
    if count > max_pages:
        raise UnreadableDocument(
            f"the PDF has {count:,} pages; the limit is {max_pages:,} (MEMSPACE_MAX_PDF_PAGES): "
            "split it into smaller files, or ask the operator to raise the limit"
        )
    return reader


def _damaged(detail: str) -> str:
    return (f"damaged PDF: it cannot be read ({detail}); upload the original file again, or "
            "re-save it from a PDF viewer")


def _pages(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10]) + (" …" if len(numbers) > 10 else "")
    return f"page {shown}" if len(numbers) == 1 else f"{len(numbers)} pages ({shown})"
