"""How a memory's citations are kept: one JSON text (a column in SQLite, a property
in Neo4j), read back into `Citation`s. Short keys: it is stored with every cited memory."""

from __future__ import annotations

import json
from typing import Any

from memspace.domain.evidence import Citation, Verification


def citation_rows(citations: tuple[Citation, ...]) -> list[dict[str, Any]]:
    """Citations as plain rows (also what `memspace export` writes for a memory)."""
    rows: list[dict[str, Any]] = []
    for c in citations:
        row: dict[str, Any] = {"k": c.kind, "v": c.value, "s": c.state.value}
        if c.repo:
            row["r"] = c.repo
        if c.kind == "file":
            row.update(p=c.path, l=c.line, y=c.symbol, a=list(c.anchor), o=c.offset,
                       h=c.file_hash)
        rows.append(row)
    return rows


def citations_of(rows: list[dict[str, Any]]) -> tuple[Citation, ...]:
    return tuple(
        Citation(r["k"], r["v"], r.get("r"), r.get("p"), r.get("l"), r.get("y"),
                 tuple(r.get("a") or ()), int(r.get("o") or 0), r.get("h"), Verification(r["s"]))
        for r in rows)


def evidence_text(citations: tuple[Citation, ...]) -> str | None:
    return json.dumps(citation_rows(citations), separators=(",", ":")) if citations else None


def evidence_of(text: str | None) -> tuple[Citation, ...]:
    return citations_of(json.loads(text)) if text else ()
