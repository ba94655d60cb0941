"""The MCP Apps surface (docs/contract.md): five `ui://` views and the tools that open them.

Each launcher tool is linked to its view by `_meta.ui.resourceUri`: a host with MCP Apps
renders the view, any other client shows the tool's text, so that text must be useful on its
own. The app-only tools the views call live in `mcp.app_tools`. Every tool resolves the caller
and goes through the same services and access rules as the model's tools.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.apps import Apps, ResourceCsp
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.app_tools import register_app_tools
from memspace.mcp.args import READ_ONLY
from memspace.mcp.conflict_view import register_conflict_view
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import spaces_json
from memspace.present.records import counts_json, document_json, memory_json
from memspace.present.text import graph_launch_text, spaces_text
from memspace.present.tool import result
from memspace.startup.container import Container
from memspace.surfaces.views import (
    CONFLICTS,
    GUIDED_SAVE,
    MEMORY_GRAPH,
    SPACE_PICKER,
    UPLOAD,
    VIEWS,
    View,
    view_html,
)

SpaceArg = Annotated[
    str | None,
    Field(description="Space slug. Omit to use the key's active or default space."),
]


def build_apps(app: Container) -> Apps:
    """The Apps extension for `MCPServer(extensions=[...])`: views, launchers, helpers."""
    apps = Apps()
    for view in VIEWS:
        apps.add_html_resource(
            view.uri, view_html(view), name=view.name, title=view.title,
            description=view.description, csp=view_csp(app, view), prefers_border=True,
        )
    LAUNCHERS.register(apps.tool)
    register_app_tools(apps, upload_uri=UPLOAD.uri, save_uri=GUIDED_SAVE.uri,
                       graph_uri=MEMORY_GRAPH.uri, picker_uri=SPACE_PICKER.uri)
    register_conflict_view(apps, CONFLICTS.uri)
    return apps


def view_csp(app: Container, view: View) -> ResourceCsp:
    """No view loads anything from anywhere; only the upload view connects, to our own REST
    endpoint, because a file is sent over HTTP rather than through the model's context."""
    if view is UPLOAD:
        return ResourceCsp(connect_domains=[app.settings.public_origin])
    return ResourceCsp(connect_domains=[], resource_domains=[])


# The launcher tools, each bound to its view by `_meta.ui.resourceUri`.
LAUNCHERS = ToolList()


@LAUNCHERS.tool(
    resource_uri=SPACE_PICKER.uri,
    name="select_space_ui",
    title="Choose a memory space",
    annotations=READ_ONLY,
    description=(
        "Show the user a picker of the memory spaces their key can use (access level, size, "
        "last activity) so they can choose the active one. Call it when the user wants to "
        "switch space or asks which spaces exist. Without a UI it lists the spaces; switch "
        "with setActiveSpace."
    ),
)
def select_space_ui(ctx: Context) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    listing = call(lambda: app.spaces.listing(who))
    text = spaces_text(listing) + "\nTo switch, call setActiveSpace with one of these slugs."
    return result(text, {"spaces": spaces_json(listing)})


@LAUNCHERS.tool(
    resource_uri=GUIDED_SAVE.uri,
    name="guided_save_ui",
    title="Save or correct a memory (form)",
    annotations=READ_ONLY,
    description=(
        "Open a form where the user writes a memory with a category, or corrects an existing "
        "one and sees the UPDATES link that will result. Call it when the user wants to save "
        "or fix a fact themselves. Pass a draft in `content`/`category`, or `memoryId` to "
        "open the correction of that memory. Opening it saves nothing."
    ),
)
def guided_save_ui(
    ctx: Context,
    content: Annotated[str | None, Field(description="Draft text to prefill.")] = None,
    category: Annotated[str | None, Field(description="Draft category to prefill.")] = None,
    memoryId: Annotated[str | None, Field(description="Memory to correct (opens the correction tab).")] = None,  # noqa: N803, E501
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    seen = call(lambda: app.spaces.glance(who, space, memories=30))
    slug = seen.space.slug
    data = {
        "space": slug,
        "access": seen.access.value,
        "maxChars": app.settings.max_memory_chars,
        "draft": {"content": content or "", "category": category or "", "memoryId": memoryId},
        "recent": [memory_json(m) for m in seen.memories],
    }
    verb = "save or correct" if seen.access.can_write else "read (this key cannot write)"
    text = (f"Opened the guided save form for space '{slug}' ({verb}). Nothing is saved until "
            "the user submits it. Without a UI, use add_memory or correct_memory instead.")
    return result(text, data)


@LAUNCHERS.tool(
    resource_uri=UPLOAD.uri,
    name="upload_file_ui",
    title="Upload a file to memory",
    annotations=READ_ONLY,
    description=(
        "Open an upload form where the user picks a PDF, CSV, Markdown or text file; it is "
        "sent straight to the server (not through this conversation), split into facts, and "
        "the view shows the facts that came out. Call it when the user wants to add a "
        "document to the team's memory."
    ),
)
def upload_file_ui(ctx: Context, space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    seen = call(lambda: app.spaces.glance(who, space, documents=5))
    slug = seen.space.slug
    url = f"{app.settings.public_origin}/v1/documents"
    data = {
        "space": slug,
        "access": seen.access.value,
        "uploadUrl": url,
        "maxBytes": app.ingestion.max_upload_bytes,
        "recentDocuments": [document_json(d) for d in seen.documents],
    }
    text = (f"Opened the upload form for space '{slug}'. Without a UI, upload from a terminal: "
            f"curl -H 'Authorization: Bearer <your key>' -F file=@notes.pdf -F space={slug} {url}")
    return result(text, data)


@LAUNCHERS.tool(
    resource_uri=MEMORY_GRAPH.uri,
    name="memory_graph_ui",
    title="Show the memory graph",
    annotations=READ_ONLY,
    description=(
        "Show the user an interactive graph of a space's memories: facts as nodes coloured by "
        "category, UPDATES / EXTENDS / DERIVES links as arrows, superseded facts faded; they "
        "can search and click a fact to see its history and source. Call it when the user "
        "wants to see or explore what the team's agents have learned."
    ),
)
def memory_graph_ui(ctx: Context, space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    seen = call(lambda: app.spaces.glance(who, space, memories=3))
    return result(graph_launch_text(seen), {"space": seen.space.slug, "counts": counts_json(seen.stats)})
