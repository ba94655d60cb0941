"""Tools for an agent's working session (docs/contract.md): start with get_context, hand off before
stopping. Each: who is calling, one service call, shape the output."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.args import READ_ONLY, WRITES, AsOfArg, CursorArg, KnownAtArg, SpaceArg
from memspace.mcp.evidence_args import DryRunArg, EvidenceArg
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.handoffs import handoff_text
from memspace.present.json import context_json
from memspace.present.pages import page_json
from memspace.present.records import handoff_json
from memspace.present.tool import result

ItemsArg = Annotated[list[str] | None, Field(description="One short item per entry.")]


# get_context and the handoff tools, in the order clients see them.
WORKFLOW_TOOLS = ToolList()


@WORKFLOW_TOOLS.tool(
    name="get_context",
    title="Get context (start here)",
    annotations=READ_ONLY,
    description=(
        "START HERE when you begin a task: one call returns the space's current truth packed "
        "to a token budget: its instructions, open conflicts, notes whose code changed, the "
        "latest handoff, constraints, decisions, failed approaches, status, the notes "
        "relevant to `query`, tasks and recent changes. `detail`: lean (~800 tokens), "
        "balanced (~2,000) or deep (~6,000). Ids in brackets work with getMemory."
    ),
)
def get_context(
    ctx: Context,
    query: Annotated[str | None, Field(description="Your task, to rank by relevance.")] = None,
    maxTokens: Annotated[int | None, Field(ge=200, le=50_000, description="Token budget (overrides detail).")] = None,  # noqa: N803
    detail: Annotated[Literal["lean", "balanced", "deep"], Field(description="lean | balanced | deep.")] = "balanced",
    space: SpaceArg = None,
    asOf: AsOfArg = None,  # noqa: N803
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    brief = call(lambda: app.briefings.brief(who, query, maxTokens, detail, space, asOf,
                                             knownAt))
    return result(brief.text, context_json(brief))


@WORKFLOW_TOOLS.tool(
    name="save_handoff",
    title="Save a handoff",
    annotations=WRITES,
    description=(
        "Before you stop or pass work on, leave a handoff: `summary` of where the work "
        "stands, `done`, `nextSteps`, `openQuestions`, `links`. The next agent reads it first "
        "in get_context. Durable facts belong in add_memory."
    ),
)
def save_handoff(
    ctx: Context,
    summary: Annotated[str, Field(description="Where the work stands.")],
    agent: Annotated[str | None, Field(description="Who hands off (default: the key's name).")] = None,
    topic: Annotated[str | None, Field(description="A ticket or feature (default: general).")] = None,
    done: ItemsArg = None,
    nextSteps: ItemsArg = None,  # noqa: N803
    openQuestions: ItemsArg = None,  # noqa: N803
    links: Annotated[list[str] | None, Field(description="Files, PRs, URLs.")] = None,
    space: SpaceArg = None,
    evidence: EvidenceArg = None,
    dryRun: DryRunArg = False,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, handoff = call(lambda: app.handoffs.save(
        who, summary, agent, topic, done, nextSteps, openQuestions, links, space, evidence,
        dryRun))
    data = {"space": slug, "handoff": handoff_json(handoff)}
    if dryRun:
        return result(f"Dry run in '{slug}', nothing written: the handoff is valid.",
                      {**data, "status": "dry_run"})
    return result(f"Handoff [{handoff.id}] saved in '{slug}': the next agent sees it "
                  "in get_context and latest_handoff.", data)


@WORKFLOW_TOOLS.tool(
    name="latest_handoff",
    title="Latest handoff",
    annotations=READ_ONLY,
    description=(
        "The newest handoff left in this space (optionally by one `agent` or on one `topic`): "
        "what the previous agent or session did, what comes next, what is still open. Call "
        "it when you pick up work someone else started."
    ),
)
def latest_handoff(
    ctx: Context,
    agent: Annotated[str | None, Field(description="Only handoffs by this agent.")] = None,
    topic: Annotated[str | None, Field(description="Only handoffs on this topic.")] = None,
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, handoff = call(lambda: app.handoffs.latest(who, agent, topic, space))
    if handoff is None:
        narrowed = "".join(f" {k} '{v}'" for k, v in (("by", agent), ("on", topic)) if v)
        return result(f"No handoff{narrowed} in '{slug}' yet.",
                      {"space": slug, "handoff": None})
    return result(handoff_text(handoff), {"space": slug, "handoff": handoff_json(handoff)})


@WORKFLOW_TOOLS.tool(
    name="list_handoffs",
    title="List handoffs",
    annotations=READ_ONLY,
    description=(
        "The handoffs of this space, newest first, a page at a time (pass back "
        "`nextCursor` as `cursor`); `agent` narrows to one agent's."
    ),
)
def list_handoffs(
    ctx: Context,
    agent: Annotated[str | None, Field(description="Only handoffs by this agent.")] = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Page size (1-50).")] = 10,
    cursor: CursorArg = None,
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, page = call(lambda: app.handoffs.list(who, agent, limit, cursor, space))
    data = page_json(slug, "handoffs", page, handoff_json)
    items = data["handoffs"]
    lines = [f"{len(items)} handoff(s) in '{slug}', newest first:"]
    lines += [f"- [{h['id']}] {h['createdAt']} {h['agent']} on '{h['topic']}': {h['summary']}"
              for h in items]
    if page.next_cursor:
        lines.append(f"More available: call again with cursor={page.next_cursor}")
    return result("\n".join(lines), data)
