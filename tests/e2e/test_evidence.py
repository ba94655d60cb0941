"""A coding agent's evidence workflow over MCP/HTTP, per store, against a real git repository
made here: cite, search code, verify after edits above a cited line, a changed cited line, a
deleted function, a renamed file and a force-pushed history, then supersede what broke."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from memspace.mcp.errors import CODES
from memspace.services.access.access import AccessService
from tests.e2e.conftest import Deployment
from tests.support.gitrepo import SERVICE_PY, GitRepo
from tests.support.server import data, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]
OP = AccessService.operator()
PATH = "billing/service.py"


def refused(result, code: str) -> dict:  # type: ignore[no-untyped-def]
    assert result.is_error, f"expected {code}, got {result.structured_content}"
    err = dict(result.structured_content)
    assert err["code"] == code and code in CODES, err
    return err


async def test_cite_verify_and_supersede_over_mcp(deployment: Deployment, tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "svc")
    repo.write(PATH, SERVICE_PY)
    first = repo.commit("Billing service: backoff capped at 30 s because the gateway times out")
    space = deployment.space("evidence")
    other = deployment.space("elsewhere")
    key = deployment.key("coder", {space: "rw"})
    stranger = deployment.key("stranger", {other: "rw"})
    deployment.app.repos.add(OP, f"svc-{space}", str(repo.root), space)
    deployment.app.repos.sync(OP, f"svc-{space}")
    deployment.app.evidence.set_policy(OP, space, "required")

    async with mcp_client(deployment.url, key) as client:
        async def call(tool: str, **args: object):  # type: ignore[no-untyped-def]
            return await client.call_tool(tool, {"space": space, **args})

        # cite: refused without evidence, or with a line that is not there — each with an example
        err = refused(await call("add_memory", content="Backoff is capped at 30 s"),
                      "missing_evidence")
        assert err["example"]["arguments"]["evidence"]
        err = refused(await call("add_memory", content="Backoff is capped at 30 s",
                                 evidence=[f"{PATH}:999"]), "unresolvable_anchor")
        assert "has" in err["message"] and err["example"]["name"] == "add_memory"
        refused(await call("add_memory", content="x", evidence=["../../etc/passwd:1"]),
                "unresolvable_anchor")
        line = repo.line_of(PATH, "delay = min(30")
        dry = data(await call("add_memory", content="Backoff is capped at 30 s", dryRun=True,
                              evidence=[f"{PATH}:{line}", "cmd:pytest -k backoff"]))
        assert dry["status"] == "dry_run"
        assert data(await call("listMemories"))["memories"] == []  # nothing written
        capped = data(await call("add_memory", content="Backoff is capped at 30 s", wait=True,
                                 evidence=[f"{PATH}:{line}", "cmd:pytest -k backoff"]))
        [note] = capped["memories"]
        assert note["evidence"][0].endswith(f"/{PATH}:{line}#backoff")
        assert note["verification"] == "verified"
        total = data(await call("add_memory", content="Invoice totals add up every line amount",
                                evidence=[f"{PATH}:{repo.line_of(PATH, 'return sum(')}"]))
        tax = data(await call("add_memory", content="Tax is 20% rounded up",
                              evidence=[f"{PATH}:{repo.line_of(PATH, 'math.ceil')}"]))
        history = data(await call("add_memory", content="Billing started with a 30 s cap",
                                  evidence=[f"commit:{first}"]))
        assert history["memories"][0]["verification"] == "not_anchored"

        # search code, read a chunk; a foreign key sees neither
        code = data(await call("search_memory", query="backoff delay", kind="code"))
        top = code["chunks"][0]
        assert (top["path"], top["symbol"]) == (PATH, "backoff")
        chunk = data(await call("get_chunk", chunkId=top["id"]))
        lines = repo.read(PATH).split("\n")
        assert chunk["body"] == "\n".join(lines[chunk["startLine"] - 1:chunk["endLine"]])
        both = data(await call("search_memory", query="backoff cap", kind="all"))
        assert both["results"] and both["code"]["chunks"]
        hit = next(r for r in both["results"] if r["id"] == note["id"])
        assert hit["verification"] == "verified" and hit["evidence"] == note["evidence"]

    async with mcp_client(deployment.url, stranger) as client:
        missing = await client.call_tool("get_chunk", {"chunkId": "0" * 24})
        foreign = await client.call_tool("get_chunk", {"chunkId": top["id"]})
        assert (refused(foreign, "not_found")["message"].replace(top["id"], "?")
                == refused(missing, "not_found")["message"].replace("0" * 24, "?"))
        hidden = await client.call_tool("search_memory", {"space": space, "query": "backoff",
                                                          "kind": "code"})
        refused(hidden, "not_found")
        empty = data(await client.call_tool("search_memory", {"query": "backoff", "kind": "code"}))
        assert empty["chunks"] == [] and "no repository is registered" in empty["message"]

    # edits above the cited lines: the sync re-anchors silently
    repo.write(PATH, "# Owned by billing.\n# Reviewed weekly.\n" + repo.read(PATH))
    repo.commit("header")
    deployment.app.repos.sync(OP, f"svc-{space}")
    # the cited line changed (its function stays), a cited function deleted
    text = repo.read(PATH).replace("delay = min(30, 2 ** attempt)", "delay = min(60, 2 ** attempt)")
    repo.write(PATH, text.replace(
        "    def tax(self, lines):\n        return math.ceil(self.total(lines) * 0.2)\n", ""))
    repo.commit("longer cap, no tax")

    async with mcp_client(deployment.url, key) as client:
        async def call(tool: str, **args: object):  # type: ignore[no-untyped-def]
            return await client.call_tool(tool, {"space": space, **args})

        report = data(await call("verify_memory"))
        states = {m["id"]: m["verification"] for m in report["memories"]}
        assert states == {note["id"]: "moved", total["memories"][0]["id"]: "verified",
                          tax["memories"][0]["id"]: "broken",
                          history["memories"][0]["id"]: "not_anchored"}
        reanchored = next(m for m in report["memories"] if m["id"] == total["memories"][0]["id"])
        assert reanchored["evidence"][0].split(":")[1].startswith(
            str(repo.line_of(PATH, "return sum(")))
        broken = data(await call("listMemories", verification="broken"))
        assert [m["id"] for m in broken["memories"]] == [tax["memories"][0]["id"]]
        context = (await call("get_context")).content[0].text
        flagged = context.index("## Moved or broken notes")
        assert context.index(f"[{tax['memories'][0]['id'][:8]}]", flagged) > flagged  # short id

        # supersede: the moved note corrected with fresh evidence
        new_line = repo.line_of(PATH, "delay = min(60")
        fixed = data(await call("correct_memory", memoryId=note["id"], expectedVersion=1,
                                content="Backoff is capped at 60 s", reason="cap raised",
                                evidence=[f"{PATH}:{new_line}"]))
        assert fixed["memories"][0]["verification"] == "verified"
        assert fixed["superseded"] == [note["id"]]

    # a renamed file: what was cited is defined elsewhere now
    repo.git("mv", PATH, "billing/invoices.py")
    repo.commit("rename")
    deployment.app.repos.sync(OP, f"svc-{space}")
    answer = httpx2.post(f"{deployment.url}/v1/verify", timeout=30,
                         headers={"Authorization": f"Bearer {key}"},
                         json={"space": space, "memoryId": total["memories"][0]["id"]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["memories"][0]["verification"] == "moved"
    # a force-pushed history: commit citations stay not_anchored, nothing fails
    repo.git("reset", "-q", "--hard", "HEAD~3")
    repo.commit("rewritten")
    deployment.app.repos.sync(OP, f"svc-{space}")
    async with mcp_client(deployment.url, key) as client:
        final = data(await client.call_tool("verify_memory", {"space": space}))
        states = {m["id"]: m["verification"] for m in final["memories"]}
        assert states[history["memories"][0]["id"]] == "not_anchored"
        assert states[fixed["memories"][0]["id"]] == "moved"  # its line is gone, backoff stays
        assert states[total["memories"][0]["id"]] == "verified"
