"""Evidence: the citations a memory carries, what they look like, and how well they still hold.

A citation is one of
    <repo>/<path>:<line>[#<symbol>]   a line of a file of a registered repository
    <path>:<line>[#<symbol>]          the same, when the space has exactly one repository
    commit:<sha>                      a commit of a registered repository (never anchored)
    cmd:<command>                     a command or measurement someone can rerun
    https://…                         a page

A file citation keeps an *anchor*: the cited line (stripped), widened to its neighbours only
when that line is blank, trivial (`}`) or repeated in the file, so that it can be found again
after edits above it (services/evidence/verification.py). No I/O here.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from memspace.domain.errors import InvalidInput, UnresolvableAnchor

CitationKind = Literal["file", "commit", "cmd", "url"]
MAX_CITATIONS = 20
MAX_CITATION_CHARS = 2_000
# How far an anchor may widen around a blank, trivial or repeated line, each side.
MAX_WIDEN = 3
GRAMMAR = ("each citation is `<repo>/<path>:<line>[#symbol]` (or `<path>:<line>` when the "
           "space has exactly one repository), `commit:<sha>`, `cmd:<command>` or an https:// URL")

_FILE = re.compile(r"^(?P<loc>[^\s:#][^\s:#]*):(?P<line>\d{1,7})(?:#(?P<symbol>[^\s#]{1,200}))?$")
_SHA = re.compile(r"^[0-9a-f]{7,40}$")


class EvidencePolicy(enum.StrEnum):
    OPTIONAL = "optional"
    REQUIRED = "required"


class Verification(enum.StrEnum):
    """How a memory's evidence holds, worst citation first (`ORDER`)."""

    VERIFIED = "verified"
    MOVED = "moved"
    BROKEN = "broken"
    NOT_ANCHORED = "not_anchored"
    UNVERIFIED = "unverified"


# Which state a memory shows when its citations disagree: the worst one.
ORDER = (Verification.BROKEN, Verification.MOVED, Verification.UNVERIFIED,
         Verification.VERIFIED, Verification.NOT_ANCHORED)


@dataclass(frozen=True)
class Citation:
    """One citation. For a file: `repo` (None while no repository is registered), `path`,
    `line`, `symbol` (given, or the enclosing one found when it was written), and the anchor
    (`anchor` lines, the cited one at `offset`) with the file's hash when it was last checked."""

    kind: CitationKind
    value: str  # the command, URL or sha; for a file the path as written
    repo: str | None = None
    path: str | None = None
    line: int | None = None
    symbol: str | None = None
    anchor: tuple[str, ...] = ()
    offset: int = 0
    file_hash: str | None = None
    state: Verification = Verification.UNVERIFIED

    @property
    def text(self) -> str:
        """The compact form shown with the memory."""
        if self.kind == "file":
            where = f"{self.repo}/{self.path}" if self.repo else str(self.path)
            return f"{where}:{self.line}" + (f"#{self.symbol}" if self.symbol else "")
        if self.kind == "url":
            return self.value
        return f"{self.kind}:{self.value}"


def parse_citation(raw: str) -> Citation:
    """The citation `raw` names (syntax only: repositories are resolved by the service)."""
    text = (raw or "").strip()
    if not text:
        raise InvalidInput(f"an evidence entry is empty; {GRAMMAR}")
    if len(text) > MAX_CITATION_CHARS:
        raise InvalidInput(f"an evidence entry is over {MAX_CITATION_CHARS} characters")
    if text.startswith("commit:"):
        sha = text.removeprefix("commit:").strip().lower()
        if not _SHA.match(sha):
            raise InvalidInput(f"'{text}' is not a commit: pass commit:<sha> with 7 to 40 hex digits")
        return Citation("commit", sha, state=Verification.NOT_ANCHORED)
    if text.startswith("cmd:"):
        command = text.removeprefix("cmd:").strip()
        if not command:
            raise InvalidInput("`cmd:` needs the command someone can rerun, e.g. cmd:make test")
        return Citation("cmd", command, state=Verification.NOT_ANCHORED)
    if text.startswith(("https://", "http://")):
        parts = urlsplit(text)
        if parts.scheme != "https" or not parts.netloc or any(c.isspace() for c in text):
            raise InvalidInput(f"'{text}' is not a usable URL: cite an https:// address")
        return Citation("url", text, state=Verification.NOT_ANCHORED)
    found = _FILE.match(text)
    if not found:
        raise InvalidInput(f"'{text}' is not a citation; {GRAMMAR}")
    loc = found["loc"]
    check_relative(loc)
    line = int(found["line"])
    if line < 1:
        raise InvalidInput(f"'{text}': lines are numbered from 1")
    return Citation("file", loc, path=loc, line=line, symbol=found["symbol"])


def check_relative(path: str) -> None:
    """Refuse a path that could leave the repository (absolute, `..`, backslashes)."""
    parts = path.replace("\\", "/").split("/")
    if path.startswith(("/", "~")) or "\\" in path or ".." in parts or "" in parts:
        raise UnresolvableAnchor(
            f"'{path}' points outside the repository; cite a path relative to the "
            "repository's root, without '..'")


def overall(citations: tuple[Citation, ...]) -> Verification | None:
    """The state a memory shows: None without evidence, else its worst citation's."""
    if not citations:
        return None
    states = {c.state for c in citations}
    return next(s for s in ORDER if s in states)


def trivial(line: str) -> bool:
    """A line that says nothing on its own: blank, or punctuation and keywords like `}` or `else:`."""
    bare = line.strip()
    return len(re.sub(r"[\W_]", "", bare)) <= 3 or bare in {"else:", "try:", "finally:", "pass",
                                                             "return", "break", "continue"}


def anchor_at(lines: list[str], index: int) -> tuple[tuple[str, ...], int]:
    """The anchor of line `index` (0-based): its stripped text, widened one neighbour each
    side at a time while it is trivial or not unique in the file. Returns (lines, offset)."""
    stripped = [s.strip() for s in lines]
    lo = hi = index
    for _ in range(MAX_WIDEN + 1):
        window = tuple(stripped[lo:hi + 1])
        if not all(trivial(s) for s in window) and len(find_window(stripped, window)) == 1:
            break
        if lo == 0 and hi == len(lines) - 1:
            break
        lo, hi = max(0, lo - 1), min(len(lines) - 1, hi + 1)
    return tuple(stripped[lo:hi + 1]), index - lo


def find_window(stripped: list[str], window: tuple[str, ...]) -> list[int]:
    """Every 0-based index where `window` starts in `stripped` (lines already stripped)."""
    if not window:
        return []
    first, size = window[0], len(window)
    return [i for i, s in enumerate(stripped)
            if s == first and tuple(stripped[i:i + size]) == window]
