"""Tools only the views call (`_meta.ui.visibility: ["app"]`): hosts keep them out of the
model's tool list and refuse them to views of other servers.

They take the same arguments and pass the same services and access rules as the model's
tools; they exist so each view gets the shape it renders, and so a host can tell a person's
clicks from an agent's calls in its audit log.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Annotated

from mcp.server.apps import Apps, Visibility
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memspace.domain.text import counted
from memspace.mcp.args import READ_ONLY, WRITES, AsOfArg, KnownAtArg
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import (
    add_json,
    correction_preview_json,
    graph_json,
    memory_detail_json,
    search_json,
    spaces_json,
)
from memspace.present.records import document_json, iso, memory_json
from memspace.present.text import (
    add_text,
    correction_preview_text,
    graph_text,
    list_text,
    memory_text,
    spaces_text,
)
from memspace.present.tool import result
from memspace.services.memories import AddRequest
from memspace.services.search import SearchRequest

APP_ONLY: list[Visibility] = ["app"]
SpaceArg = Annotated[str | None, Field(description="Space slug; omit for the active space.")]
MemoryIdArg = Annotated[str, Field(description="Memory id.")]
ContentArg = Annotated[str, Field(description="The fact, complete and self-contained.")]
CategoryArg = Annotated[str | None, Field(description="Short label, e.g. decision.")]
ReasonArg = Annotated[str | None, Field(description="Why the old fact no longer holds.")]


# The helpers of the space picker view.
SPACE_TOOLS = ToolList()


@SPACE_TOOLS.tool(visibility=APP_ONLY, name="list_spaces_ui", annotations=READ_ONLY,
                  description="The key's spaces with access level, size and last activity.")
def list_spaces_ui(ctx: Context) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    listing = call(lambda: app.spaces.listing(who))
    return result(spaces_text(listing), {"spaces": spaces_json(listing)})


@SPACE_TOOLS.tool(visibility=APP_ONLY, name="set_active_space_ui", annotations=WRITES,
                  description="Make a space the key's active space; answers with the new listing.")
def set_active_space_ui(
    ctx: Context, space: Annotated[str, Field(description="Slug of the space to switch to.")]
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    chosen, listing = call(lambda: app.spaces.activate(who, space))
    data = {"activeSpace": chosen.space.slug, "access": chosen.access.value,
            "spaces": spaces_json(listing)}
    return result(f"Active space is now '{chosen.space.slug}'.", data)


# The helpers of the guided save form view.
SAVE_TOOLS = ToolList()


@SAVE_TOOLS.tool(visibility=APP_ONLY, name="find_memories_ui", annotations=READ_ONLY,
                 description="Active memories to pick from: matches of `query`, else the newest.")
def find_memories_ui(
    ctx: Context,
    query: Annotated[str | None, Field(description="What to look for; omit for the newest.")] = None,
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    if query and query.strip():
        found = call(lambda: app.search.search(
            who, SearchRequest(query=query, space=space, limit=20, include_profile=False)))
        data = {"space": found.space, "memories": search_json(found)["results"]}
        text = list_text(f"Memories in '{found.space}'", [h.memory for h in found.hits], None,
                         found.titles)
    else:
        slug, page = call(lambda: app.memories.list(who, space, limit=20))
        data = {"space": slug, "memories": [memory_json(m) for m in page.items]}
        text = list_text(f"Memories in '{slug}'", page.items, None)
    return result(text, data)


@SAVE_TOOLS.tool(visibility=APP_ONLY, name="save_memory_ui", annotations=WRITES,
                 description="Save a memory typed by the user in the guided save form.")
def save_memory_ui(ctx: Context, content: ContentArg, category: CategoryArg = None,
                   space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = replace(principal_of(ctx), via="view")  # typed by a person: provenance human
    request = AddRequest(content, space, category)
    added = call(lambda: app.memories.submit(who, request))
    return result(add_text(added), add_json(added))


@SAVE_TOOLS.tool(visibility=APP_ONLY, name="preview_correction_ui",
                 annotations=READ_ONLY,
                 description="What a correction would write (the UPDATES edge), checked, unsaved.")
def preview_correction_ui(ctx: Context, memoryId: MemoryIdArg, content: ContentArg,  # noqa: N803
                          category: CategoryArg = None, reason: ReasonArg = None,
                          space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    preview = call(lambda: app.memories.preview_correction(
        who, memoryId, content, space, category, reason))
    return result(correction_preview_text(preview), correction_preview_json(preview))


@SAVE_TOOLS.tool(visibility=APP_ONLY, name="correct_memory_ui", annotations=WRITES,
                 description="Correct a memory from the guided save form (new memory, UPDATES edge).")
def correct_memory_ui(ctx: Context, memoryId: MemoryIdArg, content: ContentArg,  # noqa: N803
                      category: CategoryArg = None, reason: ReasonArg = None,
                      space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = replace(principal_of(ctx), via="view")  # typed by a person: provenance human
    added = call(lambda: app.memories.correct(who, memoryId, content, space, category, reason))
    return result(add_text(added), add_json(added))


# The helpers of the memory graph view.
GRAPH_TOOLS = ToolList()


@GRAPH_TOOLS.tool(visibility=APP_ONLY, name="graph_data_ui", annotations=READ_ONLY,
                  description="The newest memories of a space and the relations among them.")
def graph_data_ui(
    ctx: Context, space: SpaceArg = None,
    limit: Annotated[int, Field(ge=1, le=2000, description="Most memories to draw.")] = 500,
    asOf: AsOfArg = None,  # noqa: N803
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    graph = call(lambda: app.graphs.graph(who, space, limit, True, asOf, knownAt))
    return result(graph_text(graph), graph_json(graph))


@GRAPH_TOOLS.tool(visibility=APP_ONLY, name="memory_detail_ui", annotations=READ_ONLY,
                  description="One memory with its history (relations, neighbours) and source document.")
def memory_detail_ui(ctx: Context, memoryId: MemoryIdArg, space: SpaceArg = None,  # noqa: N803
                     knownAt: KnownAtArg = None) -> CallToolResult:  # noqa: N803
    app = app_of(ctx)
    who = principal_of(ctx)
    detail = call(lambda: app.memories.get(who, memoryId, space, known_at=knownAt))
    return result(memory_text(detail), memory_detail_json(detail))


# The helpers of the upload form view.
UPLOAD_TOOLS = ToolList()


@UPLOAD_TOOLS.tool(visibility=APP_ONLY, name="upload_ticket_ui", annotations=READ_ONLY,
                   description="A short-lived ticket the upload view sends instead of the API key.")
def upload_ticket_ui(ctx: Context, space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    ticket = call(lambda: app.uploads.issue(who, space))
    data = {
        "ticket": ticket.token,
        "space": ticket.space,
        "expiresAt": iso(ticket.expires_at),
        "uploadUrl": f"{app.settings.public_origin}/v1/documents",
        "maxBytes": app.ingestion.max_upload_bytes,
    }
    # The ticket stays out of the text: only the view needs it, never a model.
    return result(f"Upload ticket for '{ticket.space}' issued.", data)


@UPLOAD_TOOLS.tool(visibility=APP_ONLY, name="document_status_ui", annotations=READ_ONLY,
                   description="An uploaded document's status and progress, and the facts it produced.")
def document_status_ui(
    ctx: Context,
    documentId: Annotated[str, Field(description="Document id.")],  # noqa: N803
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    document, facts = call(lambda: app.documents.facts(who, documentId, space))
    data = {"document": document_json(document), "facts": [memory_json(m) for m in facts]}
    text = (f"[{document.id}] {document.title}: {document.status.value}, "
            f"{counted(document.fact_count, 'fact')}")
    return result(text, data)


def register_app_tools(apps: Apps, *, picker_uri: str, save_uri: str, graph_uri: str,
                       upload_uri: str) -> None:
    """Add the helper tools of each view to `apps`, each bound to its view's `ui://` URI."""
    for tools, uri in ((SPACE_TOOLS, picker_uri), (SAVE_TOOLS, save_uri),
                       (GRAPH_TOOLS, graph_uri), (UPLOAD_TOOLS, upload_uri)):
        tools.register(functools.partial(apps.tool, resource_uri=uri))
