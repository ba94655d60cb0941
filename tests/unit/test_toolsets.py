"""Which tools a client is shown: the default list, toolsets, views only for hosts that draw
them, and schemas compacted without changing what a call may send."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.api.apps_session import declares_apps
from memspace.domain.errors import InvalidInput
from memspace.domain.toolsets import TOOLSET_NAMES, parse_toolsets
from memspace.mcp.server import INSTRUCTIONS, build_mcp_server
from memspace.mcp.toolsets import DEFAULT, FOLDED, TOOLSETS, compact_schema, listing, shown
from memspace.services.briefing import briefing_sections
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    container = build(Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("toolsets")),  # type: ignore[call-arg]
                      embedder=HashEmbedder())
    yield container
    container.close()


def registered(app: Container) -> set[str]:
    return {t.name for t in asyncio.run(build_mcp_server(app).list_tools())}


def test_every_tool_is_in_exactly_one_place(app: Container) -> None:
    """Default, one toolset, folded into another, or a view: nothing unreachable, nothing twice."""
    names = registered(app)
    places: dict[str, list[str]] = {}
    for name in names:
        if name in DEFAULT:
            places.setdefault(name, []).append("default")
        for toolset, members in TOOLSETS.items():
            if name in members:
                places.setdefault(name, []).append(toolset)
        if name in FOLDED:
            places.setdefault(name, []).append("folded")
        if name.endswith("_ui"):
            places.setdefault(name, []).append("views")
    assert {n: p for n, p in places.items() if len(p) != 1} == {}
    assert set(places) == names
    assert set(DEFAULT) | set(FOLDED) | set().union(*TOOLSETS.values()) <= names
    assert set(FOLDED.values()) <= set(DEFAULT)
    assert tuple(TOOLSETS) == tuple(TOOLSET_NAMES)


def test_views_are_shown_only_to_a_client_that_draws_them(app: Container) -> None:
    names = registered(app)
    views = {n for n in names if n.endswith("_ui")}
    assert shown(names, (), apps=False) == set(DEFAULT)
    assert shown(names, (), apps=True) == set(DEFAULT) | views
    every = shown(names, tuple(TOOLSETS), apps=False)
    assert every == names - views - set(FOLDED)
    assert shown(names, ("code",), apps=False) == set(DEFAULT) | set(TOOLSETS["code"])


def test_the_listing_puts_the_default_list_first_in_its_order(app: Container) -> None:
    tools = [t.model_dump(by_alias=True, mode="json", exclude_none=True)
             for t in asyncio.run(build_mcp_server(app).list_tools())]
    listed = [t["name"] for t in listing(tools, ("history",), apps=False)]
    assert listed[:len(DEFAULT)] == list(DEFAULT)
    assert set(listed[len(DEFAULT):]) == set(TOOLSETS["history"])


def test_toolset_names_are_parsed_with_a_clear_refusal() -> None:
    assert parse_toolsets(None) is None and parse_toolsets(" , ") is None
    assert parse_toolsets("all") == tuple(TOOLSET_NAMES)
    assert parse_toolsets("Code, history") == ("history", "code")  # the documented order
    with pytest.raises(InvalidInput, match=r"unknown toolset 'histroy'.*history,review"):
        parse_toolsets("histroy,review")


def test_an_unknown_toolset_in_the_settings_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="MEMSPACE_TOOLSETS: unknown toolset 'views'"):
        Settings(_env_file=None, data_dir=tmp_path, toolsets="views")  # type: ignore[call-arg]


def test_compacting_a_schema_keeps_what_a_call_may_send() -> None:
    schema = {
        "type": "object", "title": "addArguments", "required": ["title"],
        "properties": {
            "title": {"type": "string", "title": "Title", "description": "An argument named title."},
            "space": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
                      "title": "Space", "description": "Slug."},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "default": None},
        },
    }
    assert compact_schema(schema) == {
        "type": "object", "required": ["title"],
        "properties": {
            "title": {"type": "string", "description": "An argument named title."},
            "space": {"type": "string", "description": "Slug."},
            # a non-null default, or a choice without null, is kept as it is
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "default": None},
        },
    }


def named_tools(text: str, names: set[str]) -> set[str]:
    return {n for n in names if re.search(rf"\b{re.escape(n)}\b", text)}


def test_the_instructions_and_the_context_name_only_tools_of_the_default_list(
        app: Container) -> None:
    names = registered(app)
    assert named_tools(INSTRUCTIONS, names) <= set(DEFAULT)
    assert {"get_context", "search_memory", "add_memory", "save_handoff"} <= named_tools(
        INSTRUCTIONS, names)
    titles = " ".join(s.title for s in vars(briefing_sections).values()
                      if isinstance(s, briefing_sections.Section))
    assert named_tools(titles, names) <= set(DEFAULT)


def test_only_an_initialize_declaring_the_view_mime_type_earns_the_views() -> None:
    def init(capabilities: object) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"capabilities": capabilities}}).encode()

    ui = "io.modelcontextprotocol/ui"
    assert declares_apps(init({"extensions": {ui: {"mimeTypes": ["text/html;profile=mcp-app"]}}}))
    assert not declares_apps(init({"extensions": {ui: {"mimeTypes": ["text/html"]}}}))
    assert not declares_apps(init({"extensions": {ui: {}}}))
    assert not declares_apps(init({}))
    assert not declares_apps(b'{"method": "initialize", "params": "not an object"}')
    assert not declares_apps(b'[{"method": "initialize"}]')  # a batch is not a handshake
    assert not declares_apps(b'{"method": "tools/list", "initialize": 1}')
    assert not declares_apps(b"not json but says \"initialize\"")
