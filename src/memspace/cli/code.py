"""`memspace repo …`, `memspace verify` and `memspace mine-git`: the evidence surface from a
terminal (docs/evidence.md), as the local operator."""

from __future__ import annotations

from typing import Annotated

import typer

from memspace.cli.common import JsonOpt, SpaceOpt, command, emit, open_container
from memspace.cli.root import FILES, app
from memspace.domain.text import counted
from memspace.present.code import repo_json, sync_json, sync_text, verify_json, verify_text
from memspace.services.access import AccessService

repo_app = typer.Typer(help="Register git repositories per space and index their code.",
                       no_args_is_help=True)


@repo_app.command("add")
@command
def repo_add(
    name: Annotated[str, typer.Argument(help="Short name citations use, e.g. api.")],
    path: Annotated[str, typer.Argument(help="Top directory of a git checkout the server reads.")],
    space: SpaceOpt,
    sync: Annotated[bool, typer.Option("--sync/--no-sync", help="Index it now.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Register a git checkout for a space (and index it)."""
    app = open_container()
    who = AccessService.operator()
    repo = app.repos.add(who, name, path, space)
    text = f"Registered '{repo.name}' ({repo.path}) in '{space}'."
    data = repo_json(repo, space)
    if sync:
        done = app.repos.sync(who, repo.name)
        text += "\n" + sync_text(done)
        data["sync"] = sync_json(done)
    emit(data, as_json, text)


@repo_app.command("list")
@command
def repo_list(
    space: Annotated[str | None, typer.Option("--space", "-s", help="Only this space.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List registered repositories."""
    app = open_container()
    slugs = {s.id: s.slug for s in app.admin.list_spaces()}
    repos = app.repos.repos_of(AccessService.operator(), space)
    rows = [repo_json(r, slugs.get(r.space_id)) for r in repos]
    text = "\n".join(f"{r['name']}  {r['space']}  {r['path']}  synced {r['syncedAt'] or 'never'}"
                     for r in rows)
    emit(rows, as_json, text or "No repositories: memspace repo add NAME PATH --space SPACE")


@repo_app.command("remove")
@command
def repo_remove(name: Annotated[str, typer.Argument(help="Repository name.")]) -> None:
    """Unregister a repository and drop its code index (memories citing it stay, and verify
    reports their file citations broken)."""
    repo = open_container().repos.remove(AccessService.operator(), name)
    typer.echo(f"Removed '{repo.name}' and its code index.")


@repo_app.command("sync")
@command
def repo_sync(
    name: Annotated[str | None, typer.Argument(help="Repository name (default: all).")] = None,
    space: Annotated[str | None, typer.Option("--space", "-s", help="With no name: only this space.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Index changed files, drop removed ones, re-verify memories citing them."""
    app = open_container()
    who = AccessService.operator()
    done = [app.repos.sync(who, name)] if name else app.repos.sync_all(who, space)
    emit([sync_json(d) for d in done], as_json,
         "\n".join(sync_text(d) for d in done) or "No repositories to sync.")


@app.command("verify", rich_help_panel=FILES)
@command
def verify(
    space: SpaceOpt,
    memory: Annotated[str | None, typer.Option("--memory", help="One memory id.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check every cited memory of a space against the code (re-anchoring moved lines)."""
    report = open_container().verification.verify(AccessService.operator(), space, memory)
    emit(verify_json(report), as_json, verify_text(report))
    if report.count("broken"):
        raise typer.Exit(1)


@app.command("mine-git", rich_help_panel=FILES)
@command
def mine_git(
    name: Annotated[str, typer.Argument(help="Repository name.")],
    space: SpaceOpt,
    since: Annotated[str | None, typer.Option(help="Only commits since this date (git --since).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Turn commit messages that carry rationale into notes citing their commit (once each)."""
    done = open_container().mining.mine(AccessService.operator(), name, space, since)
    emit(done.__dict__, as_json, f"{done.repo}: {counted(done.commits, 'new commit')}, {done.notes} with "
         f"rationale -> {counted(done.created, 'note')} saved in '{done.space}'"
         + (f", {done.duplicates} already known" if done.duplicates else "") + ".")


app.add_typer(repo_app, name="repo", rich_help_panel=FILES)
