"""Files cut into chunks by language. Every chunker only chooses where segments start (and
their symbols); `segments_to_chunks` turns those starts into chunks, so for every language a
chunk's body is exactly the lines it claims, no line is claimed twice, and only blank lines
belong to no chunk.

- Python: `def` / `class` at the top level and methods of top-level classes (decorators and
  comments just above go with them).
- Markdown: headings outside fenced code.
- Brace languages (JS/TS, Go, Java, C-family, Rust, …): declarations at brace depth 0, found
  with strings and comments masked (code/masking.py).
- YAML: top-level keys.
- Anything else: line windows.
Segments longer than MAX_CHUNK_LINES are cut into windows of that size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from memspace.code.masking import mask_brace_source

MAX_CHUNK_LINES = 80
WINDOW_LINES = 40

LANGUAGES = {
    ".py": "python", ".pyi": "python", ".md": "markdown", ".markdown": "markdown",
    ".yaml": "yaml", ".yml": "yaml",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".java": "java", ".kt": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp",
    ".rs": "rust", ".swift": "swift", ".scala": "scala", ".php": "php",
}
BRACE = {"javascript", "typescript", "go", "java", "kotlin", "c", "cpp", "csharp", "rust",
         "swift", "scala", "php"}


@dataclass(frozen=True)
class Piece:
    """A chunk before it has an id: 1-based inclusive lines and their exact text."""

    start_line: int
    end_line: int
    symbol: str | None
    body: str


def language_of(path: str) -> str:
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


def chunk_text(text: str, language: str) -> list[Piece]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line starts no line of its own
    if language == "python":
        starts = python_starts(lines)
    elif language == "markdown":
        starts = markdown_starts(lines)
    elif language == "yaml":
        starts = yaml_starts(lines)
    elif language in BRACE:
        starts = brace_starts(lines)
    else:
        starts = [(i, None) for i in range(0, len(lines), WINDOW_LINES)]
    return segments_to_chunks(lines, starts)


def segments_to_chunks(lines: list[str], starts: list[tuple[int, str | None]]) -> list[Piece]:
    """Chunks from segment starts (0-based line, symbol): each segment runs to the next start,
    blank lines trimmed from both ends, long ones cut into windows."""
    marks = sorted({i: s for i, s in starts if 0 <= i < len(lines)}.items())
    if not marks or marks[0][0] != 0:
        marks.insert(0, (0, None))
    pieces: list[Piece] = []
    for n, (begin, symbol) in enumerate(marks):
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        while begin < end and not lines[begin].strip():
            begin += 1
        while end > begin and not lines[end - 1].strip():
            end -= 1
        lo = begin
        while lo < end:
            hi = min(end, lo + MAX_CHUNK_LINES)
            pieces.append(Piece(lo + 1, hi, symbol, "\n".join(lines[lo:hi])))
            lo = hi
    return pieces


_PY_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async\s+)?(?P<kind>def|class)\s+(?P<name>\w+)")


def _with_preamble(lines: list[str], index: int, indent: str, marks: tuple[str, ...]) -> int:
    """Move a start up over the decorators / comments written right above it."""
    while index > 0:
        above = lines[index - 1]
        if above.startswith(indent) and above[len(indent):].startswith(marks):
            index -= 1
        else:
            break
    return index


def python_starts(lines: list[str]) -> list[tuple[int, str | None]]:
    starts: list[tuple[int, str | None]] = []
    top_class: str | None = None
    for i, line in enumerate(lines):
        found = _PY_DEF.match(line)
        if not found:
            top_level = line.strip() and not line[0].isspace()
            if top_level and top_class is not None and not line.startswith(("#", "@", ")")):
                top_class = None
                starts.append((i, None))  # module code after a class
            continue
        indent, name = found["indent"], found["name"]
        if indent == "":
            top_class = name if found["kind"] == "class" else None
            starts.append((_with_preamble(lines, i, "", ("@", "#")), name))
        elif top_class is not None and len(indent.expandtabs()) == 4:
            starts.append((_with_preamble(lines, i, indent, ("@", "#")), f"{top_class}.{name}"))
    return starts


_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$")


def markdown_starts(lines: list[str]) -> list[tuple[int, str | None]]:
    starts: list[tuple[int, str | None]] = []
    fence: str | None = None
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if opened:
            if fence is None:
                fence = opened[1]
            elif opened[1] == fence:
                fence = None
            continue
        if fence is None:
            heading = _HEADING.match(line)
            if heading:
                starts.append((i, heading["title"][:200]))
    return starts


_YAML_KEY = re.compile(r"^(?P<key>[A-Za-z0-9_.\"'$/-][^:#]*?)\s*:(\s|$)")


def yaml_starts(lines: list[str]) -> list[tuple[int, str | None]]:
    starts: list[tuple[int, str | None]] = []
    for i, line in enumerate(lines):
        key = _YAML_KEY.match(line)
        if key:
            starts.append((_with_preamble(lines, i, "", ("#",)), key["key"].strip("\"'")[:200]))
        elif line.startswith("---"):
            starts.append((i, None))
    return starts


_DECL = re.compile(
    r"\b(?:function\*?|class|interface|enum|struct|trait|impl|fn|func|type|namespace|module|"
    r"object|record)\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_$][\w$]*)")
_CALLABLE = re.compile(r"(?P<name>[A-Za-z_$][\w$:~]*)\s*(?:<[^>]*>)?\s*\([^;]*$")
_ASSIGNED = re.compile(r"\b(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*=")


def _brace_symbol(line: str) -> str | None:
    for pattern in (_DECL, _ASSIGNED, _CALLABLE):
        found = pattern.search(line)
        if found and found["name"] not in {"if", "for", "while", "switch", "return", "catch"}:
            return found["name"]
    return None


def brace_starts(lines: list[str]) -> list[tuple[int, str | None]]:
    """A segment starts at a line at depth 0 that opens a block (on it or on the next line)."""
    masked = mask_brace_source("\n".join(lines)).split("\n")
    starts: list[tuple[int, str | None]] = []
    depth = 0
    for i, code in enumerate(masked):
        at_start = depth
        depth = max(0, depth + code.count("{") - code.count("}"))
        if at_start != 0 or not code.strip():
            continue
        opens = "{" in code or (i + 1 < len(masked) and masked[i + 1].lstrip().startswith("{"))
        if opens and (symbol := _brace_symbol(code)) is not None:
            begin = i
            while begin > 0 and lines[begin - 1].strip() and (
                    not masked[begin - 1].strip() or masked[begin - 1].lstrip().startswith(("@", "#["))):
                begin -= 1  # doc comments and annotations above go with it
            starts.append((begin, symbol))
    return starts
