"""Plain text: paragraphs (runs of non-blank lines), each knowing its line numbers."""

from __future__ import annotations

from memspace.ingest.chunking import Block


def read_text(text: str) -> list[Block]:
    blocks: list[Block] = []
    paragraph: list[str] = []
    first = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not paragraph:
                first = number
            paragraph.append(line.rstrip())
        elif paragraph:
            blocks.append(Block("\n".join(paragraph), first, number - 1, "line"))
            paragraph = []
    if paragraph:
        blocks.append(Block("\n".join(paragraph), first, first + len(paragraph) - 1, "line"))
    return blocks
