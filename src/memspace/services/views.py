"""Moved to memspace.present.json; kept for the services that still build wire dicts until they
return typed results."""

from memspace.present.json import (
    change_kind,
    document_json,
    iso,
    key_json,
    memory_json,
    neighbour_json,
    relation_json,
    space_json,
)

__all__ = ["change_kind", "document_json", "iso", "key_json", "memory_json", "neighbour_json",
           "relation_json", "space_json"]
