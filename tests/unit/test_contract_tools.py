"""docs/contract.md lists every parameter of every MCP tool and every status an answer can carry,
read from the tools' own input schemas and the code's status types, never from a list kept here."""

from __future__ import annotations

import ast
import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from memspace.domain.models import DocumentStatus
from memspace.mcp.server import build_mcp_server
from memspace.services.memories.add_types import AddStatus
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "contract.md"
MCP_SOURCES = sorted((ROOT / "src" / "memspace" / "mcp").glob("*.py"))
# The section says once that every tool takes it; no row repeats it.
EVERY_TOOL = {"space"}


def tools_section() -> str:
    text = CONTRACT.read_text(encoding="utf-8")
    start = text.index("## MCP tools")
    return text[start:text.index("\n## ", start + 1)]


def entry(section: str, tool: str) -> str | None:
    """What the section says of `tool`: its table row's parameter cell, or the parenthesised
    list after its name (a toolset's or a view's); "" when it is named with no list."""
    row = re.search(rf"^\| `{re.escape(tool)}` \|((?:[^|\\]|\\.)*)\|", section, re.MULTILINE)
    if row:
        return row.group(1)
    named = re.search(rf"`{re.escape(tool)}`\s+\(", section)
    if named is None:
        return "" if f"`{tool}`" in section else None
    depth, end = 1, named.end()
    while depth and end < len(section):
        depth += {"(": 1, ")": -1}.get(section[end], 0)
        end += 1
    return section[named.end():end - 1]


def told(section: str, tool: str) -> str:
    """All the section says of `tool`: its whole table row, or its parenthesised list."""
    row = re.search(rf"^\| `{re.escape(tool)}` \|.*$", section, re.MULTILINE)
    return row.group(0) if row else entry(section, tool) or ""


@pytest.fixture(scope="module")
def container() -> Iterator[Container]:
    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    yield app
    app.close()


def test_every_parameter_of_every_tool_is_in_the_contract(container: Container) -> None:
    tools = asyncio.run(build_mcp_server(container).list_tools())  # every tool, views included
    assert len(tools) > 30 and {"add_memory", "listMemories", "graph_data_ui"} <= {t.name for t in tools}
    section = tools_section()
    unlisted: dict[str, list[str]] = {}
    for tool in tools:
        said = entry(section, tool.name)
        params = set(tool.input_schema.get("properties", {})) - EVERY_TOOL
        lacking = sorted(p for p in params if said is None or f"`{p}`" not in said)
        if said is None or lacking:
            unlisted[tool.name] = lacking or ["(not named)"]
    assert unlisted == {}


def values(schema: object) -> list[object]:
    """Every value a parameter's schema allows by name (its enum or const, nested included)."""
    if isinstance(schema, dict):
        named = [*schema.get("enum", []), *([schema["const"]] if "const" in schema else [])]
        return named + [v for inner in schema.values() for v in values(inner)]
    if isinstance(schema, list):
        return [v for inner in schema for v in values(inner)]
    return []


def test_every_value_a_parameter_takes_by_name_is_in_the_contract(container: Container) -> None:
    tools = asyncio.run(build_mcp_server(container).list_tools())
    section = tools_section()
    unsaid = {f"{tool.name}.{name}": missing
              for tool in tools for name, schema in tool.input_schema.get("properties", {}).items()
              if (missing := [v for v in values(schema)
                              if f"`{v}`" not in (entry(section, tool.name) or "")
                              and f'"{v}"' not in (entry(section, tool.name) or "")])}
    assert unsaid == {}


def statuses_in_the_code() -> dict[str, set[str]]:
    """The `status` each tool's own code writes into an answer, read from its source: a string
    given as "status" in a dict of a function registered with `.tool(name=…)`."""
    found: dict[str, set[str]] = {}
    for source in MCP_SOURCES:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            names = [kw.value.value for d in node.decorator_list if isinstance(d, ast.Call)
                     for kw in d.keywords if kw.arg == "name" and isinstance(kw.value, ast.Constant)]
            if not names:
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Dict):
                    for key, value in zip(inner.keys, inner.values, strict=True):
                        if (isinstance(key, ast.Constant) and key.value == "status"
                                and isinstance(value, ast.Constant)):
                            found.setdefault(names[0], set()).add(value.value)
    return found


def test_every_answer_status_is_in_the_contract() -> None:
    section = tools_section()
    add_row = section[section.index("| `add_memory` |"):].split("\n", 1)[0]
    assert [s for s in get_args(AddStatus) if f"`{s}`" not in add_row] == []
    documents_row = section[section.index("| `documents` |"):].split("\n", 1)[0]
    assert [s.value for s in DocumentStatus if f"`{s.value}`" not in documents_row] == []
    written = statuses_in_the_code()
    assert {"add_memory", "save_handoff"} <= set(written)  # the reading finds what is there
    unsaid = {tool: sorted(s for s in statuses if f"`{s}`" not in told(section, tool))
              for tool, statuses in written.items()}
    assert {tool: missing for tool, missing in unsaid.items() if missing} == {}
