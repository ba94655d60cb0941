"""Spaces and keys: `memspace space create|list|set`, `memspace key create|list|revoke`, and a
whole space moved with `memspace export` and `memspace import-space`, as the local operator."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from memspace.cli.common import (
    EvidenceOpt,
    JsonOpt,
    command,
    emit,
    indexes_after_import,
    indexes_line,
    open_container,
)
from memspace.cli.root import ACCESS, app
from memspace.domain.toolsets import TOOLSET_NAMES
from memspace.present.records import key_json, space_json
from memspace.services.access import AccessService, parse_grant

space_app = typer.Typer(help="Create and list spaces.", no_args_is_help=True)
key_app = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)


@space_app.command("create")
@command
def space_create(
    slug: Annotated[str, typer.Argument(help="Short name users type, e.g. acme-project.")],
    name: Annotated[str | None, typer.Option(help="Display name.")] = None,
    description: Annotated[str, typer.Option(help="What the space is for.")] = "",
    evidence: EvidenceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a space."""
    container = open_container()
    if evidence is not None:
        container.evidence.parse_policy(evidence)  # refused before anything is created
    space = container.admin.create_space(slug, name, description)
    if evidence is not None:
        container.evidence.set_policy(AccessService.operator(), space.slug, evidence)
    emit(space_json(space), as_json, f"Created space '{space.slug}'.")


@space_app.command("list")
@command
def space_list(as_json: JsonOpt = False) -> None:
    """List all spaces with their sizes."""
    listing = open_container().spaces.listing(AccessService.operator())
    rows = [{**space_json(s.space), "activeMemories": s.stats.active_memories}
            for s in sorted(listing.spaces, key=lambda s: s.space.slug)]
    text = "\n".join(f"{r['slug']}\t{r['activeMemories']} memories\t{r['name']}" for r in rows)
    emit(rows, as_json, text or "No spaces yet: memspace space create SLUG")


@key_app.command("create")
@command
def key_create(
    name: Annotated[str, typer.Option("--name", help="Who or what uses the key.")],
    grant: Annotated[list[str], typer.Option("--grant", help="SLUG:rw or SLUG:r; repeatable.")],
    default: Annotated[str | None, typer.Option("--default", help="Default space slug.")] = None,
    toolsets: Annotated[str | None, typer.Option("--toolsets", help=(
        "MCP toolsets listed to this key beyond the default tools, comma-separated: "
        f"{', '.join(TOOLSET_NAMES)}, or all. Default: the server's (MEMSPACE_TOOLSETS)."))] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create an API key; the key is printed once and only its SHA-256 is stored."""
    container = open_container()
    grants = dict(parse_grant(g) for g in grant)
    created = container.admin.create_key(name, grants, default, toolsets)
    slugs = {s.id: s.slug for s in container.admin.list_spaces()}
    data = {**key_json(created.key, slugs), "key": created.raw}
    emit(data, as_json, f"{created.raw}\n\nStore this key now: it is not shown again.")


@key_app.command("list")
@command
def key_list(as_json: JsonOpt = False) -> None:
    """List keys (prefixes only; keys themselves are never stored)."""
    container = open_container()
    slugs = {s.id: s.slug for s in container.admin.list_spaces()}
    rows = [key_json(k, slugs) for k in container.admin.list_keys()]
    text = "\n".join(
        f"{r['prefix']}\t{r['name']}\t{','.join(f'{s}:{a}' for s, a in r['grants'].items())}"
        + (f"\ttoolsets {','.join(r['toolsets'])}" if r["toolsets"] else "")
        + ("\tREVOKED" if r["revokedAt"] else "")
        for r in rows
    )
    emit(rows, as_json, text or "No keys yet: memspace key create --name N --grant SLUG:rw")


@key_app.command("revoke")
@command
def key_revoke(key: Annotated[str, typer.Argument(help="Key id or prefix (msk_xxxxxxxx).")]) -> None:
    """Revoke a key: every later request with it gets 401."""
    container = open_container()
    revoked = container.admin.revoke_key(key)
    typer.echo(f"Revoked {revoked.prefix} ({revoked.name}).")


@app.command("export", rich_help_panel=ACCESS)
@command
def export_space(
    space: Annotated[str, typer.Option("--space", "-s", help="Space slug.")],
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="File to write (default: stdout).")] = None,
) -> None:
    """Write a space (documents with their text, memories with their history, relations) as
    JSON lines; `memspace import-space` restores it here or in another store."""
    container = open_container()
    lines = (json.dumps(r, ensure_ascii=False) + "\n"
             for r in container.portability.export(AccessService.operator(), space))
    if output is None:
        sys.stdout.writelines(lines)
    else:
        with output.open("w", encoding="utf-8") as handle:
            handle.writelines(lines)


@app.command("import-space", rich_help_panel=ACCESS)
@command
def import_space(
    file: Annotated[Path, typer.Argument(help="A `memspace export` file.", exists=True,
                                         dir_okay=False)],
    space: Annotated[str, typer.Option("--space", "-s", help="Target space (created if new).")],
    new_ids: Annotated[bool, typer.Option(
        "--new-ids", help="Give every memory and document a new id (needed to import into the "
        "store it came from).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Restore an export into a space, with ids, edges and active flags intact."""
    container = open_container()
    with file.open(encoding="utf-8") as handle:
        report = container.portability.import_space(AccessService.operator(), space, handle,
                                                    new_ids, create=True)
    text = (f"Imported into '{report.space}': {report.documents} documents, "
            f"{report.memories} memories, {report.relations} relations, {report.conflicts} open "
            "conflicts" + (" (new ids)" if report.remapped else "") + ".")
    progress = indexes_after_import(container, report.space)  # its last line: any index building
    if progress is None:
        emit(report.__dict__, as_json, text)
    else:
        emit({**report.__dict__, "indexes": progress.as_json()}, as_json,
             f"{text}\n{indexes_line(progress)}")


@space_app.command("set")
@command
def space_set(
    slug: Annotated[str, typer.Argument(help="The space.")],
    evidence: EvidenceOpt = None,
    secrets: Annotated[str | None, typer.Option(
        "--secrets", help="refuse (default) | redact | allow: writes holding a credential.")] = None,
    injections: Annotated[str | None, typer.Option(
        "--injections", help="flag (default) | quarantine: what an instruction-like write does.")] = None,
    description: Annotated[str | None, typer.Option(help="What the space is for.")] = None,
    instructions: Annotated[Path | None, typer.Option(
        help="A text or Markdown file of instructions for the agents working in the space "
             "(get_context shows it first); '-' reads stdin.", allow_dash=True)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Change a space: its description and agent instructions, its evidence policy, what a write
    holding a secret or reading like instructions does (with no option, show the security
    policy)."""
    app = open_container()
    if description is not None or instructions is not None:
        text = None
        if instructions is not None and str(instructions) != "-" and not instructions.is_file():
            raise typer.BadParameter(f"file '{instructions}' does not exist",
                                     param_hint="'--instructions'")
        if instructions is not None:
            text = sys.stdin.read() if str(instructions) == "-" else instructions.read_text("utf-8")
        space = app.admin.set_space(slug, description, text)
        emit(space_json(space) | {"instructions": space.instructions}, as_json,
             f"Space '{space.slug}' updated ({len(space.instructions):,} characters of "
             "instructions).")
        if evidence is None and secrets is None and injections is None:
            return
    if evidence is not None:
        slug = app.evidence.set_policy(AccessService.operator(), slug, evidence)
        typer.echo(f"Space '{slug}' evidence policy: {evidence.strip().lower()}.")
        if secrets is None and injections is None:
            return
    if secrets is None and injections is None:
        space, policy = app.security.policy(slug)
        emit({"space": space.slug, "secrets": policy.secrets.value,
              "injections": policy.injections.value}, as_json,
             f"{space.slug}: secrets {policy.secrets}, injections {policy.injections}")
        return
    change = app.security.set_policy(slug, secrets, injections)
    emit({"space": change.space.slug, "secrets": change.after.secrets.value,
          "injections": change.after.injections.value}, as_json,
         f"{change.space.slug}: secrets {change.after.secrets}, injections "
         f"{change.after.injections} (was secrets {change.before.secrets}, injections "
         f"{change.before.injections})")


app.add_typer(space_app, name="space", rich_help_panel=ACCESS)
app.add_typer(key_app, name="key", rich_help_panel=ACCESS)
