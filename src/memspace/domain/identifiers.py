"""The identifiers in a prompt: what the prompt-recall hook searches memory for.

An identifier is something a person would not write in ordinary prose: a snake_case or
SCREAMING_SNAKE name, a camelCase or PascalCase name (two humps or more), a dotted name
(`services.access`, `cli.py`), a path (`src/memspace/cli/main.py`, `./run.sh`, `~/.claude`) or a
long flag (`--space`). Ordinary words (`deploy`, `Hello`, `API`) are never identifiers, so a
prompt of plain prose finds nothing and the hook stays silent.
"""

from __future__ import annotations

import re

# Only the start of a huge prompt is read, and only its first identifiers are searched: the
# hook answers within a bounded time whatever was pasted.
MAX_SCANNED_CHARS = 100_000
MAX_IDENTIFIERS = 8
MAX_IDENTIFIER_CHARS = 200

_IDENTIFIER = re.compile(
    r"""
    (?P<path>(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*\w)
  | (?P<flag>(?<![\w-])--[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])
  | (?P<dotted>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b)
  | (?P<snake>\b_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*)
  | (?P<camel>\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b)
    """,
    re.VERBOSE,
)
_EXTENSION = re.compile(r"\.[A-Za-z0-9]+$")


def _is_path(text: str) -> bool:
    """`and/or` and `read/write` are prose: a path has a root (`/`, `./`, `~/`), two slashes
    or more, or a file extension."""
    rooted = text.startswith(("/", "./", "../", "~/"))
    return rooted or text.count("/") >= 2 or bool(_EXTENSION.search(text.rsplit("/", 1)[-1]))


def _is_dotted(text: str) -> bool:
    """`e.g` and `U.S.A` are prose: a dotted name has a part of two characters or more."""
    return len(text) >= 4 and any(len(part) >= 2 for part in text.split("."))


def identifiers(prompt: str) -> list[str]:
    """The distinct identifiers of `prompt` (case-insensitively), in order of appearance."""
    found: dict[str, str] = {}
    for match in _IDENTIFIER.finditer(prompt[:MAX_SCANNED_CHARS]):
        kind, text = match.lastgroup, match.group()
        if kind == "path":
            text = text.rstrip(".-")
            if not _is_path(text):
                continue
        elif kind == "dotted" and not _is_dotted(text):
            continue
        if len(text) > MAX_IDENTIFIER_CHARS:
            continue
        found.setdefault(text.casefold(), text)
        if len(found) == MAX_IDENTIFIERS:
            break
    return list(found.values())


def mentions(content: str, identifier: str) -> bool:
    """Does a memory's text hold the identifier as written (case aside)? The strict check
    after the keyword index found every one of its words."""
    return identifier.casefold() in content.casefold()
