"""Every domain error reaches an MCP caller as the code the README documents (mcp/errors.py)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from memspace.domain import errors as domain
from memspace.domain.errors import MemspaceError
from memspace.mcp.errors import (
    CODES,
    CodedErrorsServer,
    classify,
    code_of,
    coded,
    error_result,
    example_call,
)

# The README's closed set and each error type's code in it, written out rather than read from
# mcp/errors.py: a type that changes code, or a code that leaves the set, fails here.
README_CODES = {"invalid_input", "not_found", "forbidden", "unauthenticated", "conflict",
                "stale_version", "too_large", "duplicate", "unavailable", "missing_evidence",
                "unresolvable_anchor", "contains_secret", "rate_limited", "ambiguous_id"}
DOCUMENTED: list[tuple[MemspaceError, str]] = [
    (domain.InvalidInput("x"), "invalid_input"),
    (domain.TooLarge("x"), "too_large"),
    (domain.UnreadableDocument("x"), "invalid_input"),
    (domain.MissingEvidence("x"), "missing_evidence"),
    (domain.UnresolvableAnchor("x"), "unresolvable_anchor"),
    (domain.ContainsSecret([("content", "AWS access key", "line 1, characters 9-28")],
                           {"content": "the key is [redacted:AWS access key]"}), "contains_secret"),
    (domain.RateLimited(3), "rate_limited"),
    (domain.AmbiguousId("memory", "3f16facf", "memoryId", ["3f16facf3", "3f16facf9"]),
     "ambiguous_id"),
    (domain.Unauthenticated("x"), "unauthenticated"),
    (domain.NotFound("x"), "not_found"),
    (domain.SpaceNotFound("team", "x"), "not_found"),
    (domain.Forbidden("x"), "forbidden"),
    (domain.Conflict("x"), "conflict"),
    (domain.DuplicateContent({"h": "m1"}), "duplicate"),
    (domain.StaleVersion("m1", 1, 2, "m2"), "stale_version"),
    (domain.StaleConflict("cf_1", "aaaa", "bbbb"), "stale_version"),
    (domain.Unavailable("x"), "unavailable"),
    (domain.ExtractionFailed("x"), "unavailable"),
]


def test_the_closed_set_is_the_one_the_readme_lists() -> None:
    assert set(CODES) == README_CODES


@pytest.mark.parametrize("error, code", DOCUMENTED, ids=lambda v: type(v).__name__ if
                         isinstance(v, MemspaceError) else v)
def test_each_error_type_has_its_documented_code(error: MemspaceError, code: str) -> None:
    assert code_of(error) == code
    refused = coded(error)
    assert (refused.code, refused.message) == (code, error.message)
    assert str(refused) == f"{code}: {error.message}"


def _every_error_type(kind: type[MemspaceError]) -> list[type[MemspaceError]]:
    return [kind, *(k for sub in kind.__subclasses__() for k in _every_error_type(sub))]


def test_every_error_type_of_the_domain_is_in_the_table_above() -> None:
    # a new error type must be given its code here (and in the README) when it is added
    tested = {type(error) for error, _ in DOCUMENTED}
    local = {k for k in _every_error_type(MemspaceError) if k.__module__ == domain.__name__}
    assert local - {MemspaceError} <= tested, "add the new type to DOCUMENTED"


def test_an_ambiguous_id_lists_the_candidates_and_the_call_again_with_the_first() -> None:
    refused = classify(coded(domain.AmbiguousId("memory", "3f16facf", "memoryId",
                                                ["3f16facf3", "3f16facf9"])), "getMemory", None)
    assert refused["code"] == "ambiguous_id"
    assert refused["candidates"] == ["3f16facf3", "3f16facf9"]
    assert refused["example"] == {"name": "getMemory", "arguments": {"memoryId": "3f16facf3"}}
    assert "send more of the id" in refused["message"]
    listed = classify(coded(domain.AmbiguousId("memory", "3f16facf", "ids",
                                               ["3f16facf3", "3f16facf9"])), "getMemory", None)
    assert listed["example"]["arguments"] == {"ids": ["3f16facf3"]}


def test_a_stale_conflict_carries_what_to_list_again() -> None:
    refused = coded(domain.StaleConflict("cf_1", "aaaa", "bbbb"))
    assert refused.extra == {"conflictId": "cf_1", "yourVersion": "aaaa", "currentVersion": "bbbb"}
    assert "list_conflicts again" in refused.message


def test_a_stale_version_carries_what_to_reload() -> None:
    refused = coded(domain.StaleVersion("m1", 1, 3, "m3"))
    assert refused.extra == {"memoryId": "m1", "yourVersion": 1, "currentVersion": 3,
                             "currentId": "m3"}


class Strange(MemspaceError):
    code = "strange"


class StrangeNotFound(domain.NotFound):
    code = "strange_not_found"


@pytest.mark.parametrize("error", [Strange("x"), MemspaceError("x"), StrangeNotFound("x")],
                         ids=["unknown", "the-base", "unknown-under-a-known-parent"])
def test_a_type_outside_the_closed_set_is_a_bug_named_not_an_unavailable(error: MemspaceError) -> None:
    with pytest.raises(TypeError) as bug:
        code_of(error)
    assert str(bug.value) == (f"{type(error).__name__} has code {error.code!r}, outside the closed "
                              "set of mcp/errors.py: add it to CODES or FOLDED")


# -- the server's answers, called in process (no HTTP): what the MCP client receives ----------

def _server() -> CodedErrorsServer:
    server = CodedErrorsServer("test")

    @server.tool(name="crash")
    def crash(count: int) -> str:
        raise RuntimeError("a bug with a secret in its message")

    @server.tool(name="refuse")
    def refuse() -> str:
        raise coded(domain.StaleVersion("m1", 1, 2, "m2"))

    @server.tool(name="search_memory")
    def search_memory(query: str) -> str:
        raise coded(domain.InvalidInput("query is empty"))

    @server.tool(name="plain")
    def plain() -> str:
        raise ToolError("forbidden: this key may only read: ask for a readwrite grant")

    @server.tool(name="add_memory")
    def add_memory() -> str:
        raise coded(domain.NotFound("space 'x' not found"))

    @server.tool(name="two")
    def two(first: int, items: list[int]) -> str:
        return "never"

    @server.tool(name="loose")
    def loose() -> str:
        raise ToolError("something odd")

    return server


async def _answer(name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    result = await _server().call_tool(name, arguments)
    assert isinstance(result, CallToolResult) and result.is_error
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, TextContent)
    return result.structured_content, text.text


async def test_a_crash_answers_unavailable_without_its_message(caplog: pytest.LogCaptureFixture) -> None:
    data, text = await _answer("crash", {"count": 1})
    assert data == {"code": "unavailable", "message": "crash failed on the server (the server log "
                    "has the details); retry later"}
    assert text == f"unavailable: {data['message']}" and "secret" not in text
    assert "Tool 'crash' raised an unexpected exception" in caplog.text


async def test_a_domain_refusal_carries_its_code_and_data() -> None:
    data, text = await _answer("refuse", {})
    assert data == {"code": "stale_version", "message": domain.StaleVersion("m1", 1, 2, "m2").message,
                    "memoryId": "m1", "yourVersion": 1, "currentVersion": 2, "currentId": "m2"}
    assert text == f"stale_version: {data['message']}"


async def test_an_invalid_input_of_a_common_tool_shows_a_realistic_call() -> None:
    data, text = await _answer("search_memory", {"query": "x"})
    example = {"name": "search_memory", "arguments": {"query": "how do we deploy to production?"}}
    assert data == {"code": "invalid_input", "message": "query is empty", "example": example}
    assert text == f"invalid_input: query is empty\nExample: {example}"


async def test_arguments_of_the_wrong_shape_name_the_field_and_show_a_call() -> None:
    data, _ = await _answer("crash", {"count": "many"})
    assert data["code"] == "invalid_input"
    assert data["message"].startswith("crash got unusable arguments (count: ")
    assert data["message"].endswith(" — see `example` for the shape of a valid call")
    assert data["example"] == {"name": "crash", "arguments": {"count": 1}}


async def test_an_unknown_tool_and_coded_or_uncoded_tool_errors() -> None:
    assert (await _answer("nope", {}))[0] == {
        "code": "invalid_input", "message": "Unknown tool: nope; list the tools to see their names"}
    assert (await _answer("plain", {}))[0] == {
        "code": "forbidden", "message": "this key may only read: ask for a readwrite grant"}
    assert (await _answer("loose", {}))[0] == {"code": "invalid_input", "message": "something odd"}


@pytest.mark.parametrize("schema, arguments", [
    ({"required": ["a", "n", "flag", "items", "kind", "either"], "properties": {
        "a": {"type": "string"}, "n": {"type": "integer"}, "flag": {"type": "boolean"},
        "items": {"type": "array"}, "kind": {"type": "string", "enum": ["x", "y"]},
        "either": {"anyOf": [{"type": "null"}, {"type": "integer"}]}}},
     {"a": "…", "n": 1, "flag": True, "items": ["…"], "kind": "x", "either": 1}),
    ({"required": ["untyped"]}, {"untyped": "…"}),
    ({"required": ["mode", "ratio", "level"], "$defs": {"Mode": {"type": "string", "enum": ["a", "b"]}},
      "properties": {"mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]},
                     "ratio": {"type": "number"}, "level": {"anyOf": [{"enum": [3, 4]}]}}},
     {"mode": "a", "ratio": 1.0, "level": 3}),
    ({"properties": {"a": {"type": "string"}}}, {}),
])
def test_an_example_call_fills_each_required_argument_by_its_type(
    schema: dict[str, Any], arguments: dict[str, Any],
) -> None:
    assert example_call(schema, "tool") == {"name": "tool", "arguments": arguments}


def test_no_schema_gives_no_example_unless_the_tool_has_a_realistic_one() -> None:
    assert example_call(None, "tool") is None and example_call({}, "tool") is None
    assert example_call(None, "add_memory") == {"name": "add_memory", "arguments": {
        "content": "Deploys to production need two approvals", "category": "process"}}


def test_a_wrapped_coded_error_is_found_down_the_chain() -> None:
    inner = coded(domain.NotFound("no memory 'm1'"))
    outer = ToolError("wrapped")
    outer.__cause__ = inner
    assert classify(outer, "getMemory", None) == {"code": "not_found", "message": "no memory 'm1'"}
    looped = ToolError("forbidden: looped")
    looped.__cause__ = looped  # a cycle ends the walk instead of hanging it
    assert classify(looped, "t", None) == {"code": "forbidden", "message": "looped"}


def test_an_error_result_is_marked_as_an_error_with_the_same_text() -> None:
    result = error_result({"code": "not_found", "message": "gone"})
    assert result.is_error and result.structured_content == {"code": "not_found", "message": "gone"}
    assert [c.text for c in result.content if isinstance(c, TextContent)] == ["not_found: gone"]


async def test_only_an_invalid_input_shows_the_realistic_call() -> None:
    assert (await _answer("add_memory", {}))[0] == {"code": "not_found",
                                                    "message": "space 'x' not found"}


async def test_every_unusable_argument_is_named_by_its_path() -> None:
    data, _ = await _answer("two", {"first": "x", "items": [1, "y"]})
    problems = data["message"].removeprefix("two got unusable arguments (").split("; ")
    assert [p.split(": ")[0] for p in problems] == ["first", "items.1"], data["message"]


async def test_each_refusal_is_logged_with_its_tool_and_code(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="memspace.mcp.errors"):
        await _answer("refuse", {})
    assert "Tool 'refuse' failed: stale_version" in [r.getMessage() for r in caplog.records]
