"""Wire shapes and text of the evidence surface (docs/evidence.md): code hits and chunks,
verification reports, repositories and syncs."""

from __future__ import annotations

from typing import Any

from memspace.domain.code import CodeChunk, Repo
from memspace.domain.text import counted
from memspace.present.records import iso, memory_json
from memspace.present.text import memory_line
from memspace.services.evidence import ChunkView, CodeSearchResult, SyncResult, VerifyReport

EXCERPT_LINES = 8


def _excerpt(chunk: CodeChunk) -> str:
    lines = chunk.body.split("\n")
    more = f"\n… ({len(lines) - EXCERPT_LINES} more lines)" if len(lines) > EXCERPT_LINES else ""
    return "\n".join(lines[:EXCERPT_LINES]) + more


def chunk_head_json(chunk: CodeChunk, repo: str) -> dict[str, Any]:
    return {"id": chunk.id, "repo": repo, "path": chunk.path, "startLine": chunk.start_line,
            "endLine": chunk.end_line, "symbol": chunk.symbol, "language": chunk.language}


def code_search_json(found: CodeSearchResult) -> dict[str, Any]:
    data: dict[str, Any] = {
        "space": found.space, "kind": "code",
        "chunks": [chunk_head_json(h.chunk, h.repo) | {"score": round(h.score, 4),
                                                       "excerpt": _excerpt(h.chunk)}
                   for h in found.hits]}
    if found.message:
        data["message"] = found.message
    return data


def _where(chunk: CodeChunk, repo: str) -> str:
    symbol = f" ({chunk.symbol})" if chunk.symbol else ""
    return f"{repo}/{chunk.path}:{chunk.start_line}-{chunk.end_line}{symbol}"


def code_search_text(found: CodeSearchResult) -> str:
    if not found.hits:
        return f"No code in '{found.space}': {found.message}."
    lines = [f"{counted(len(found.hits), 'code chunk')} in '{found.space}' (get_chunk reads one whole):"]
    for hit in found.hits:
        lines.append(f"- [{hit.chunk.id}] {_where(hit.chunk, hit.repo)}")
        lines += [f"    {x}" for x in _excerpt(hit.chunk).split("\n")]
    return "\n".join(lines)


def chunk_json(view: ChunkView) -> dict[str, Any]:
    return {"space": view.space, **chunk_head_json(view.chunk, view.repo),
            "body": view.chunk.body}


def chunk_text(view: ChunkView) -> str:
    width = len(str(view.chunk.end_line))
    numbered = [f"{n:>{width}}  {line}" for n, line in
                enumerate(view.chunk.body.split("\n"), start=view.chunk.start_line)]
    return "\n".join([f"[{view.chunk.id}] {_where(view.chunk, view.repo)}", *numbered])


def verify_json(report: VerifyReport) -> dict[str, Any]:
    states = ("verified", "moved", "broken", "not_anchored", "unverified")
    return {
        "space": report.space, "checkedAt": iso(report.checked_at),
        "counts": {s: report.count(s) for s in states},
        "reanchored": sum(v.reanchored for v in report.checked),
        "memories": [memory_json(v.memory) | {"previous": v.before, "reanchored": v.reanchored}
                     for v in report.checked],
    }


def verify_text(report: VerifyReport) -> str:
    data = verify_json(report)
    counts = ", ".join(f"{n} {s}" for s, n in data["counts"].items() if n)
    head = (f"Verified {counted(len(report.checked), 'cited memory', 'cited memories')} in '{report.space}': "
            f"{counts or 'nothing to check'}; {counted(data['reanchored'], 'citation')} re-anchored.")
    flagged = [v for v in report.checked if v.memory.verification in ("moved", "broken")]
    lines = [head]
    if flagged:
        lines.append("Check these before relying on them (correct_memory with fresh evidence, "
                     "or forget them):")
        lines += [f"- {memory_line(v.memory)}" for v in flagged]
    return "\n".join(lines)


def repo_json(repo: Repo, space: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"name": repo.name, "path": repo.path, "createdAt": iso(repo.created_at),
                            "syncedAt": iso(repo.synced_at), "head": repo.head}
    if space is not None:
        data["space"] = space
    return data


def sync_json(result: SyncResult) -> dict[str, Any]:
    return {"repo": result.repo.name, "files": result.files, "indexed": result.indexed,
            "unchanged": result.unchanged, "removed": result.removed, "chunks": result.chunks,
            "skipped": [{"path": p, "reason": why} for p, why in result.skipped],
            "reverified": {s: sum(1 for v in result.verified if v.memory.verification == s)
                           for s in ("verified", "moved", "broken")}}


def sync_text(result: SyncResult) -> str:
    data = sync_json(result)
    lines = [f"{result.repo.name}: {result.files} files, {result.indexed} indexed "
             f"({result.chunks} chunks), {result.unchanged} unchanged, {result.removed} removed"]
    lines += [f"  skipped {p}: {why}" for p, why in result.skipped]
    if result.verified:
        lines.append("  re-verified cited memories: " + ", ".join(
            f"{n} {s}" for s, n in data["reverified"].items() if n))
    return "\n".join(lines)
