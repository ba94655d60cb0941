"""Chunks keep sentences, rows and code fences whole, fit one add, and say where they are from."""

from __future__ import annotations

from memspace.ingest.chunking import Block, chunk_blocks, sentences


def test_long_prose_is_cut_between_sentences() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(30))
    chunks = chunk_blocks([Block(text, 4, 4, "page")], target=100, hard_max=400)
    assert all(len(c.text) <= 100 for c in chunks)
    assert " ".join(c.text for c in chunks) == text
    assert all(c.text.endswith("ends here.") for c in chunks)
    assert {c.origin for c in chunks} == {"page 4"}


def test_blocks_pack_across_pages_and_the_origin_spans_them() -> None:
    chunks = chunk_blocks([Block("Page one text.", 1, 1, "page"),
                           Block("Page two text.", 2, 2, "page")], target=100, hard_max=400)
    assert [(c.origin, c.text) for c in chunks] == [("pages 1-2", "Page one text.\n\nPage two text.")]


def test_a_row_longer_than_the_target_stays_whole_up_to_the_hard_limit() -> None:
    row = "name: " + "x" * 150
    chunks = chunk_blocks([Block("a: 1", 2, 2, "row", keep_whole=True),
                           Block(row, 3, 3, "row", keep_whole=True)], target=100, hard_max=400)
    assert [(c.origin, c.text) for c in chunks] == [("row 2", "a: 1"), ("row 3", row)]


def test_a_fence_over_the_hard_limit_is_split_into_fenced_pieces() -> None:
    code = "```python\n" + "\n".join(f"print({i})" for i in range(40)) + "\n```"
    chunks = chunk_blocks([Block(code, 1, 42, "line", "Setup", keep_whole=True, fence="```python")],
                          target=60, hard_max=100)
    assert len(chunks) > 1
    assert all("```python\n" in c.text and c.text.endswith("\n```") for c in chunks)
    assert all(len(c.text) <= 100 for c in chunks)
    lines = [line for c in chunks for line in c.text.split("\n") if line.startswith("print")]
    assert lines == [f"print({i})" for i in range(40)]


def test_chunks_never_span_two_sections_and_continuations_name_theirs() -> None:
    blocks = [Block("## Install", 1, 1, "line", "Install"),
              Block("Step one is long enough. " * 4, 2, 2, "line", "Install"),
              Block("## Use", 5, 5, "line", "Use")]
    chunks = chunk_blocks(blocks, target=80, hard_max=400)
    assert [c.origin for c in chunks] == ["Install", "Install", "Install", "Use"]
    assert chunks[1].text.startswith("(Install, continued)\n")
    assert chunks[-1].text == "## Use"


def test_a_word_longer_than_the_target_is_cut() -> None:
    chunks = chunk_blocks([Block("a" * 250, 1, 1, "line")], target=100, hard_max=400)
    assert [len(c.text) for c in chunks] == [100, 100, 50]


def test_sentences_survive_abbreviations_and_decimals() -> None:
    assert sentences('E.g. the 3.5 GB disk. He said "stop." Then left') == [
        "E.g. the 3.5 GB disk.", 'He said "stop."', "Then left"]
