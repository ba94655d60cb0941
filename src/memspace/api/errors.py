"""Domain errors -> HTTP status, in one table."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from memspace.domain.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    MemspaceError,
    NotFound,
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
}


async def memspace_error_handler(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MemspaceError)
    status = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), 500)
    return JSONResponse({"error": exc.code, "message": exc.message}, status_code=status)
