"""search_memory `kind: code` and get_chunk: the space's code chunks, ranked in process.

Chunks are ranked with BM25 over identifier words (camelCase and snake_case split), a chunk's
path and symbol counting as well as its body. Each space's index is built on first use and
kept until a sync changes one of its repositories (their generations key it)."""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass

from memspace.domain.code import CodeChunk, Repo
from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.role_ports import CodeIndexStore
from memspace.services.access import AccessService, Principal
from memspace.services.shared import resolve_id

K1, B = 1.2, 0.75
MAX_QUERY_CHARS = 1_000
_WORD = re.compile(r"[A-Za-z][a-z0-9]*|[A-Z]+(?![a-z])|[0-9]+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def words(text: str) -> list[str]:
    """Lower-case words of identifiers and prose: `getUserName` -> get, user, name,
    getusername; `MAX_FILE` -> max, file, max_file."""
    out: list[str] = []
    for ident in _IDENT.findall(text):
        parts = [p.lower() for p in _WORD.findall(ident)]
        out.extend(parts)
        if len(parts) > 1:
            out.append(ident.lower())
    return out


@dataclass(frozen=True)
class CodeHit:
    chunk: CodeChunk
    repo: str
    score: float


@dataclass(frozen=True)
class CodeSearchResult:
    space: str
    hits: list[CodeHit]
    message: str | None = None  # why the answer is empty, when it is


@dataclass(frozen=True)
class ChunkView:
    space: str
    repo: str
    chunk: CodeChunk


class _SpaceIndex:
    def __init__(self, chunks: list[CodeChunk]) -> None:
        self.chunks = chunks
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.lengths: list[int] = []
        for n, chunk in enumerate(chunks):
            counts = Counter(words(chunk.body))
            for w in words(f"{chunk.path} {chunk.symbol or ''}"):
                counts[w] += 2  # the name of a thing says more than a mention of it
            self.lengths.append(sum(counts.values()))
            for w, tf in counts.items():
                self.postings.setdefault(w, []).append((n, tf))
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0

    def top(self, query: str, limit: int) -> list[tuple[int, float]]:
        scores: dict[int, float] = {}
        total = len(self.chunks)
        for w in set(words(query)):
            posting = self.postings.get(w)
            if not posting:
                continue
            idf = math.log(1 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for n, tf in posting:
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[n] / self.average))
                scores[n] = scores.get(n, 0.0) + idf * norm
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


class CodeSearchService:
    def __init__(self, index: CodeIndexStore, access: AccessService) -> None:
        self._index = index
        self._access = access
        self._cache: dict[str, tuple[tuple[tuple[str, int], ...], _SpaceIndex]] = {}
        self._lock = threading.Lock()

    def _space_index(self, space_id: str, repos: list[Repo]) -> _SpaceIndex:
        key = tuple((r.id, r.generation) for r in repos)
        with self._lock:
            cached = self._cache.get(space_id)
        if cached is not None and cached[0] == key:
            return cached[1]
        built = _SpaceIndex(self._index.chunks_of(space_id))
        with self._lock:
            self._cache[space_id] = (key, built)
        return built

    def search(self, principal: Principal, query: str | None, space: str | None = None,
               limit: int = 10) -> CodeSearchResult:
        target = self._access.resolve(principal, space)
        text = (query or "").strip()
        if not text:
            raise InvalidInput("searching code needs `query` (or `keyword`): the words, names "
                               "or identifiers to look for")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(f"the query is over {MAX_QUERY_CHARS} characters; shorten it")
        repos = self._index.list_repos(target.space.id)
        slug = target.space.slug
        if not repos:
            return CodeSearchResult(slug, [], "no repository is registered for this space, so "
                                    "there is no code to search (an operator runs `memspace "
                                    "repo add NAME PATH --space " + slug + "`)")
        never = [r.name for r in repos if r.synced_at is None]
        index = self._space_index(target.space.id, repos)
        names = {r.id: r.name for r in repos}
        hits = [CodeHit(index.chunks[n], names.get(index.chunks[n].repo_id, "?"), score)
                for n, score in index.top(text, max(1, min(limit, 50)))]
        if hits:
            return CodeSearchResult(slug, hits)
        if len(never) == len(repos):
            return CodeSearchResult(slug, [], f"repository {', '.join(never)} was never "
                                    "indexed; run `memspace repo sync` first")
        return CodeSearchResult(slug, [], "no indexed code matched; try other words or "
                                "identifiers")

    def get_chunk(self, principal: Principal, chunk_id: str, space: str | None = None) -> ChunkView:
        target = self._access.resolve(principal, space)
        chunk = self._index.get_chunk(target.space.id, resolve_id(
            lambda prefixes, limit: self._index.chunk_ids_with_prefix(target.space.id, prefixes, limit),
            chunk_id, "chunk", "chunkId"))
        if chunk is None:
            raise NotFound(f"no code chunk '{chunk_id}' in this space; use an id returned by "
                           "search_memory with kind code for the same space")
        repo = next((r.name for r in self._index.list_repos(target.space.id)
                     if r.id == chunk.repo_id), "?")
        return ChunkView(target.space.slug, repo, chunk)
