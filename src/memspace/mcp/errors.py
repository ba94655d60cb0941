"""Tool errors an agent can act on: every failed call answers `isError` with structured content
`{"code", "message"}` (plus `example`, a corrected call, where one can be given), `code` from
a closed set (docs/contract.md), and the same text for clients that read only text."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from pydantic import ValidationError

from memspace.domain.errors import (
    AmbiguousId,
    ContainsSecret,
    MemspaceError,
    RateLimited,
    StaleConflict,
    StaleVersion,
)
from memspace.present.shapes import filled

log = logging.getLogger(__name__)

CODES = ("invalid_input", "not_found", "forbidden", "unauthenticated", "conflict",
         "stale_version", "too_large", "duplicate", "unavailable", "missing_evidence",
         "unresolvable_anchor", "contains_secret", "rate_limited", "ambiguous_id")
# Arguments that take a list of ids: an ambiguous one's example is a list too.
LISTS = ("ids", "supersede", "supersedes")
# Domain codes finer than the closed set, folded into the code a caller acts on the same way.
FOLDED = {"unreadable_document": "invalid_input", "extraction_failed": "unavailable"}
# Realistic calls for the tools agents get wrong most, shown with an invalid_input refusal.
EXAMPLES: dict[str, dict[str, Any]] = {
    "search_memory": {"query": "how do we deploy to production?"},
    "add_memory": {"content": "Deploys to production need two approvals", "category": "process"},
    "correct_memory": {"memoryId": "<id from search_memory>", "expectedVersion": 1,
                       "content": "Deploys to production need one approval",
                       "reason": "policy changed"},
    "get_context": {"query": "the task you are starting", "detail": "balanced"},
    "mark_memory": {"memoryId": "<id from search_memory>", "status": "disputed",
                    "reason": "the load test of 2 June contradicts it", "expectedVersion": 1},
    "patch_memory": {"memoryId": "<id from search_memory>", "expectedVersion": 1,
                     "replace": {"old": "two approvals", "new": "one approval"}},
    "get_changes_since": {"since": "2026-05-01T09:00:00Z", "limit": 20},
    "rename_category": {"old": "infra", "new": "infrastructure"},
    "getMemories": {"ids": ["<id from search_memory>", "<another id>"]},
    "list_conflicts": {"limit": 20},
    "resolve_conflict": {"conflictId": "<id from list_conflicts>",
                         "keep": "<the memory id that holds>",
                         "supersede": ["<the memory id that no longer holds>"],
                         "reason": "the March load test settled it",
                         "version": "<version from list_conflicts>"},
    "save_handoff": {"summary": "Where the work stands", "nextSteps": ["what comes next"],
                     "openQuestions": ["what is undecided"]},
}


# Worked calls for the evidence refusals (docs/evidence.md), whatever tool was refused.
CODE_EXAMPLES: dict[str, dict[str, Any]] = {
    "missing_evidence": {"name": "add_memory", "arguments": {
        "content": "Retries back off exponentially, capped at 30 s",
        "evidence": ["api/src/retry.py:42#backoff", "cmd:pytest tests/test_retry.py"]}},
    "unresolvable_anchor": {"name": "add_memory", "arguments": {
        "content": "Retries back off exponentially, capped at 30 s",
        "evidence": ["api/src/retry.py:42"], "dryRun": True}},
}


class CodedToolError(ToolError):
    """A ToolError that knows its code (raised for domain errors by `identity.call`); `extra`
    goes into the structured content beside code and message."""

    def __init__(self, code: str, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.extra = extra or {}


def code_of(exc: MemspaceError) -> str:
    """The closed-set code of a domain error: its own, or the one it is folded into.

    Raises:
        TypeError: the error's code is outside the closed set: a bug to fix here (CODES or
            FOLDED), never passed to the caller as some other code. The MCP server then answers
            as for any crash and logs it with the type's name.
    """
    code = FOLDED.get(exc.code, exc.code)
    if code not in CODES:
        raise TypeError(f"{type(exc).__name__} has code {exc.code!r}, outside the closed set of "
                        "mcp/errors.py: add it to CODES or FOLDED")
    return code


def coded(exc: MemspaceError) -> CodedToolError:
    extra: dict[str, Any] = {}
    if isinstance(exc, StaleVersion):  # what to reload, as data
        extra = {"memoryId": exc.memory_id, "yourVersion": exc.have,
                 "currentVersion": exc.current, "currentId": exc.head_id}
    elif isinstance(exc, StaleConflict):  # what to list again, as data
        extra = {"conflictId": exc.conflict_id, "yourVersion": exc.have,
                 "currentVersion": exc.current}
    elif isinstance(exc, ContainsSecret):  # which kind and where, never the value
        extra = {"findings": [{"field": f, "kind": k, "where": w} for f, k, w in exc.findings],
                 "without": exc.without}
    elif isinstance(exc, RateLimited):
        extra = {"retryAfter": exc.retry_after_s}
    elif isinstance(exc, AmbiguousId):  # the ids to choose from, and the call with the first
        extra = {"candidates": exc.candidates,
                 "example": {exc.argument: [exc.candidates[0]] if exc.argument in LISTS
                             else exc.candidates[0]}}
    return CodedToolError(code_of(exc), exc.message, extra)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in seen:
        seen.append(cause)
        cause = cause.__cause__
    return seen


def example_call(schema: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    """A realistic call of `name`, or one with every required argument filled with a
    placeholder of its type."""
    if name in EXAMPLES:
        return {"name": name, "arguments": EXAMPLES[name]}
    if not schema:
        return None
    return {"name": name, "arguments": filled(schema, schema.get("required", []))}


def classify(exc: ToolError, tool: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    """`{"code", "message"[, "example"]}` for a failed call of `tool`."""
    for link in _chain(exc):
        if isinstance(link, CodedToolError):
            refused = {"code": link.code, "message": link.message, **link.extra}
            if link.code in CODE_EXAMPLES:
                refused["example"] = CODE_EXAMPLES[link.code]
            elif link.code == "invalid_input" and tool in EXAMPLES:
                refused["example"] = example_call(schema, tool)
            if link.code == "contains_secret":  # the call again, each credential replaced
                refused["example"] = {"name": tool, "arguments": refused.pop("without")}
            if link.code == "ambiguous_id":  # the call again, naming the first candidate
                refused["example"] = {"name": tool, "arguments": refused["example"]}
            return refused
        if isinstance(link, ValidationError):
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in link.errors())
            data: dict[str, Any] = {"code": "invalid_input",
                                    "message": f"{tool} got unusable arguments ({problems})"}
            example = example_call(schema, tool)
            if example:
                data["example"] = example
                data["message"] += " — see `example` for the shape of a valid call"
            return data
    text = str(exc).removeprefix(f"Error executing tool {tool}: ")
    if text.startswith("Unknown tool"):
        return {"code": "invalid_input", "message": f"{text}; list the tools to see their names"}
    code, _, rest = text.partition(": ")
    if code in CODES:
        return {"code": code, "message": rest}
    return {"code": "invalid_input", "message": text}


def error_result(data: dict[str, Any]) -> CallToolResult:
    text = f"{data['code']}: {data['message']}"
    if "example" in data:
        text += f"\nExample: {data['example']}"
    return CallToolResult(content=[TextContent(text=text)], structured_content=data,
                          is_error=True)


class CodedErrorsServer(MCPServer[Any]):
    """MCPServer whose failed tool calls carry a code in structured content."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            # A crash: its text stays in the server log, the caller gets a code to act on.
            log.exception("Tool %r raised an unexpected exception", name)
            return error_result({"code": "unavailable", "message": f"{name} failed on the "
                                 "server (the server log has the details); retry later"})
        except ToolError as exc:
            # The schema of the tool called, for the example of a valid call: from the SDK's
            # public listing (an error is rare enough to list the tools for it).
            schema = next((t.input_schema for t in await self.list_tools() if t.name == name), None)
            data = classify(exc, name, schema)
            log.info("Tool %r failed: %s", name, data["code"])
            return error_result(data)
