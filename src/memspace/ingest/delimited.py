"""CSV (and TSV): each row becomes one readable line, `column: value; column: value`.

The first row is the header unless one of its cells is a bare number (no column is named
`42`), in which case columns are called `column 1`, `column 2` …. Rows are numbered as the file
counts records: the header is row 1, so row numbers match what a spreadsheet shows (a cell with
an embedded newline stays one row).
"""

from __future__ import annotations

import csv
import io
import re

from memspace.domain.errors import UnreadableDocument
from memspace.ingest.chunking import Block

# The delimiter is guessed from the start of the file only: csv.Sniffer's regexes get slow on
# long samples, and 64 KiB holds hundreds of rows of any real export.
SNIFF_CHARS = 64 * 1024
DELIMITERS = ",;\t|"
# No spreadsheet row is this long: a line past it means lost line breaks or not CSV at all. The
# same bound as the csv module's own per-field limit (csv.field_size_limit(), 131,072), so a
# file fails with this clear message before the module's terse one.
MAX_LINE_CHARS = 131_072
_NUMBER = re.compile(r"^[+-]?(\d[\d,_ ]*)?(\.\d+)?%?$")


def read_csv(text: str, max_rows: int) -> list[Block]:
    """One block per non-empty row, kept whole.

    Raises:
        UnreadableDocument: a line too long, broken quoting, or more than `max_rows` rows.
    """
    for at, physical in enumerate(text.splitlines(), start=1):
        if len(physical) > MAX_LINE_CHARS:
            raise UnreadableDocument(
                f"line {at:,} of this CSV is {len(physical):,} characters long (the limit for one "
                f"line is {MAX_LINE_CHARS:,}): its line breaks were lost or it is not a CSV "
                "export; export it again as CSV"
            )
    # strict: a quote left open must fail the file; the lenient default reads on to the end of
    # the file as one field and merges every row after it into one memory.
    records = csv.reader(io.StringIO(text, newline=""), _dialect(text[:SNIFF_CHARS]), strict=True)
    blocks: list[Block] = []
    names: list[str] | None = None
    number = 0
    try:
        for number, record in enumerate(records, start=1):
            if number == 1:
                names = _names(record)
                if names is not None:
                    continue
            line = _render(names or [], record)
            if not line:
                continue
            if len(blocks) == max_rows:
                raise UnreadableDocument(
                    f"this CSV has more than {max_rows:,} rows (MEMSPACE_MAX_CSV_ROWS): split it "
                    "into smaller files, or ask the operator to raise the limit"
                )
            blocks.append(Block(line, number, number, "row", keep_whole=True))
    except csv.Error as exc:
        raise UnreadableDocument(
            f"this CSV cannot be parsed near row {number + 1:,} ({exc}); a quote is probably "
            "left open — fix that row or export the file again"
        ) from exc
    return blocks


def _dialect(sample: str) -> type[csv.Dialect] | csv.Dialect:
    cut = sample.rfind("\n")
    try:
        return csv.Sniffer().sniff(sample[:cut] if cut > 0 else sample, delimiters=DELIMITERS)
    except csv.Error:  # one column, or too little to tell: plain comma-separated
        return csv.excel


def _names(header: list[str]) -> list[str] | None:
    """Column names from the header row, or None when it looks like data."""
    cells = [" ".join(cell.split()) for cell in header]
    if any(cell and _NUMBER.match(cell) for cell in cells):
        return None
    return [cell or f"column {i}" for i, cell in enumerate(cells, start=1)]


def _render(names: list[str], record: list[str]) -> str:
    parts = []
    for i, cell in enumerate(record):
        value = " ".join(cell.split())
        if value:
            name = names[i] if i < len(names) else f"column {i + 1}"
            parts.append(f"{name}: {value}")
    return "; ".join(parts)
