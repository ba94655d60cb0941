"""Domain errors -> HTTP status, in one table."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, TypeAdapter

from memspace.domain.errors import (
    AmbiguousId,
    Conflict,
    ContainsSecret,
    Forbidden,
    InvalidInput,
    MemspaceError,
    NotFound,
    RateLimited,
    TooLarge,
    Unauthenticated,
    Unavailable,
)
from memspace.present.shapes import filled

# The first class an error is an instance of wins: subclasses come before their parents.
STATUS: dict[type[MemspaceError], int] = {
    TooLarge: 413,
    InvalidInput: 422,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Unavailable: 503,
    RateLimited: 429,
}


async def memspace_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MemspaceError)
    status = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), 500)
    body: dict[str, object] = {"error": exc.code, "message": exc.message}
    headers: dict[str, str] = {}
    if isinstance(exc, ContainsSecret):  # which kind and where, never the value
        body["findings"] = [{"field": f, "kind": k, "where": w} for f, k, w in exc.findings]
        body["example"] = exc.without
    elif isinstance(exc, RateLimited):
        headers["Retry-After"] = str(exc.retry_after_s)
    elif isinstance(exc, AmbiguousId):  # the ids to choose from
        body["candidates"] = exc.candidates
    elif isinstance(exc, InvalidInput):
        route = request.scope.get("route")
        examples = (_body_schema(route) or {}).get("examples")
        if examples:  # a body of this route that is read (as refusals of its shape show)
            body["example"] = {"method": request.method, "path": str(getattr(route, "path", "")),
                               "body": examples[0]}
    return JSONResponse(body, status_code=status, headers=headers)


async def request_shape_handler(request: Request, exc: Exception) -> JSONResponse:
    """A request that could not be read (not JSON, a field missing or of the wrong type) is
    refused like any other bad input: 422 `invalid_input`, what to change, and a request that
    would be read (`example`), instead of the framework's own shape."""
    assert isinstance(exc, RequestValidationError)
    route = request.scope.get("route")
    path = str(getattr(route, "path", request.url.path))
    problems: list[str] = []
    wrong: dict[str, list[str]] = {"body": [], "query": []}
    for error in exc.errors()[:5]:
        part, *inside = [str(p) for p in error.get("loc", ())] or ["body"]
        if error.get("type") == "json_invalid":
            problems.append("the body is not valid JSON")
            continue
        name = ".".join(inside)
        problems.append(f"{part} {name}: {error.get('msg')}" if name else f"{part}: {error.get('msg')}")
        if part in wrong and inside:
            wrong[part].append(inside[0])
    message = (f"{request.method} {path} could not be read ({'; '.join(problems)}); send it as "
               "`example` shows (every field: the OpenAPI page at /docs)")
    body: dict[str, Any] = {"error": "invalid_input", "message": message}
    if route is not None:
        body["example"] = {"method": request.method, "path": path, **_shape(route, wrong)}
    return JSONResponse(body, status_code=422)


def _shape(route: Any, wrong: dict[str, list[str]]) -> dict[str, Any]:
    """What to send instead: the body model's worked example, else its required and refused
    fields with `space` first, each a value of its type; and the query string's required and
    refused parameters, likewise."""
    shown: dict[str, Any] = {}
    if (schema := _body_schema(route)) is not None:
        names = ["space"] if "space" in schema.get("properties", {}) else []
        shown["body"] = (schema.get("examples") or
                         [filled(schema, names + schema.get("required", []) + wrong["body"])])[0]
    params = getattr(getattr(route, "dependant", None), "query_params", [])
    wanted = [q for q in params if q.field_info.is_required() or q.alias in wrong["query"]]
    if wanted:
        schema = {"properties": {q.alias: TypeAdapter(q.field_info.annotation).json_schema()
                                 for q in wanted}}
        shown["query"] = filled(schema, [q.alias for q in wanted])
    return shown


def _body_schema(route: Any) -> dict[str, Any] | None:
    """The JSON schema of the route's body model (with its `examples`), if it reads a body."""
    field = getattr(route, "body_field", None)
    model = getattr(getattr(field, "field_info", None), "annotation", None)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model.model_json_schema(by_alias=True)
    return None
