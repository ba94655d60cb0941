"""Builds the MCPServer for a Container."""

from __future__ import annotations

from memspace import __version__
from memspace.mcp.apps import build_apps
from memspace.mcp.code_tools import CODE_TOOLS
from memspace.mcp.conflict_tools import CONFLICT_TOOLS
from memspace.mcp.document_tools import DOCUMENT_TOOLS
from memspace.mcp.lifecycle_tools import LIFECYCLE_TOOLS
from memspace.mcp.metered import time_tool_calls
from memspace.mcp.registry import MemspaceServer
from memspace.mcp.resources import register_resources
from memspace.mcp.session_tools import SESSION_TOOLS
from memspace.mcp.tools import TOOLS
from memspace.mcp.workflow_tools import WORKFLOW_TOOLS
from memspace.startup.container import Container

# What the server tells every client; it names only tools of the default list (mcp/toolsets.py).
INSTRUCTIONS = """\
memspace is the shared memory of your team: other agents and people read and write the same
spaces. Start a task with get_context (the latest handoff, open conflicts and the most useful
memories in one call); search it (search_memory) before you answer a question about the
project, and save durable facts you learn (add_memory): decisions, conventions, preferences,
findings. One self-contained fact per memory. When a fact is wrong or outdated, correct it
(correct_memory, with the expectedVersion you read) rather than adding a contradicting one.
Coming back after others worked? get_changes_since lists what changed, page by page. Give
decisions, constraints and architecture a `type` when you save them: a save that contradicts one
answers `conflict` with the calls that resolve it; list_conflicts and resolve_conflict settle
the rest. Check notes that cite code with verify_memory. Before you stop, leave a handoff
(save_handoff) for the next agent or session. listSpaces shows which spaces your key can use;
tools act on your active space unless you pass `space`."""


def build_mcp_server(app: Container) -> MemspaceServer:
    server = MemspaceServer(
        app,
        name="memspace",
        title="memspace — shared team memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        extensions=[build_apps(app)],
    )
    # Each module's tools, in the order clients list them (mcp/registry.py).
    for tools in (DOCUMENT_TOOLS, TOOLS, SESSION_TOOLS, WORKFLOW_TOOLS, CODE_TOOLS, LIFECYCLE_TOOLS,
                  CONFLICT_TOOLS):
        tools.register(server.tool)
    register_resources(server, app)
    if app.metrics is not None:
        time_tool_calls(server, app.metrics)
    return server
