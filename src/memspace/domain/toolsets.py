"""Toolsets: named groups of MCP tools a client sees beyond the default list.

A model pays for every listed tool's definition on every turn, so an MCP client sees a short
default list; an operator (MEMSPACE_TOOLSETS, `serve --toolsets`), a key (`key create
--toolsets`) or a client's URL (`/mcp?toolsets=`) widens it by name. Which tool belongs to which
set is the MCP surface's business (mcp/toolsets.py); the names live here because keys store them
and settings check them."""

from __future__ import annotations

from memspace.domain.errors import InvalidInput

# Each name with what it adds, in the order `memspace key create --help` and docs list them.
TOOLSET_NAMES: dict[str, str] = {
    "history": "history and time: list memories, revisions, handoffs",
    "review": "lifecycle and review: mark, patch, rename a category",
    "code": "code and evidence: read an indexed code chunk",
    "documents": "uploaded documents: list, read, retry",
    "spaces": "spaces and identity: switch the active space, who am I",
}
ALL = "all"


def parse_toolsets(text: str | None) -> tuple[str, ...] | None:
    """`"history,review"` as a tuple of known names, `all` as every name; None for no choice
    (empty or missing text), so the next source of a choice applies.

    Raises:
        InvalidInput: a name that is not a toolset; the message lists the names.
    """
    if text is None:
        return None
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if not names:
        return None
    if ALL in names:
        return tuple(TOOLSET_NAMES)
    unknown = [n for n in names if n not in TOOLSET_NAMES]
    if unknown:
        raise InvalidInput(
            f"unknown toolset {', '.join(repr(n) for n in unknown)}: choose from "
            f"{', '.join(TOOLSET_NAMES)} or all, comma-separated (e.g. history,review)")
    return tuple(n for n in TOOLSET_NAMES if n in names)
