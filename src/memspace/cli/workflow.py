"""`memspace context` and `memspace handoff save|latest|list`: an agent session's start and end
from a terminal or a hook, through the same services as the get_context and handoff tools."""

from __future__ import annotations

from typing import Annotated

import typer

from memspace.cli.common import JsonOpt, SpaceOpt, command, emit, open_container
from memspace.cli.root import MEMORIES, app
from memspace.present.handoffs import handoff_text
from memspace.present.json import context_json
from memspace.present.records import handoff_json
from memspace.services.access import AccessService

handoff_app = typer.Typer(help="Save and read handoffs between agents and sessions.",
                          no_args_is_help=True)
AgentOpt = Annotated[str | None, typer.Option(help="Only handoffs by this agent.")]


@app.command("context", rich_help_panel=MEMORIES)
@command
def context(
    space: SpaceOpt,
    query: Annotated[str | None, typer.Option(help="The task at hand, to rank by relevance.")] = None,
    detail: Annotated[str, typer.Option(help="lean | balanced | deep.")] = "balanced",
    max_tokens: Annotated[int | None, typer.Option(
        "--max-tokens", help="Token budget (overrides the detail level's).")] = None,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", help="Facts valid at this ISO time, as known now (docs/time.md).")] = None,
    known_at: Annotated[str | None, typer.Option(
        "--known-at", help="What the space held at this past ISO time.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Print what a space knows, packed into a token budget (the get_context tool's text)."""
    app = open_container()
    brief = app.briefings.brief(AccessService.operator(), query, max_tokens, detail, space,
                                as_of, known_at)
    emit(context_json(brief), as_json, brief.text.rstrip())


@handoff_app.command("save")
@command
def handoff_save(
    space: SpaceOpt,
    summary: Annotated[str, typer.Option(help="Where the work stands, in a few sentences.")],
    agent: Annotated[str | None, typer.Option(help="Who is handing off.")] = None,
    topic: Annotated[str | None, typer.Option(help="What the work is about.")] = None,
    done: Annotated[list[str] | None, typer.Option(help="Something finished; repeatable.")] = None,
    next_step: Annotated[list[str] | None, typer.Option(
        "--next", help="A next step; repeatable.")] = None,
    question: Annotated[list[str] | None, typer.Option(
        help="An open question; repeatable.")] = None,
    link: Annotated[list[str] | None, typer.Option(help="A file, PR or URL; repeatable.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Leave a handoff for the next agent or session (the save_handoff tool)."""
    app = open_container()
    slug, saved = app.handoffs.save(AccessService.operator(), summary, agent, topic, done,
                                    next_step, question, link, space)
    emit({"space": slug, "handoff": handoff_json(saved)}, as_json,
         f"Saved handoff [{saved.id}] in '{slug}'.")


@handoff_app.command("latest")
@command
def handoff_latest(
    space: SpaceOpt,
    agent: AgentOpt = None,
    topic: Annotated[str | None, typer.Option(help="Only handoffs on this topic.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the newest handoff (exits 0 with a note when there is none, so hooks stay quiet)."""
    app = open_container()
    slug, found = app.handoffs.latest(AccessService.operator(), agent, topic, space)
    emit({"space": slug, "handoff": handoff_json(found) if found else None}, as_json,
         handoff_text(found) if found else f"No handoff in '{slug}' yet.")


@handoff_app.command("list")
@command
def handoff_list(
    space: SpaceOpt,
    agent: AgentOpt = None,
    limit: Annotated[int, typer.Option(help="How many, newest first (1-50).")] = 10,
    as_json: JsonOpt = False,
) -> None:
    """List a space's handoffs, newest first."""
    app = open_container()
    slug, page = app.handoffs.list(AccessService.operator(), agent, limit, None, space)
    rows = [handoff_json(h) for h in page.items]
    text = "\n".join(f"[{h['id']}] {h['createdAt']} {h['agent']} on '{h['topic']}': "
                     f"{h['summary']}" for h in rows)
    emit({"space": slug, "handoffs": rows}, as_json, text or f"No handoffs in '{slug}' yet.")


app.add_typer(handoff_app, name="handoff", rich_help_panel=MEMORIES)
