"""Cutting a document's blocks into chunks: whole sentences, whole rows, whole code fences.

Parsers turn a file into `Block`s (a page, a CSV row, a paragraph, a fenced code block), each
knowing where it came from. `chunk_blocks` packs consecutive blocks into chunks of about
`target` characters, never crossing a Markdown section, and records each chunk's origin. A
block longer than `target` is cut between sentences (then between words, and only a single
"word" longer than the target is cut inside); a block that must stay whole (a CSV row, a code
fence) becomes a chunk of its own, up to `hard_max`, the most one add accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from memspace.domain.chunks import Chunk

# A sentence ends at . ! ? or … (with closing quotes or brackets) before whitespace and a
# capital, digit or opening quote: "e.g. this" and "3.5 GB" stay whole.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9À-Þ])")
SEPARATOR = "\n\n"
_FENCE_MARKER = re.compile(r"\s*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Block:
    """A unit of a document's text and where it is: `unit` numbers `first`..`last`."""

    text: str
    first: int
    last: int
    unit: Literal["page", "row", "line"]
    section: str | None = None  # Markdown heading path; chunks never span two sections
    keep_whole: bool = False  # a CSV row or a code fence: cut only when over the hard limit
    fence: str | None = None  # the opening line of a code fence, to re-open it on each piece


def origin(blocks: list[Block]) -> str:
    """`page 3`, `rows 2-14`, `lines 5-9`, or a Markdown section's heading path."""
    first = blocks[0]
    if first.section:
        return first.section
    start, end = min(b.first for b in blocks), max(b.last for b in blocks)
    return f"{first.unit} {start}" if start == end else f"{first.unit}s {start}-{end}"


def chunk_blocks(blocks: list[Block], target: int, hard_max: int) -> list[Chunk]:
    """Pack blocks into chunks of at most `target` characters (a block kept whole: `hard_max`)."""
    chunks: list[Chunk] = []
    current: list[Block] = []
    size = 0
    prefix = ""
    previous_section: str | None = None

    def flush() -> None:
        nonlocal current, size, prefix, previous_section
        if current:
            chunks.append(Chunk(prefix + SEPARATOR.join(b.text for b in current), origin(current)))
            previous_section = current[-1].section
        current, size, prefix = [], 0, ""

    for piece in (p for block in blocks for p in pieces(block, target, hard_max)):
        if current and (piece.section != current[0].section
                        or size + len(SEPARATOR) + len(piece.text) > target):
            flush()
        if not current:
            # A chunk that continues a section says which, so it reads (and embeds) in context.
            if piece.section and piece.section == previous_section:
                prefix = f"({piece.section}, continued)\n"
                if len(prefix) + len(piece.text) > hard_max:
                    prefix = ""
            size = len(prefix) - len(SEPARATOR)
        current.append(piece)
        size += len(SEPARATOR) + len(piece.text)
    flush()
    return chunks


def pieces(block: Block, target: int, hard_max: int) -> Iterator[Block]:
    """The block itself when it fits, else its parts, each at most `target` characters."""
    if len(block.text) <= target or (block.keep_whole and len(block.text) <= hard_max):
        yield block
    elif block.fence is not None:
        yield from _fence_pieces(block, target)
    else:
        for part in _pack(_sentence_parts(block.text, target), " ", target):
            yield replace(block, text=part)


def sentences(text: str) -> list[str]:
    """Whitespace-normalised sentences of a prose text."""
    flat = " ".join(text.split())
    found, start = [], 0
    for end in _SENTENCE_END.finditer(flat):
        found.append(flat[start:end.end()])
        start = end.end() + 1  # the one space that follows (whitespace is normalised)
    tail = flat[start:]
    return [*found, tail] if tail else found


def _sentence_parts(text: str, target: int) -> Iterator[str]:
    """Sentences; one longer than `target` comes as its words (a word too long, cut)."""
    for sentence in sentences(text):
        if len(sentence) <= target:
            yield sentence
            continue
        for word in sentence.split(" "):
            for start in range(0, len(word), target):
                yield word[start:start + target]


def _pack(parts: Iterator[str], joiner: str, target: int) -> Iterator[str]:
    """Join consecutive parts while the result stays within `target` characters."""
    current = ""
    for part in parts:
        if current and len(current) + len(joiner) + len(part) > target:
            yield current
            current = ""
        current = f"{current}{joiner}{part}" if current else part
    if current:
        yield current


def _fence_pieces(block: Block, target: int) -> Iterator[Block]:
    """A code fence too long for one add: its lines in groups, each group fenced again."""
    assert block.fence is not None
    marker = _FENCE_MARKER.match(block.fence)
    closer = marker.group(1) if marker else "```"
    lines = block.text.split("\n")[1:]
    if lines and lines[-1].strip() and set(lines[-1].strip()) == {closer[0]}:
        lines = lines[:-1]
    room = max(1, target - len(block.fence) - len(closer) - 2)
    cut = (line[i:i + room] for line in lines for i in range(0, max(len(line), 1), room))
    for group in _pack(cut, "\n", room):
        yield replace(block, text=f"{block.fence}\n{group}\n{closer}")
