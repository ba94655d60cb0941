"""Print what the MCP server lists (tools/list, then resources/list) as JSON, for diffing two
revisions: `PYTHONPATH=src:. python tools/tools_list.py > after.json`. Built on the hashing
embedder of the tests (no model loads) and a throwaway SQLite store, metrics on."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

from tests.support.fakes import HashEmbedder

from memspace.mcp.server import build_mcp_server
from memspace.startup.container import build
from memspace.startup.settings import Settings


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(_env_file=None, data_dir=Path(folder), metrics=True)  # type: ignore[call-arg]
        app = build(settings, embedder=HashEmbedder())
        try:
            server = build_mcp_server(app)
            listed: list[object] = [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                                    for t in await server.list_tools()]
            listed.append([r.model_dump(mode="json", by_alias=True, exclude_none=True)
                           for r in await server.list_resources()])
            print(json.dumps(listed, indent=1, ensure_ascii=False))
        finally:
            app.close()


if __name__ == "__main__":
    asyncio.run(main())
