"""`memspace add | search | list | mark`: memories from a terminal, as the local operator, through
the same services the add_memory, search_memory, listMemories and mark_memory tools call."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from datetime import datetime
from typing import Annotated

import typer

from memspace.cli.common import CiteOpt, JsonOpt, SpaceOpt, command, emit, open_container
from memspace.cli.root import MEMORIES, app
from memspace.domain.errors import InvalidInput
from memspace.domain.text import counted
from memspace.present.json import add_json, marked_json, search_json
from memspace.present.pages import page_json
from memspace.present.records import memory_json
from memspace.present.text import add_text, list_text, marked_text, search_text
from memspace.services.access import AccessService
from memspace.services.memories import AddRequest, AddResult, Clash
from memspace.services.search import SearchRequest

TypesOpt = Annotated[list[str] | None, typer.Option(
    "--type", help="Only this type (repeatable): decision, constraint, architecture, fact, "
    "incident, failed_approach, procedure, status, task, preference, reference, note.")]
IncludeInactiveOpt = Annotated[bool, typer.Option(
    "--include-inactive", help="Include superseded memories.")]
StatusesOpt = Annotated[list[str] | None, typer.Option(
    "--status", help="Only this status (repeatable): current, superseded, historical, disputed, "
    "pending.")]


@app.command("add", rich_help_panel=MEMORIES)
@command
def add(
    content: Annotated[str, typer.Argument(help="The fact to remember; '-' reads stdin.")],
    space: SpaceOpt,
    category: Annotated[str | None, typer.Option(help="Category label.")] = None,
    memory_type: Annotated[str | None, typer.Option("--type", help="What kind of note (default note).")] = None,
    importance: Annotated[int | None, typer.Option(help="1 (minor) to 5; default 3.")] = None,
    canonical: Annotated[bool, typer.Option(
        "--canonical", help="The agreed answer on its subject.")] = False,
    supersedes: Annotated[list[str] | None, typer.Option(
        "--supersedes", help="Id this memory replaces (repeatable).")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Store it beside a decision it contradicts.")] = False,
    evidence: CiteOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate and show, write nothing.")] = False,
    as_json: JsonOpt = False,
    expires_at: Annotated[str | None, typer.Option(
        "--expires-at", help="When it stops holding: ISO 8601 with an offset.")] = None,
    forget_after: Annotated[str | None, typer.Option(
        "--forget-after", help="Or how long it holds: 90m, 12h, 30d, 2w.")] = None,
) -> None:
    """Save one memory (the same call as the add_memory tool). A decision that contradicts a close
    one is refused (exit 1) with the two commands that settle it."""
    container = open_container()
    text = sys.stdin.read() if content == "-" else content
    request = AddRequest(text, space, category, memory_type=memory_type, importance=importance,
                         canonical=canonical, supersedes=tuple(supersedes or ()), force=force,
                         evidence=tuple(evidence) if evidence else None,
                         expires_at=expires_at, forget_after=forget_after)
    added = container.memories.submit(AccessService.operator(), request, dry_run=dry_run)
    if added.clash is not None:
        if as_json:
            emit(add_json(added), True, "")
        else:
            typer.echo(f"error: {conflict_words(added.space, added.clash)}", err=True)
        raise typer.Exit(1)
    emit(add_json(added), as_json, added_words(added))


@app.command("correct", rich_help_panel=MEMORIES)
@command
def correct(
    memory_id: Annotated[str, typer.Argument(help="Id of the memory to correct.")],
    content: Annotated[str, typer.Argument(help="The corrected fact, self-contained; '-' reads stdin.")],
    space: SpaceOpt,
    reason: Annotated[str | None, typer.Option(help="Why it changed (kept in its history).")] = None,
    category: Annotated[str | None, typer.Option(help="New category (default: kept).")] = None,
    observed_at: Annotated[str | None, typer.Option(
        "--observed-at", help="When the corrected fact began to hold: an ISO date or time, "
        "e.g. 2026-05-01 or 2026-05-01T09:00:00Z.")] = None,
    expected_version: Annotated[int | None, typer.Option(
        help="Refuse if the memory is no longer this version.")] = None,
    evidence: CiteOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Correct a memory: a new version replaces it, which stays as history (the same call as the
    correct_memory tool)."""
    container = open_container()
    text = sys.stdin.read() if content == "-" else content
    added = container.memories.correct(AccessService.operator(), memory_id, text, space, category,
                                       reason, expected_version, evidence,
                                       observed_at=_instant(observed_at, "--observed-at"))
    emit(add_json(added), as_json, added_words(added))


def _instant(text: str | None, flag: str) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidInput(f"{flag} {text!r} is not an ISO date or time; pass e.g. 2026-05-01 or "
                           "2026-05-01T09:00:00Z") from exc


def added_words(added: AddResult) -> str:
    """An add's answer, its hint about similar memories in CLI verbs."""
    text = add_text(replace(added, similar=[]))
    if not added.similar:
        return text
    return "\n".join([text, "Similar memories already in the space — if the new memory replaces "
                       f"one of these: `memspace correct ID TEXT --space {added.space}` (and "
                       f"`memspace mark` the new one historical):",
                       *(f"- [{s.memory.id}] v{s.memory.version} ({s.similarity:.2f}) "
                         f"{s.memory.content}" for s in added.similar)])


def conflict_words(space: str, clash: Clash) -> str:
    """A refused contradiction, with the two commands that settle it."""
    old = clash.memory
    again = f"memspace add {shlex.quote(clash.content)} --space {space} --type {clash.memory_type}"
    if clash.category:
        again += f" --category {shlex.quote(clash.category)}"
    return "\n".join([
        f"nothing saved in '{space}': it contradicts [{old.id}] v{old.version} "
        f"({old.type.value}) {old.content} (similarity {clash.similarity:.2f}).",
        f"  If the new claim replaces it: {again} --supersedes {old.id}",
        f"    (or: memspace correct {old.id} {shlex.quote(clash.content)} --space {space})",
        f"  If both hold: {again} --force"])


# docs/time.md
AsOfOpt = Annotated[str | None, typer.Option(
    "--as-of", help="Facts valid at this ISO time, as known now.")]
KnownAtOpt = Annotated[str | None, typer.Option(
    "--known-at", help="What the space held at this past ISO time.")]


@app.command("search", rich_help_panel=MEMORIES)
@command
def search(
    query: Annotated[str | None, typer.Argument(help="Natural-language query.")] = None,
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")] = "",
    keyword: Annotated[str | None, typer.Option(help="Typo-tolerant keyword match.")] = None,
    category: Annotated[str | None, typer.Option(help="Category filter.")] = None,
    limit: Annotated[int, typer.Option(help="Number of results (1-50).")] = 10,
    include_inactive: IncludeInactiveOpt = False,
    types: TypesOpt = None,
    statuses: StatusesOpt = None,
    provenance: Annotated[list[str] | None, typer.Option(
        help="Only these sources: human, agent, document, model, import; repeatable.")] = None,
    as_of: AsOfOpt = None,
    known_at: KnownAtOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search a space (the same call as the search_memory tool)."""
    container = open_container()
    request = SearchRequest(query, keyword, category, space or None, limit, False, include_inactive,
                            types=tuple(types or ()), statuses=tuple(statuses or ()),
                            provenance=tuple(provenance or ()), as_of=as_of, known_at=known_at)
    found = container.search.search(AccessService.operator(), request)
    emit(search_json(found), as_json, search_text(found))


@app.command("list", rich_help_panel=MEMORIES)
@command
def list_memories(
    space: SpaceOpt,
    category: Annotated[str | None, typer.Option(help="Category filter.")] = None,
    types: TypesOpt = None,
    statuses: StatusesOpt = None,
    include_inactive: IncludeInactiveOpt = False,
    limit: Annotated[int, typer.Option(help="Page size (1-100).")] = 20,
    cursor: Annotated[str | None, typer.Option(help="nextCursor of the previous page.")] = None,
    as_of: AsOfOpt = None,
    known_at: KnownAtOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List a space's memories, newest first (the same call as the listMemories tool)."""
    container = open_container()
    slug, page = container.memories.list(AccessService.operator(), space, category,
                                         include_inactive, limit, cursor, types, statuses,
                                         as_of, known_at)
    data = page_json(slug, "memories", page, memory_json)
    emit(data, as_json, list_text(f"Memories in '{slug}'", page.items, page.next_cursor,
                                  short=page.short))


@app.command("mark", rich_help_panel=MEMORIES)
@command
def mark(
    memory_id: Annotated[str, typer.Argument(help="Id of the memory.")],
    status: Annotated[str, typer.Argument(help="historical | disputed | current.")],
    reason: Annotated[str, typer.Option(help="Why (kept in its history).")],
    space: SpaceOpt,
    expected_version: Annotated[int | None, typer.Option(help="Refuse if it is no longer this version.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Set where a memory stands (the same call as the mark_memory tool)."""
    container = open_container()
    marked = container.lifecycle.mark(AccessService.operator(), memory_id, status, reason, space,
                                      expected_version)
    emit(marked_json(marked), as_json, marked_text(marked))


@app.command("rename-category", rich_help_panel=MEMORIES)
@command
def rename_category(
    old: Annotated[str, typer.Argument(help="The category to rename.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
    space: SpaceOpt,
    as_json: JsonOpt = False,
) -> None:
    """Rename a category across a space in one write (the same call as rename_category)."""
    container = open_container()
    slug, renamed = container.memories.rename_category(AccessService.operator(), space, old, new)
    data = {"space": slug, "renamed": len(renamed),
            "memories": [memory_json(m, lean=True) for m in renamed]}
    emit(data, as_json, f"Renamed category '{old}' to '{new}' in '{slug}': "
                        f"{counted(len(renamed), 'memory', 'memories')}.")
