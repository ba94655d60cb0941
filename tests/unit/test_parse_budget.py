"""Reading a file in a child process under a budget: a hostile PDF is stopped, with the limit
named; a good file reads as it does in-process."""

from __future__ import annotations

import pytest

from memspace.domain.errors import UnreadableDocument
from memspace.ingest.budget import BudgetedReader, ParseBudget
from memspace.ingest.reader import FileReader
from tests.support import corpus


def test_a_pdf_built_to_be_slow_is_stopped_at_the_time_budget_and_says_so() -> None:
    reader = BudgetedReader(FileReader(), ParseBudget(seconds=0.5))
    with pytest.raises(UnreadableDocument, match=r"longer than its 0\.5 s budget "
                                                 r"\(MEMSPACE_MAX_PARSE_SECONDS\)"):
        reader.read("pdf", corpus.hostile_pdf())


def test_a_readable_file_reads_the_same_through_the_child_process() -> None:
    plain = FileReader()
    budgeted = BudgetedReader(plain, ParseBudget(seconds=120))
    data = corpus.two_page_pdf()
    assert budgeted.read("pdf", data) == plain.read("pdf", data)
    assert budgeted.kind_of("notes.bin", data) == "pdf"


def test_an_unreadable_file_keeps_its_own_reason() -> None:
    reader = BudgetedReader(FileReader(), ParseBudget(seconds=120))
    with pytest.raises(UnreadableDocument, match="encrypted PDF"):
        reader.read("pdf", corpus.encrypted_pdf())


def test_a_file_over_the_memory_budget_is_stopped_and_says_so() -> None:
    reader = BudgetedReader(FileReader(), ParseBudget(seconds=120, memory_bytes=64 * 2**20))
    with pytest.raises(UnreadableDocument, match="MEMSPACE_MAX_PARSE_MEMORY_MB"):
        reader.read("text", b"word " * (16 * 2**20))
