"""Repositories registered per space and their code index (docs/evidence.md).

`memspace repo add NAME PATH --space S` registers a git checkout the server can read; a sync
indexes its tracked files (`git ls-files`, vendored and generated trees left out): a file whose
hash is the one recorded is skipped, the others are chunked by language (code/chunkers.py), and
files that left the repository drop their chunks. Writes go in batches of files, each batch one
transaction with the files' hashes, so a sync killed part way leaves whole files indexed and the
next sync completes it. Files that cannot be indexed (a symlink out of the checkout, binary, over
the size limit) are skipped with the reason. Memories citing a changed file are verified again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from memspace.code import git
from memspace.code.chunkers import chunk_text, language_of
from memspace.code.files import MAX_FILE_BYTES, Unreadable, read_text, vendored
from memspace.domain.code import CodeChunk, IndexedFile, Repo
from memspace.domain.errors import Forbidden, InvalidInput, NotFound
from memspace.domain.models import Space
from memspace.domain.ports import Clock
from memspace.domain.role_ports import CodeIndexStore
from memspace.domain.space_ports import SpaceStore
from memspace.services.access import AccessService, Principal
from memspace.services.evidence.verification import VerificationService, VerifiedMemory
from memspace.services.shared import new_id

BATCH_FILES = 400
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class SyncResult:
    repo: Repo
    files: int = 0  # tracked files considered
    indexed: int = 0  # (re)chunked this time
    unchanged: int = 0
    removed: int = 0
    chunks: int = 0  # chunks written this time
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    verified: list[VerifiedMemory] = field(default_factory=list)


def chunk_id(repo_id: str, path: str, start: int, sha: str) -> str:
    return hashlib.sha1(f"{repo_id}\0{path}\0{start}\0{sha}".encode()).hexdigest()[:24]


def indexed_file(repo: Repo, path: str, text: str, sha: str) -> IndexedFile:
    language = language_of(path)
    chunks = tuple(CodeChunk(chunk_id(repo.id, path, p.start_line, sha), repo.space_id, repo.id,
                             path, p.start_line, p.end_line, p.symbol, language, p.body)
                   for p in chunk_text(text, language))
    return IndexedFile(path, sha, language, chunks)


class RepoService:
    def __init__(self, index: CodeIndexStore, spaces: SpaceStore, access: AccessService,
                 clock: Clock, verification: VerificationService,
                 max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self._index = index
        self._spaces = spaces
        self._access = access
        self._clock = clock
        self._verification = verification
        self._max_file_bytes = max_file_bytes

    def add(self, principal: Principal, name: str, path: str, space: str | None) -> Repo:
        target = self._access.resolve(principal, space, write=True)
        name = (name or "").strip()
        if not _NAME.match(name):
            raise InvalidInput(f"repository name '{name}' is not usable: letters, digits, '.', "
                               "'_' and '-', at most 64, e.g. `memspace repo add api ~/src/api`")
        root = git.checkout_root(path)
        repo = Repo(new_id(), target.space.id, name, root, self._clock.now())
        self._index.add_repo(repo)
        return repo

    def repos_of(self, principal: Principal, space: str | None = None) -> list[Repo]:
        if space is None and principal.operator:
            return self._index.list_repos()
        target = self._access.resolve(principal, space)
        return self._index.list_repos(target.space.id)

    def get(self, principal: Principal, name: str, *, write: bool = False) -> Repo:
        repo = self._index.get_repo((name or "").strip())
        space = self._spaces.get_space(repo.space_id) if repo is not None else None
        granted = self._access.access_to(principal, space) if space is not None else None
        if repo is not None and granted is not None:
            if write and not granted.can_write:
                raise Forbidden(f"this key can only read the space of repository '{name}'")
            return repo
        raise NotFound(f"no repository named '{name}'; `memspace repo list` shows them")

    def space_of(self, repo: Repo) -> Space:
        space = self._spaces.get_space(repo.space_id)
        if space is None:
            raise NotFound(f"the space of repository '{repo.name}' is gone")
        return space

    def remove(self, principal: Principal, name: str) -> Repo:
        repo = self.get(principal, name, write=True)
        self._index.remove_repo(repo.id)
        return repo

    def sync_all(self, principal: Principal, space: str | None = None) -> list[SyncResult]:
        return [self.sync(principal, r.name) for r in self.repos_of(principal, space)]

    def sync(self, principal: Principal, name: str) -> SyncResult:
        repo = self.get(principal, name, write=True)
        root = git.checkout_root(repo.path)
        head = git.head(root)
        known = self._index.file_hashes(repo.id)
        result = SyncResult(repo)
        present: set[str] = set()
        batch: list[IndexedFile] = []
        changed: set[str] = set()
        for path in git.tracked_files(root):
            if vendored(path):
                continue
            result.files += 1
            try:
                read = read_text(root, path, self._max_file_bytes)
            except Unreadable as exc:
                result.skipped.append((path, str(exc)))
                continue
            present.add(path)
            if known.get(path) == read.sha256:
                result.unchanged += 1
                continue
            batch.append(indexed_file(repo, path, read.text, read.sha256))
            changed.add(path)
            if len(batch) >= BATCH_FILES:
                self._write(repo, result, batch, [], head)
                batch = []
        removed = sorted(set(known) - present)
        changed.update(removed)
        self._write(repo, result, batch, removed, head)
        result.removed = len(removed)
        result.verified = self._verification.recheck_paths(repo.space_id, repo.name, changed)
        return result

    def _write(self, repo: Repo, result: SyncResult, files: list[IndexedFile],
               removed: list[str], head: str | None) -> None:
        self._index.apply_files(repo, files, removed, self._clock.now(), head)
        result.indexed += len(files)
        result.chunks += sum(len(f.chunks) for f in files)
