"""Page envelopes (`{"space", <items>, "nextCursor"}`) are made in present/ only, by
present.pages.page_json, so MCP, REST and the CLI cannot drift apart. Parsed with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

from memspace.present.pages import page_json
from memspace.services.shared import Page

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "memspace"


def test_no_page_envelope_is_built_outside_present() -> None:
    built = [f"{path.relative_to(PACKAGE)}:{node.lineno}"
             for path in sorted(PACKAGE.rglob("*.py"))
             if path.relative_to(PACKAGE).parts[0] != "present"
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Dict)
             and any(isinstance(k, ast.Constant) and k.value == "nextCursor" for k in node.keys)]
    assert not built, "page envelopes built outside present/ (use present.pages.page_json):\n" \
        + "\n".join(built)


def test_a_page_names_its_space_items_and_next_cursor() -> None:
    page = Page(items=[1, 2], next_cursor="c2")
    assert page_json("ops", "numbers", page, lambda n: {"n": n}) == {
        "space": "ops", "numbers": [{"n": 1}, {"n": 2}], "nextCursor": "c2"}
