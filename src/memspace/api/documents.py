"""REST for documents: upload (multipart), status and progress, extracted text, retry."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from starlette.datastructures import FormData, UploadFile
from starlette.types import Message

from memspace.api.deps import ContainerDep, PrincipalDep
from memspace.domain.errors import InvalidInput
from memspace.present.json import document_content_json, upload_json
from memspace.present.pages import page_json
from memspace.present.records import document_json
from memspace.services.ingestion import too_large

router = APIRouter(prefix="/v1/documents", tags=["documents"])

# The multipart framing around the file (boundary lines, part headers, the `space` and
# `title` fields) takes a few hundred bytes; 64 KiB leaves room for long names and titles.
FORM_OVERHEAD = 64 * 1024

UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"multipart/form-data": {"schema": {
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {"type": "string", "format": "binary",
                         "description": "PDF, CSV/TSV, Markdown or plain-text file."},
                "space": {"type": "string", "description": "Space slug; default: the key's "
                                                          "active or default space."},
                "title": {"type": "string", "description": "Default: the file name."},
            },
        }}},
    },
}


@router.post("", status_code=202, openapi_extra=UPLOAD_BODY, responses={
    200: {"description": "The same file was already uploaded to this space (`duplicate: true`)."},
    413: {"description": "The file is over MEMSPACE_MAX_UPLOAD_BYTES; nothing was stored."},
})
async def upload_document(request: Request, app: ContainerDep, who: PrincipalDep) -> JSONResponse:
    """Store a file and queue it; poll `GET /v1/documents/{id}` until `done` or `failed`."""
    limit = app.ingestion.max_upload_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit + FORM_OVERHEAD:
        raise too_large(limit)  # refused before a byte of the body is read
    form = await _form(request, limit + FORM_OVERHEAD, limit)
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInput("send the file as the multipart/form-data field `file`, e.g. "
                               "curl -H 'Authorization: Bearer msk_…' -F file=@notes.pdf "
                               "-F space=my-team http://127.0.0.1:8000/v1/documents")
        data = await upload.read()
        space, title = _text(form, "space"), _text(form, "title")
        result = await run_in_threadpool(app.ingestion.upload, who, upload.filename or "", data,
                                         space, title)
    finally:
        await form.close()
    return JSONResponse(upload_json(result), status_code=200 if result.duplicate else 202)


@router.get("")
async def list_documents(app: ContainerDep, who: PrincipalDep, space: str | None = None,
                         limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
    """The space's documents, newest first, paged by `nextCursor`."""
    slug, page = await run_in_threadpool(app.documents.list, who, space, limit, cursor)
    return page_json(slug, "documents", page, document_json)


@router.get("/{document_id}")
async def get_document(document_id: str, app: ContainerDep, who: PrincipalDep,
                       space: str | None = None) -> dict[str, Any]:
    """Status (`queued`, `processing`, `done`, `failed` with `error`), progress and fact count."""
    return document_json(await run_in_threadpool(app.documents.get, who, document_id, space))


@router.get("/{document_id}/content")
async def get_document_content(document_id: str, app: ContainerDep, who: PrincipalDep,
                               space: str | None = None, offset: int = 0,
                               limit: int = 10) -> dict[str, Any]:
    """The extracted text, a page of chunks at a time (pass back `nextOffset`)."""
    page = await run_in_threadpool(app.documents.content, who, document_id, space, offset, limit)
    return document_content_json(page)


@router.post("/{document_id}/retry", status_code=202)
async def retry_document(document_id: str, app: ContainerDep, who: PrincipalDep,
                         space: str | None = None) -> dict[str, Any]:
    """Queue a failed document again; it goes on from its first chunk not done."""
    return document_json(await run_in_threadpool(app.ingestion.retry, who, document_id, space))


async def _form(request: Request, body_limit: int, file_limit: int) -> FormData:
    """Parse the multipart body, refusing it (413) as soon as it grows past `body_limit`, so a
    client that sends no Content-Length (chunked) cannot make us spool more than that."""
    received = 0

    async def counted() -> Message:
        nonlocal received
        message = await request.receive()
        received += len(message.get("body", b""))
        if received > body_limit:
            raise too_large(file_limit)
        return message

    return await Request(request.scope, counted).form(max_files=1, max_fields=4)


def _text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value.strip() or None if isinstance(value, str) else None
