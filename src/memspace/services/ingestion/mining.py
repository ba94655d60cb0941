"""`memspace mine-git`: commit messages that say *why* become notes, each citing its commit.

A commit carries rationale when its message gives a reason (because, so that, instead of, to
avoid, trade-off, …) in more than a few words; merges and one-liners without one are passed
over. Notes go through the add pipeline, so a configured model splits them into facts and
relates them to what the space knows (flat without one), with the author as speaker and the
commit's date as observedAt. Every commit looked at is recorded, so each is mined once."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from memspace.code import git
from memspace.domain.errors import InvalidInput
from memspace.domain.role_ports import CodeIndexStore
from memspace.services.access import Principal
from memspace.services.evidence import RepoService
from memspace.services.memories import AddRequest, MemoryService

MAX_NOTE_CHARS = 2_000
MIN_WORDS = 6
_RATIONALE = re.compile(
    r"\b(because|so that|in order to|to avoid|to prevent|to keep|instead of|rather than|"
    r"due to|otherwise|the reason|trade-?offs?|we chose|decided|prefer|root cause|caused by|"
    r"workaround|so we|which means|since the|why)\b", re.IGNORECASE)


def has_rationale(commit: git.Commit) -> bool:
    text = f"{commit.subject}\n{commit.body}"
    return (commit.parents <= 1 and len(text.split()) >= MIN_WORDS
            and _RATIONALE.search(text) is not None)


def note_of(commit: git.Commit) -> str:
    body = " ".join(commit.body.split())
    text = f"{commit.subject}. {body}" if body else commit.subject
    return text if len(text) <= MAX_NOTE_CHARS else text[:MAX_NOTE_CHARS - 1] + "…"


@dataclass
class MineResult:
    repo: str
    space: str
    commits: int = 0  # looked at this time (not mined before)
    notes: int = 0  # commits that carried rationale
    created: int = 0
    duplicates: int = 0
    memory_ids: list[str] = field(default_factory=list)


class GitMining:
    def __init__(self, repos: RepoService, index: CodeIndexStore, memories: MemoryService) -> None:
        self._repos = repos
        self._index = index
        self._memories = memories

    def mine(self, principal: Principal, name: str, space: str, since: str | None = None) -> MineResult:
        repo = self._repos.get(principal, name, write=True)
        slug = (space or "").strip()
        target = self._repos.space_of(repo)
        if target.slug != slug:
            raise InvalidInput(f"repository '{repo.name}' belongs to space '{target.slug}'; "
                               f"mine it there (--space {target.slug})")
        root = git.checkout_root(repo.path)
        done = self._index.mined_commits(repo.id)
        result = MineResult(repo.name, target.slug)
        for commit in git.log(root, since):
            if commit.sha in done:
                continue
            result.commits += 1
            if has_rationale(commit):
                result.notes += 1
                added = self._memories.submit(principal, AddRequest(
                    note_of(commit), target.slug, "history", commit.author,
                    datetime.fromisoformat(commit.date), evidence=(f"commit:{commit.sha}",)),
                    wait=True)
                result.created += added.status == "created"
                result.duplicates += added.status == "duplicate"
                result.memory_ids += [m.id for m in added.memories]
            self._index.mark_mined(repo.id, [commit.sha])  # before the next: mined once
        return result
