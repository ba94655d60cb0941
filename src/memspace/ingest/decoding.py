"""Bytes to text, refusing binary data with a message that names what the file seems to be.

Text files must be UTF-8 (a BOM is fine; UTF-16 with a BOM is read too). CSV alone falls back to
Windows-1252: it is what Excel on Windows writes for "CSV (Comma delimited)", and it is a
superset of Latin-1's printable characters, so Latin-1 exports read correctly as well. Other
encodings are refused rather than guessed, because a wrong guess silently garbles every accent.
"""

from __future__ import annotations

import codecs
import re

from memspace.domain.errors import UnreadableDocument

# Leading bytes of formats people upload by mistake, with what to do instead.
SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive (Excel .xlsx and Word .docx files are ZIP archives); "
                    "export it as CSV, Markdown or plain text"),
    (b"%PDF-", "a PDF; upload it with a .pdf name"),
    (b"\x89PNG", "a PNG image; memspace reads text, and does not do OCR"),
    (b"\xff\xd8\xff", "a JPEG image; memspace reads text, and does not do OCR"),
    (b"GIF8", "a GIF image; memspace reads text"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls/.doc); export it as CSV or plain text"),
    (b"\x1f\x8b", "gzip-compressed; decompress it first"),
)
# More than this share of control characters (other than tab, newline, carriage return and
# form feed) means binary data that happened to decode; real text has next to none.
MAX_CONTROL_SHARE = 0.01
CSV_FALLBACK = "cp1252"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")


def decode(data: bytes, what: str, fallback: str | None = None) -> tuple[str, str | None]:
    """The text of `data` and a note when the fallback encoding was used.

    Raises:
        UnreadableDocument: binary data, or not UTF-8 (nor the fallback).
    """
    for bom, codec in ((codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return _checked(_strict(data, codec, what), what), None
    refuse_binary(data, what)
    try:
        return _checked(data.decode("utf-8-sig"), what), None
    except UnicodeDecodeError as exc:
        if fallback is None:
            raise UnreadableDocument(_not_utf8(what, exc)) from exc
        try:
            text = data.decode(fallback)
        except UnicodeDecodeError as again:
            raise UnreadableDocument(
                f"{_not_utf8(what, exc)} (nor Windows-1252, Excel's default); save it as "
                "\"CSV UTF-8\" and upload it again"
            ) from again
        return _checked(text, what), (
            f"not UTF-8: read as Windows-1252 (Excel's CSV default), byte 0x{exc.object[exc.start]:02X} "
            f"at offset {exc.start:,} being the first that is not UTF-8"
        )


def refuse_binary(data: bytes, what: str) -> None:
    """Raises UnreadableDocument for a known binary format or NUL bytes."""
    head = data[:8]
    for signature, meaning in SIGNATURES:
        if head.startswith(signature):
            raise UnreadableDocument(f"this {what} is binary data, not text: it looks like {meaning}")
    nul = data.find(b"\x00")
    if nul != -1:
        raise UnreadableDocument(
            f"this {what} is binary data, not text (a NUL byte at offset {nul:,}); upload a text "
            "export instead (CSV, Markdown or plain text, UTF-8)"
        )


def _strict(data: bytes, codec: str, what: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise UnreadableDocument(
            f"this {what} starts with a UTF-16 byte-order mark but is not valid UTF-16 "
            f"(offset {exc.start:,}); save it as UTF-8 and upload it again"
        ) from exc


def _checked(text: str, what: str) -> str:
    text = text.lstrip("\ufeff")
    controls = sum(1 for _ in _CONTROL.finditer(text))
    if text and controls / len(text) > MAX_CONTROL_SHARE:
        raise UnreadableDocument(
            f"this {what} looks like binary data ({controls:,} control characters in "
            f"{len(text):,}); upload a text export instead (CSV, Markdown or plain text, UTF-8)"
        )
    return text


def _not_utf8(what: str, exc: UnicodeDecodeError) -> str:
    return (f"this {what} is not UTF-8 text (byte 0x{exc.object[exc.start]:02X} at offset "
            f"{exc.start:,} is not valid UTF-8); save it as UTF-8 and upload it again")
