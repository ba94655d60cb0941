"""Worked example arguments read off a JSON schema: what a refusal of a call of the wrong shape
shows beside its message, on MCP (a tool's input schema) and REST (a route's body model)."""

from __future__ import annotations

from typing import Any

# A placeholder value by JSON-schema type; an enum shows its first value instead.
PLACEHOLDERS: dict[str, Any] = {"string": "…", "integer": 1, "number": 1.0, "boolean": True,
                                "array": ["…"], "object": {}}


def placeholder(spec: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A value `spec` accepts: its first enum value, else a placeholder of its first non-null
    type (`anyOf` and `$ref` into `defs` followed), else a string."""
    options = [spec, *spec.get("anyOf", [])]
    for option in options:
        if "$ref" in option and defs:
            option = defs.get(option["$ref"].rsplit("/", 1)[-1], {})
        if option.get("enum"):
            return option["enum"][0]
        if option.get("type") in PLACEHOLDERS:
            return PLACEHOLDERS[option["type"]]
    return PLACEHOLDERS["string"]


def filled(schema: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The arguments `names` of `schema`, each with a placeholder of its type, in that order."""
    props: dict[str, Any] = schema.get("properties", {})
    defs: dict[str, Any] = schema.get("$defs", {})
    return {name: placeholder(props.get(name, {}), defs) for name in dict.fromkeys(names)}
