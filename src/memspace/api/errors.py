"""Domain errors -> HTTP status, in one table."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from memspace.domain.errors import (
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


async def memspace_error_handler(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MemspaceError)
    status = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), 500)
    body: dict[str, object] = {"error": exc.code, "message": exc.message}
    headers: dict[str, str] = {}
    if isinstance(exc, ContainsSecret):  # which kind and where, never the value
        body["findings"] = [{"field": f, "kind": k, "where": w} for f, k, w in exc.findings]
        body["example"] = exc.without
    if isinstance(exc, RateLimited):
        headers["Retry-After"] = str(exc.retry_after_s)
    return JSONResponse(body, status_code=status, headers=headers)
