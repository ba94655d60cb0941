"""Tools are module-level functions registered by name (mcp/registry.py): each one can be
imported from its module and holds no closure over a container (it finds the services through
its Context), and the server lists exactly the tools of the lists, in their order."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path

from memspace.mcp.app_tools import GRAPH_TOOLS, SAVE_TOOLS, SPACE_TOOLS, UPLOAD_TOOLS
from memspace.mcp.apps import LAUNCHERS
from memspace.mcp.code_tools import CODE_TOOLS
from memspace.mcp.document_tools import DOCUMENT_TOOLS
from memspace.mcp.lifecycle_tools import LIFECYCLE_TOOLS
from memspace.mcp.registry import ToolList
from memspace.mcp.server import build_mcp_server
from memspace.mcp.session_tools import SESSION_TOOLS
from memspace.mcp.tools import TOOLS
from memspace.mcp.workflow_tools import WORKFLOW_TOOLS
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder

LISTS: tuple[ToolList, ...] = (DOCUMENT_TOOLS, TOOLS, SESSION_TOOLS, WORKFLOW_TOOLS, CODE_TOOLS,
                              LIFECYCLE_TOOLS, LAUNCHERS, SPACE_TOOLS, SAVE_TOOLS, GRAPH_TOOLS, UPLOAD_TOOLS)


def test_every_tool_is_an_importable_module_function() -> None:
    for tools in LISTS:
        assert tools.functions
        for fn in tools.functions:
            module = importlib.import_module(fn.__module__)
            assert getattr(module, fn.__name__) is fn, fn.__qualname__
            assert fn.__qualname__ == fn.__name__ and fn.__closure__ is None, fn.__qualname__


def test_the_server_lists_the_tools_of_the_lists_in_order(tmp_path: Path) -> None:
    app = build(Settings(_env_file=None, data_dir=tmp_path), embedder=HashEmbedder())  # type: ignore[call-arg]
    try:
        listed = [t.name for t in asyncio.run(build_mcp_server(app).list_tools())]
    finally:
        app.close()
    for tools in LISTS:  # each list's tools listed one after another, in the list's order
        start = listed.index(tools.names[0])
        assert listed[start:start + len(tools.names)] == tools.names
    assert listed.index(DOCUMENT_TOOLS.names[0]) < listed.index(TOOLS.names[0])
    assert {"search_memory", "add_memory", "get_context", "select_space_ui"} <= set(listed)
