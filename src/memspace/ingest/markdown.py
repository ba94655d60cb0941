"""Markdown: sections by heading, paragraphs, and fenced code blocks kept whole.

Headings are ATX (`## Install`) or setext (a line underlined with `===` or `---`); a `#` line
inside a code fence is code, not a heading. Each block carries its section's heading path
("Setup > Install"), which becomes the origin of its chunks. An unclosed fence runs to the end
of the file, as CommonMark reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memspace.ingest.chunking import Block

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass
class _Reader:
    blocks: list[Block] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)  # (level, title) of open headings
    paragraph: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)

    @property
    def section(self) -> str | None:
        return " > ".join(title for _, title in self.path) or None

    def add(self, text: str, first: int, last: int, fence: str | None = None) -> None:
        self.blocks.append(Block(text, first, last, "line", self.section,
                                 keep_whole=fence is not None, fence=fence))

    def end_paragraph(self) -> None:
        if self.paragraph:
            text = "\n".join(line for _, line in self.paragraph)
            self.add(text, self.paragraph[0][0], self.paragraph[-1][0])
            self.paragraph = []

    def heading(self, level: int, title: str, line: str, number: int, first: int) -> None:
        title = " ".join(title.split()) or "(untitled)"
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, title))
        self.add(line, first, number)


def read_markdown(text: str) -> list[Block]:
    """Blocks in document order: headings, paragraphs and whole code fences."""
    reader = _Reader()
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line, number = lines[index], index + 1
        index += 1
        fence = _FENCE.match(line)
        if fence:
            reader.end_paragraph()
            marker = fence.group(1)
            body = [line]
            while index < len(lines):
                body.append(lines[index])
                index += 1
                closing = body[-1].strip()
                if closing.startswith(marker) and set(closing) == {marker[0]}:
                    break
            reader.add("\n".join(body), number, index, fence=line.rstrip())
            continue
        atx = _ATX.match(line)
        if atx:
            reader.end_paragraph()
            reader.heading(len(atx.group(1)), atx.group(2) or "", line.strip(), number, number)
            continue
        setext = _SETEXT.match(line)
        if setext and len(reader.paragraph) == 1:
            first, title = reader.paragraph[0]
            reader.paragraph = []
            level = 1 if setext.group(1).startswith("=") else 2
            reader.heading(level, title, f"{title.strip()}\n{line.strip()}", number, first)
            continue
        if line.strip():
            reader.paragraph.append((number, line.rstrip()))
        else:
            reader.end_paragraph()
    reader.end_paragraph()
    return reader.blocks
