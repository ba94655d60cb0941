"""What the parsers make of each file of the corpus: chunks with origins, or a clear reason."""

from __future__ import annotations

import logging

import pytest

from memspace.domain.errors import InvalidInput, UnreadableDocument
from memspace.ingest.reader import FileReader, ReaderLimits
from tests.support import corpus

READER = FileReader()


def read(name: str, data: bytes, reader: FileReader = READER) -> list[tuple[str, str]]:
    extracted = reader.read(reader.kind_of(name, data), data)
    return [(c.origin, c.text) for c in extracted.chunks]


def refusal(name: str, data: bytes, reader: FileReader = READER) -> str:
    with pytest.raises(UnreadableDocument) as caught:
        reader.read(reader.kind_of(name, data), data)
    return caught.value.message


def test_a_pdf_is_read_page_by_page_and_blank_pages_are_noted() -> None:
    extracted = READER.read("pdf", corpus.two_page_pdf())
    assert [(c.origin, c.text) for c in extracted.chunks] == [("page 2", corpus.PRICING)]
    assert extracted.notes == ("no text on page 1 (images only, or empty); those pages were skipped",)


def test_pypdf_warnings_stay_out_of_the_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        refusal("broken.pdf", corpus.truncated_pdf())
    assert [r for r in caplog.records if r.name.startswith("pypdf")] == []


@pytest.mark.parametrize("name, data, words", [
    ("locked.pdf", corpus.encrypted_pdf(), "encrypted PDF: it needs a password to open; upload an "
                                           "unencrypted copy"),
    ("broken.pdf", corpus.truncated_pdf(), "damaged PDF"),
    ("scan.pdf", corpus.scanned_pdf(), "no text layer: this PDF holds only images (a scan?), and "
                                       "memspace does not do OCR"),
    ("fake.pdf", b"just some words", "does not start like a PDF"),
])
def test_unreadable_pdfs_say_why_and_what_to_do(name: str, data: bytes, words: str) -> None:
    assert words in refusal(name, data)


def test_a_pdf_over_the_page_limit_is_refused() -> None:
    reader = FileReader(ReaderLimits(max_pdf_pages=2))
    assert "has 3 pages; the limit is 2 (MEMSPACE_MAX_PDF_PAGES)" in refusal(
        "long.pdf", corpus.pdf(["one", "two", "three"]), reader)


def test_a_utf8_csv_becomes_readable_rows_with_quotes_and_newlines_intact() -> None:
    assert read("plans.csv", corpus.CSV_UTF8) == [("rows 2-4", (
        'product: Pro; price: 49; notes: Includes "priority" support\n\n'
        "product: Team; price: 99; notes: Single sign-on, audit log\n\n"
        "product: Café Plan; price: 12; notes: Ünïcode name"))]


def test_a_latin1_csv_is_read_as_windows_1252_and_says_so() -> None:
    extracted = READER.read("csv", corpus.CSV_LATIN1)
    assert [(c.origin, c.text) for c in extracted.chunks] == [("rows 2-3", (
        'région: Île-de-France; responsable: Hélène; remarque: Réunion le "jeudi"\n\n'
        "région: Bretagne; responsable: Loïc; remarque: Deux lignes en une cellule"))]
    assert "read as Windows-1252" in extracted.notes[0]


def test_a_csv_without_a_header_names_its_columns() -> None:
    assert read("numbers.csv", b"1,2\n3,4\n") == [
        ("rows 1-2", "column 1: 1; column 2: 2\n\ncolumn 1: 3; column 2: 4")]


@pytest.mark.parametrize("upload, words", [
    (corpus.binary_as_csv(), "binary data, not text: it looks like a PNG image"),
    (corpus.Upload("nul.csv", b"a,b\n1,\x00\x01\n"), "binary data, not text (a NUL byte at offset 6)"),
    (corpus.csv_with_a_long_line(), "line 2 of this CSV is 10,485,760 characters long"),
    (corpus.Upload("shift.csv", "名前,値\n".encode("shift_jis") + b"\x81\x40\n"),
     "not UTF-8 text"),
    (corpus.Upload("rows.csv", b"n\n" + b"".join(b"r%d\n" % i for i in range(11))),
     "more than 10 rows (MEMSPACE_MAX_CSV_ROWS)"),
])
def test_broken_csvs_are_refused_with_what_to_do(upload: corpus.Upload, words: str) -> None:
    reader = FileReader(ReaderLimits(max_csv_rows=10))
    assert words in refusal(upload.name, upload.data, reader)


def test_markdown_splits_at_headings_and_keeps_fences_whole() -> None:
    assert read("guide.md", corpus.MARKDOWN) == [
        ("Deploy guide",
         "# Deploy guide\n\nDeploys go out on Thursdays. Every deploy needs two approvals."),
        ("Deploy guide > Rollback",
         "## Rollback\n\nRun the rollback script from the ops repo:\n\n```bash\n"
         "# this is not a heading\n./rollback.sh --to previous\n```\n\n"
         "Rollbacks are announced in #ops."),
    ]


def test_plain_text_must_be_utf8() -> None:
    assert read("notes.txt", b"Line one.\n\nLine three.\n") == [
        ("lines 1-3", "Line one.\n\nLine three.")]
    assert "not UTF-8 text (byte 0xE9 at offset 1" in refusal("notes.txt", "héllo".encode("latin-1"))


def test_whitespace_only_holds_no_text() -> None:
    assert "holds no text" in refusal("blank.txt", b"  \n\n \t\n")


def test_the_character_limit_counts_the_whole_text() -> None:
    reader = FileReader(ReaderLimits(max_document_chars=100))
    assert "200 characters of text; the limit is 100" in refusal("big.txt", b"x" * 200, reader)


def test_the_kind_comes_from_the_content_for_pdfs_and_the_name_otherwise() -> None:
    assert READER.kind_of("report", corpus.two_page_pdf()) == "pdf"
    assert READER.kind_of("data.TSV", b"a\tb") == "csv"
    assert READER.kind_of("notes.yaml", b"key: value") == "text"
    with pytest.raises(InvalidInput, match=r"'sheet.xlsx' is not a file memspace reads .*ZIP"):
        READER.kind_of("sheet.xlsx", b"PK\x03\x04rest")
