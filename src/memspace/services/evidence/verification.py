"""Verification: does the code a memory cites still say what it said (docs/evidence.md)?

Each file citation, cheapest first:
1. the file's hash is the one recorded: `verified`;
2. the hash changed and the anchor is found exactly once: re-anchored silently (the new line
   is stored) and `verified`;
3. otherwise the enclosing symbol decides: still defined in the file `moved`, gone `broken`;
   a file that is gone is `moved` when the repository's index (as of its last sync) still
   defines the symbol elsewhere (a rename), else `broken`.
Commit, command and URL citations are `not_anchored`; a memory shows its worst citation's state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memspace.code.chunkers import chunk_text, language_of
from memspace.code.files import FileText, Unreadable, read_text
from memspace.domain.code import Repo
from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.evidence import Citation, Verification, anchor_at, find_window, overall
from memspace.domain.models import Memory
from memspace.domain.ports import Checked, Clock, MemoryReadStore, PageAfter
from memspace.domain.quoting import QUOTE, first_words, visible
from memspace.domain.role_ports import CodeIndexStore, EvidenceStore
from memspace.services.access import AccessService, Principal
from memspace.services.shared import (
    Page,
    clamp_limit,
    decode_cursor,
    encode_cursor,
    fingerprint,
    memory_id_of,
    memory_ids,
    short_ids,
)


@dataclass(frozen=True)
class VerifiedMemory:
    memory: Memory  # as it is after the check (citations and state updated)
    before: str | None  # its state before the check
    reanchored: int  # citations whose line moved and was re-anchored silently


@dataclass(frozen=True)
class VerifyReport:
    space: str
    checked: list[VerifiedMemory]
    checked_at: datetime

    def count(self, state: str) -> int:
        return sum(1 for v in self.checked if v.memory.verification == state)


def _names(symbol: str) -> set[str]:
    return {symbol, symbol.rsplit(".", 1)[-1]}


class _Files:
    """Files read once per verification run; symbols defined per file, and per repository
    from its code index (for citations whose file was renamed or removed)."""

    def __init__(self, repos: list[Repo], index: CodeIndexStore, space_id: str) -> None:
        self.repos = {r.name: r for r in repos}
        self._index = index
        self._space_id = space_id
        self._texts: dict[tuple[str, str], FileText | None] = {}
        self._symbols: dict[tuple[str, str], set[str]] = {}
        self._indexed: dict[str, set[str]] | None = None

    def text(self, repo: Repo, path: str) -> FileText | None:
        key = (repo.name, path)
        if key not in self._texts:
            try:
                self._texts[key] = read_text(repo.path, path)
            except Unreadable:
                self._texts[key] = None
        return self._texts[key]

    def defines(self, repo: Repo, path: str, symbol: str) -> bool:
        key = (repo.name, path)
        if key not in self._symbols:
            read = self.text(repo, path)
            pieces = chunk_text(read.text, language_of(path)) if read else []
            self._symbols[key] = {n for p in pieces if p.symbol for n in _names(p.symbol)}
        return bool(_names(symbol) & self._symbols[key])

    def defined_anywhere(self, repo: Repo, symbol: str) -> bool:
        if self._indexed is None:
            self._indexed = {}
            for chunk in self._index.chunks_of(self._space_id):
                if chunk.symbol:
                    self._indexed.setdefault(chunk.repo_id, set()).update(_names(chunk.symbol))
        return bool(_names(symbol) & self._indexed.get(repo.id, set()))


def check_citation(citation: Citation, files: _Files) -> Citation:
    if citation.kind != "file":
        return replace(citation, state=Verification.NOT_ANCHORED)
    if citation.repo is None:  # written before any repository was registered: unchecked
        return replace(citation, state=Verification.UNVERIFIED)
    repo = files.repos.get(citation.repo)
    if repo is None or citation.path is None or citation.line is None:
        return replace(citation, state=Verification.BROKEN)
    read = files.text(repo, citation.path)
    symbol = citation.symbol
    if read is None:  # removed or renamed: is what it cited still defined somewhere?
        moved = symbol is not None and files.defined_anywhere(repo, symbol)
        return replace(citation, state=Verification.MOVED if moved else Verification.BROKEN)
    if read.sha256 == citation.file_hash:
        return replace(citation, state=Verification.VERIFIED)
    lines = read.text.split("\n")
    hits = find_window([s.strip() for s in lines], citation.anchor)
    if len(hits) == 1:
        line = hits[0] + citation.offset + 1
        anchor, offset = anchor_at(lines, line - 1)
        return replace(citation, line=line, anchor=anchor, offset=offset, file_hash=read.sha256,
                       state=Verification.VERIFIED)
    if symbol is not None and files.defines(repo, citation.path, symbol):
        return replace(citation, state=Verification.MOVED)
    return replace(citation, state=Verification.BROKEN)


class VerificationService:
    """verify_memory, `memspace verify` and POST /v1/verify; and the re-check after a sync."""

    def __init__(self, memories: MemoryReadStore, index: CodeIndexStore, evidence: EvidenceStore,
                 access: AccessService, clock: Clock) -> None:
        self._memories = memories
        self._index = index
        self._evidence = evidence
        self._access = access
        self._clock = clock

    def verify(self, principal: Principal, space: str | None = None,
               memory_id: str | None = None) -> VerifyReport:
        """One memory (by id), or every active memory of the space that carries evidence. Any
        key that can read the space can verify: the check changes no claim, only its state."""
        target = self._access.resolve(principal, space)
        if memory_id is not None:
            found = self._memories.get_memory(
                target.space.id, memory_id_of(self._memories, target.space.id, memory_id))
            if found is None:
                raise NotFound(f"no memory '{memory_id}' in this space; use an id returned by "
                               "search_memory or listMemories for the same space")
            if not found.evidence:
                raise InvalidInput(f"memory '{found.id}' carries no evidence, so there is nothing "
                                   "to verify; correct_memory can add `evidence` to it")
            chosen = [found]
        else:
            chosen = self._evidence.anchored_memories(target.space.id)
        return VerifyReport(target.space.slug, self.check(target.space.id, chosen),
                            self._clock.now())

    def in_state(self, principal: Principal, state: str, space: str | None = None,
                 limit: int = 20, cursor: str | None = None) -> tuple[str, Page[Memory]]:
        """listMemories `verification`: active memories in that state, newest first, paged."""
        target = self._access.resolve(principal, space)
        try:
            chosen = Verification((state or "").strip().lower())
        except ValueError as exc:
            raise InvalidInput(f"verification '{state}' is unknown; pass one of "
                               f"{', '.join(v.value for v in Verification)}") from exc
        size = clamp_limit(limit, 100)
        query = fingerprint("verification", target.space.id, state=chosen.value)
        after: PageAfter | None = decode_cursor(cursor, query) if cursor else None
        rows = self._evidence.memories_in_state(target.space.id, chosen.value, size + 1, after)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        short = short_ids(memory_ids(self._memories, target.space.id), [m.id for m in rows])
        return target.space.slug, Page(rows, next_cursor, short)

    def recheck_paths(self, space_id: str, repo: str, paths: set[str]) -> list[VerifiedMemory]:
        """After a sync: the memories citing any of `paths` of `repo`, checked again."""
        touched = [m for m in self._evidence.anchored_memories(space_id)
                   if any(c.kind == "file" and c.repo == repo and c.path in paths
                          for c in m.evidence)]
        return self.check(space_id, touched)

    def check(self, space_id: str, memories: Sequence[Memory]) -> list[VerifiedMemory]:
        if not memories:
            return []
        files = _Files(self._index.list_repos(space_id), self._index, space_id)
        now = self._clock.now()
        done: list[VerifiedMemory] = []
        for memory in memories:
            cited = tuple(check_citation(c, files) for c in memory.evidence)
            moved = sum(1 for old, new in zip(memory.evidence, cited, strict=True)
                        if new.line != old.line)
            after = replace(memory, evidence=cited, verification=overall(cited), verified_at=now)
            done.append(VerifiedMemory(after, memory.verification, moved))
        self._evidence.set_verification(
            space_id, [Checked(v.memory.id, v.memory.evidence, str(v.memory.verification))
                       for v in done], now)
        return done


@dataclass(frozen=True)
class BrokenNote:
    """A memory whose cited code moved or broke: what the code check found."""

    memory_id: str
    finding: str  # e.g. "src/auth.py moved to src/auth/tokens.py"


# Space id -> the notes whose cited code moved or broke (broken_notes below finds them; without
# a code check the briefing's section is empty).
BrokenNotes = Callable[[str], Sequence[BrokenNote]]

# At most this many notes of each state go to get_context's "moved or broken" section.
BROKEN_IN_CONTEXT = 5


def broken_notes(store: EvidenceStore) -> BrokenNotes:
    """get_context's "moved or broken notes" (services/briefing/briefing_sections.py): broken first, then
    moved, newest first in each, with the citations that no longer hold."""
    def found(space_id: str) -> list[BrokenNote]:
        return [BrokenNote(m.id, f"({m.verification}: {', '.join(c.text for c in m.evidence)}) "
                                 f"{QUOTE}{visible(first_words(m.content, 30))}")
                for state in ("broken", "moved")
                for m in store.memories_in_state(space_id, state, BROKEN_IN_CONTEXT)]

    return found
