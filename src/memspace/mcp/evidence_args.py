"""What the model-facing tools of tools.py take and answer for evidence (docs/evidence.md):
the `evidence` and `dryRun` arguments, search `kind: code|all`, listMemories `verification`."""

from __future__ import annotations

from typing import Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.identity import call
from memspace.present.code import code_search_json, code_search_text
from memspace.present.json import search_json
from memspace.present.pages import page_json
from memspace.present.records import memory_json
from memspace.present.search_lean import search_lean_json
from memspace.present.text import list_text, search_text
from memspace.present.tool import result
from memspace.services.access import Principal
from memspace.services.search import SearchRequest, SearchResult
from memspace.startup.container import Container

EvidenceArg = Annotated[list[str] | None, Field(description=(
    "Citations: <repo>/<path>:<line>[#symbol], commit:<sha>, cmd:<command> or an https URL."))]
DryRunArg = Annotated[bool, Field(description="Validate and show what would be stored; write nothing.")]


def search_answer_json(found: SearchResult, full_records: bool = False) -> dict[str, Any]:
    """search_memory's structured content: lean, as the text says it (some clients give their
    model this JSON in place of the text), or with `fullRecords` every field of each hit."""
    return search_json(found, lean_profile=True) if full_records else search_lean_json(found)


def search_with_code(app: Container, who: Principal, request: SearchRequest,
                     kind: str, full_records: bool = False) -> CallToolResult:
    """search_memory with `kind` code (chunks only) or all (notes, then code under `code`)."""
    code = call(lambda: app.code.search(who, request.query or request.keyword, request.space,
                                        request.limit))
    if kind == "code":
        return result(code_search_text(code), code_search_json(code))
    found = call(lambda: app.search.search(who, request))
    return result(f"{search_text(found)}\n\n{code_search_text(code)}",
                  search_answer_json(found, full_records) | {"code": code_search_json(code)})


def list_in_state(app: Container, who: Principal, state: str, space: str | None, limit: int,
                  cursor: str | None) -> CallToolResult:
    """listMemories `verification`: the active memories in one verification state."""
    slug, page = call(lambda: app.verification.in_state(who, state, space, limit, cursor))
    data = page_json(slug, "memories", page, memory_json)
    return result(list_text(f"Memories in '{slug}' ({state})", page.items, page.next_cursor,
                            short=page.short), data)
