"""Tokens of a 20-hit search_memory answer on the demo space `acme-rebuild` (cl100k_base, as
get_context counts): the tool's text and its structured content, with and without whole
bodies (`includeBody`). Runs the demo into a fresh SQLite store with the default embedder.

    PYTHONPATH=src .venv/bin/python bench/lean_reads.py
    PYTHONPATH=/path/to/older/src .venv/bin/python bench/lean_reads.py   # an older checkout
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path

from memspace.cli.ingest import load_demo
from memspace.llm.tokens import TokenCounter
from memspace.present.json import search_json
from memspace.present.text import search_text
from memspace.services.access.access import AccessService
from memspace.services.search.search import SearchRequest
from memspace.startup.container import build
from memspace.startup.settings import Settings

QUERY = "what did the team decide about the rebuild, its deadlines and its risks?"


def main() -> None:
    count = TokenCounter().count
    with tempfile.TemporaryDirectory() as folder:
        app = build(Settings(_env_file=None, data_dir=Path(folder)))  # type: ignore[call-arg]
        try:
            load_demo(app)
            fields = {f.name for f in dataclasses.fields(SearchRequest)}
            for body in ((False, True) if "include_body" in fields else (None,)):
                request = SearchRequest(QUERY, space="acme-rebuild", limit=20,
                                        include_profile=True)
                if body is not None:
                    request = dataclasses.replace(request, include_body=body)
                found = app.search.search(AccessService.operator(), request)
                text, data = search_text(found), json.dumps(search_json(found))
                label = {None: "before lean reads", False: "lean (default)",
                         True: "includeBody: true"}[body]
                print(f"{label:18} hits={len(found.hits):2} text={count(text):5} tokens "
                      f"structured={count(data):5} tokens total={count(text) + count(data):5}")
        finally:
            app.close()


if __name__ == "__main__":
    main()
