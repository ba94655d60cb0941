"""Random MCP tool calls by name, listed or not, from keys with their own toolsets: through every
tool a foreign space or a foreign id answers exactly like one that does not exist, a read grant
cannot write, and each key is shown the default list plus its own toolsets, nothing else.

The seed is the day's date unless MEMSPACE_TEST_SEED is set; a failure names it, with the
command that replays the run."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mcp import Client
from mcp_types import CallToolResult

from memspace.domain.models import Access
from memspace.domain.toolsets import parse_toolsets
from memspace.mcp.identity import process_caller
from memspace.mcp.server import build_mcp_server
from memspace.mcp.toolsets import DEFAULT, TOOLSETS
from memspace.services.access.access import AccessService, Principal
from memspace.services.memories.memories import AddRequest
from tests.load.conftest import Rig

# (tool, arguments without the target, whether it writes); "{id}" marks where an id goes.
SPACE_CALLS: list[tuple[str, dict[str, Any], bool]] = [
    ("search_memory", {"query": "deploy"}, False), ("get_context", {}, False),
    ("listMemories", {}, False), ("get_changes_since", {"since": "2020-01-01T00:00:00Z"}, False),
    ("list_conflicts", {}, False), ("listDocuments", {}, False), ("latest_handoff", {}, False),
    ("list_handoffs", {}, False), ("verify_memory", {}, False),
    ("add_memory", {"content": "A fuzzed note about deploys"}, True),
    ("save_handoff", {"summary": "Fuzzed handoff"}, True),
    ("rename_category", {"old": "ops", "new": "operations"}, True),
]
ID_CALLS: list[tuple[str, dict[str, Any], bool]] = [
    ("getMemory", {"memoryId": "{id}"}, False), ("list_memory_revisions", {"memoryId": "{id}"}, False),
    ("verify_memory", {"memoryId": "{id}"}, False),
    ("correct_memory", {"memoryId": "{id}", "content": "Corrected by the fuzz"}, True),
    ("mark_memory", {"memoryId": "{id}", "status": "disputed", "reason": "fuzz"}, True),
    ("patch_memory", {"memoryId": "{id}", "append": " (fuzzed)"}, True),
    ("add_memory", {"action": "forget", "memoryId": "{id}", "reason": "fuzz"}, True),
]
# Batch reads: an id not in the space is listed in `missing`, foreign or not.
BATCH_CALLS = ("getMemory", "getMemories")
TOOLSET_CHOICES = (None, "history", "review,code", "documents,spaces", "all")


@dataclass
class Caller:
    principal: Principal
    grants: dict[str, str]
    toolsets: str | None


def seed() -> int:
    return int(os.environ.get("MEMSPACE_TEST_SEED", datetime.now(UTC).strftime("%Y%m%d")))


def masked(result: CallToolResult, *values: str) -> Any:
    """What a caller can tell from an answer, with the names it was asked about masked."""
    shown = repr((result.is_error, result.structured_content,
                  [getattr(c, "text", None) for c in result.content]))
    for value in sorted(values, key=len, reverse=True):
        shown = shown.replace(value, "<named>")
    return shown


def test_random_tool_calls_by_name_never_cross_a_space(rig: Rig, ops: int) -> None:
    run = seed()
    rng = random.Random(run)
    replay = (f"seed {run}: replay with MEMSPACE_TEST_SEED={run} "
              "pytest tests/load/test_isolation_tools.py")
    slugs = [rig.space(name) for name in ("left", "right", "middle")]
    operator = AccessService.operator()
    ids: dict[str, list[str]] = {}
    for slug in slugs:
        ids[slug] = [rig.app.memories.submit(operator, AddRequest(
            f"[{slug}] deploys go out on day {n}", slug, "ops")).memories[0].id for n in range(4)]
        rig.app.handoffs.save(operator, f"[{slug}] handoff", "fuzz", "deploys", [], [], [], [],
                              slug)
    grants = [{slugs[0]: "rw"}, {slugs[0]: "r", slugs[1]: "rw"}, {slugs[1]: "r"},
              {slugs[0]: "rw", slugs[2]: "r"}]
    levels = {"rw": Access.READWRITE, "r": Access.READ}
    callers = []
    for n, granted in enumerate(grants):
        toolsets = rng.choice(TOOLSET_CHOICES)
        raw = rig.app.admin.create_key(f"fuzz-{n}", {s: levels[a] for s, a in granted.items()},
                                       toolsets=toolsets).raw
        callers.append(Caller(rig.app.access.authenticate(raw), granted, toolsets))
    missing_slug = f"nowhere-{rig.tag}"
    current: dict[str, Caller] = {}
    token = process_caller.set(lambda: current["who"].principal)
    try:
        asyncio.run(_fuzz(rig, rng, ops, replay, slugs, ids, callers, missing_slug, current))
    finally:
        process_caller.reset(token)


async def _fuzz(rig: Rig, rng: random.Random, ops: int, replay: str, slugs: list[str],
                ids: dict[str, list[str]], callers: list[Caller], missing_slug: str,
                current: dict[str, Caller]) -> None:
    async with Client(build_mcp_server(rig.app)) as client:
        call: Callable[[str, dict[str, Any]], Any] = client.call_tool
        for caller in callers:  # each key is shown the default list and its own toolsets
            current["who"] = caller
            listed = {t.name for t in (await client.list_tools()).tools}
            chosen = parse_toolsets(caller.toolsets) or ()
            assert listed == set(DEFAULT).union(*(TOOLSETS[t] for t in chosen)), replay
        for step in range(ops):
            caller = rng.choice(callers)
            current["who"] = caller
            kind = rng.choice(("space", "id", "batch"))
            context = f"{replay}, step {step}: {kind} as {caller.grants}"
            own = [s for s in slugs if s in caller.grants]
            foreign = [s for s in slugs if s not in caller.grants]
            if kind == "space" and foreign:
                name, args, _ = rng.choice(SPACE_CALLS)
                target = rng.choice(foreign)
                seen = await call(name, {**args, "space": target})
                unseen = await call(name, {**args, "space": missing_slug})
                assert masked(seen, target) == masked(unseen, missing_slug), f"{context}: {name}"
                assert seen.is_error and seen.structured_content is not None, context
                assert seen.structured_content["code"] == "not_found", context
            elif kind == "space":
                name, args, writes = rng.choice(SPACE_CALLS)
                target = rng.choice(own)
                answer = await call(name, {**args, "space": target})
                if writes and caller.grants[target] == "r":
                    assert answer.structured_content is not None, context
                    assert answer.structured_content["code"] == "forbidden", f"{context}: {name}"
                elif not writes:
                    assert not answer.is_error, f"{context}: {name}: {answer.content}"
            elif kind == "id":
                name, args, _ = rng.choice(ID_CALLS)
                home = rng.choice(own)
                other = rng.choice([s for s in slugs if s != home])
                foreign_id = rng.choice(ids[other])
                made_up = foreign_id[:-6] + "zzzzzz"
                filled = {k: foreign_id if v == "{id}" else v for k, v in args.items()}
                seen = await call(name, {**filled, "space": home})
                filled = {k: made_up if v == "{id}" else v for k, v in args.items()}
                unseen = await call(name, {**filled, "space": home})
                assert masked(seen, foreign_id) == masked(unseen, made_up), f"{context}: {name}"
                assert seen.structured_content is not None, context
                assert seen.structured_content["code"] in ("not_found", "forbidden"), context
            else:
                name = rng.choice(BATCH_CALLS)
                home = rng.choice(own)
                other = rng.choice([s for s in slugs if s != home])
                wanted = [rng.choice(ids[home]), rng.choice(ids[other])]
                answer = await call(name, {"ids": wanted, "space": home})
                assert not answer.is_error and answer.structured_content is not None, context
                got = answer.structured_content
                assert got["missing"] == [wanted[1]], f"{context}: {name}"
                assert {m["id"] for m in got["memories"]} <= set(ids[home]), context
