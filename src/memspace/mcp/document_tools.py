"""The document tools of docs/contract.md: list, read and retry uploaded documents. Each: who is
calling, one service call, shape the output."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.args import READ_ONLY, WRITES, CursorArg, LimitArg, SpaceArg
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import document_page_json
from memspace.present.pages import page_json
from memspace.present.records import document_json
from memspace.present.text import document_line, document_text, documents_text
from memspace.present.tool import result

# listDocuments, getDocument and retryDocument (registered by mcp/tools.py, before the others).
DOCUMENT_TOOLS = ToolList()


@DOCUMENT_TOOLS.tool(
    name="listDocuments",
    title="List documents",
    annotations=READ_ONLY,
    description="List the documents (uploaded files) of a space, newest first, paged.",
)
def list_documents(
    ctx: Context, space: SpaceArg = None, limit: LimitArg = 20, cursor: CursorArg = None
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, page = call(lambda: app.documents.list(who, space, limit, cursor))
    data = page_json(slug, "documents", page, document_json)
    return result(documents_text(slug, page.items, page.next_cursor), data)


@DOCUMENT_TOOLS.tool(
    name="getDocument",
    title="Get a document and its text",
    annotations=READ_ONLY,
    description=(
        "One uploaded document of a space (by the id listDocuments gives): its status "
        "(queued, processing, done, or failed with the reason), progress and fact count, and "
        "its extracted text a page of chunks at a time, each with where it came from (page, "
        "rows, heading). Pass back `nextOffset` as `offset` to read on. Use it to read a "
        "source in full, or to see why a document failed."
    ),
)
def get_document(
    ctx: Context,
    documentId: Annotated[str, Field(description="Document id.")],  # noqa: N803
    space: SpaceArg = None,
    offset: Annotated[int, Field(ge=0, description="First chunk to return (0 = the start).")] = 0,
    limit: Annotated[int, Field(ge=1, le=50, description="How many chunks (1-50).")] = 10,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    page = call(lambda: app.documents.content(who, documentId, space, offset, limit))
    return result(document_text(page), document_page_json(page))


@DOCUMENT_TOOLS.tool(
    name="retryDocument",
    title="Retry a failed document",
    annotations=WRITES,
    description=(
        "Process a failed document again. It goes on from the first chunk not yet saved (a "
        "file that could not be read is read again, under the server's current limits). "
        "Call it when getDocument shows `failed` with a reason that may have passed (the "
        "model or store was down, a limit was raised)."
    ),
)
def retry_document(
    ctx: Context,
    documentId: Annotated[str, Field(description="Id of the failed document.")],  # noqa: N803
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    retried = call(lambda: app.ingestion.retry(who, documentId, space))
    return result(document_line(retried), {"document": document_json(retried)})
