"""A page of a listing on the wire, one shape for MCP, REST and the CLI (docs/contract.md):
the space, its items under the listing's name, and `nextCursor`, the cursor of the next page
(None after the last; a change feed's is always set, for the next poll)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from memspace.services.shared import Page

T = TypeVar("T")


def page_json(space: str, name: str, page: Page[T],
              item_json: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
    """`page` of the listing `name` of `space` (a slug), each item made by `item_json`; an item
    whose id the page has a short id for adds it as `shortId` (the whole id stays)."""
    items = [item_json(item) for item in page.items]
    for item in items:
        if item.get("id") in page.short:
            item["shortId"] = page.short[item["id"]]
    return {"space": space, name: items, "nextCursor": page.next_cursor}
