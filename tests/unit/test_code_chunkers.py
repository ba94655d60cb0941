"""Every chunker holds to one invariant: a chunk's body is exactly the lines it claims, no line
is claimed twice, and only blank lines are left out. Checked over this repository's own files
(each with its own language's chunker and with every other one) and over generated text."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memspace.code.chunkers import MAX_CHUNK_LINES, Piece, chunk_text, language_of
from memspace.code.masking import mask_brace_source

ROOT = Path(__file__).parents[2]
CHUNKERS = ("python", "markdown", "yaml", "typescript", "rust", "text")


# The repository's top, not this file's folder: `make mutate` runs the tests from a copy in
# ./mutants, which git does not track.
def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


def own_files() -> list[str]:
    listed = git("-C", str(TOP), "ls-files").split("\n")
    texts = []
    for path in filter(None, listed):
        try:
            texts.append((path, (TOP / path).read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    return [p for p, _ in texts]


TOP = Path(git("rev-parse", "--show-toplevel").strip())
FILES = own_files()


def holds(text: str, pieces: list[Piece]) -> None:
    lines = text.split("\n")
    claimed: set[int] = set()
    for piece in pieces:
        assert 1 <= piece.start_line <= piece.end_line <= len(lines)
        assert piece.end_line - piece.start_line < MAX_CHUNK_LINES
        assert piece.body == "\n".join(lines[piece.start_line - 1:piece.end_line])
        span = set(range(piece.start_line, piece.end_line + 1))
        assert not span & claimed, f"lines claimed twice near {piece.start_line}"
        claimed |= span
    unclaimed = set(range(1, len(lines) + 1)) - claimed
    assert all(not lines[n - 1].strip() for n in unclaimed), "a non-blank line left out"


def test_this_repository_has_files_of_several_languages() -> None:
    assert len(FILES) > 100
    assert {"python", "markdown", "typescript", "yaml"} <= {language_of(p) for p in FILES}


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(FILES), language=st.sampled_from((*CHUNKERS, "own")))
def test_every_chunker_over_this_repositorys_files(path: str, language: str) -> None:
    text = (TOP / path).read_text(encoding="utf-8")
    holds(text, chunk_text(text, language_of(path) if language == "own" else language))


LINES = st.sampled_from([
    "", "   ", "def f(x):", "    return x", "class A:", "    def m(self):", "        pass",
    "@decorator", "# comment", "## Heading", "```", "~~~", "key: value", "  nested: 1", "---",
    "function g() {", "}", "{", "const h = () => {", "  if (x) { y(); }", "/* open", "close */",
    "// note {", "s = \"{ not a brace\"", "'", "`template {`", "fn main() {", "impl T for U {",
    "\tindented", "x = 1\r",
])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINES, max_size=200), language=st.sampled_from(CHUNKERS),
       newline=st.booleans())
def test_every_chunker_over_generated_text(lines: list[str], language: str, newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline else "")
    holds(text, chunk_text(text, language))


def test_python_chunks_are_functions_and_methods() -> None:
    text = "import os\n\n\n@cache\ndef a():\n    return 1\n\n\nclass B:\n    x = 1\n\n" \
           "    def c(self):\n        return 2\n\n\nprint(a())\n"
    got = [(p.start_line, p.end_line, p.symbol) for p in chunk_text(text, "python")]
    assert got == [(1, 1, None), (4, 6, "a"), (9, 10, "B"), (12, 13, "B.c"), (16, 16, None)]


def test_markdown_headings_inside_fences_do_not_split() -> None:
    text = "# Title\n\nIntro\n\n```sh\n# not a heading\n```\n\n## Next\nbody\n"
    got = [(p.start_line, p.symbol) for p in chunk_text(text, "markdown")]
    assert got == [(1, "Title"), (9, "Next")]


def test_braces_in_strings_and_comments_do_not_count() -> None:
    text = ('function a() {\n  const s = "}";\n  // }\n  return s;\n}\n\n'
            '/** Docs for b. */\nfunction b() {\n  return `${1}`;\n}\n')
    got = [(p.start_line, p.end_line, p.symbol) for p in chunk_text(text, "javascript")]
    assert got == [(1, 5, "a"), (7, 10, "b")]
    masked = mask_brace_source(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")


@pytest.mark.parametrize("text", ["key: 1\nother:\n  - a\n  - b\n# c\nlast: 2\n"])
def test_yaml_splits_on_top_level_keys(text: str) -> None:
    got = [(p.start_line, p.end_line, p.symbol) for p in chunk_text(text, "yaml")]
    assert got == [(1, 1, "key"), (2, 4, "other"), (5, 6, "last")]
