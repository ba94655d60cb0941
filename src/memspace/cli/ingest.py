"""The work behind `memspace import`, `memspace document …` and `memspace seed`: files in, a
progress bar on stderr while chunks go through the add pipeline, one result line per file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import memspace
from memspace.cli.common import indexes_after_import, indexes_line
from memspace.domain.errors import MemspaceError
from memspace.domain.models import Document, DocumentStatus
from memspace.domain.text import counted
from memspace.present.records import document_json
from memspace.present.text import document_line
from memspace.services.access import AccessService
from memspace.services.demo import SeedReport
from memspace.services.ingestion import UNFINISHED, too_large
from memspace.startup.container import Container

PLAN = "demo.json"


def seed_dir() -> Path:
    """The demo's folder, package data of memspace (src/memspace/seed/)."""
    return Path(memspace.__file__).resolve().parent / "seed"


def _bar() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("chunks"), TimeElapsedColumn(), console=Console(stderr=True),
                    transient=True)


def _run(app: Container, document: Document, bar: Progress, name: str) -> Document:
    """Process a queued (or interrupted) document now, showing its chunks on the bar."""
    if document.status not in UNFINISHED:
        return document
    task = bar.add_task(name, total=document.chunks_total or None, completed=document.chunks_done)
    try:
        return app.ingestion.process(
            document, progress=lambda d: bar.update(task, completed=d.chunks_done))
    finally:
        bar.remove_task(task)


def _outcome(name: str, document: Document, duplicate: bool) -> str:
    if duplicate:
        return f"{name}: already imported as {document_line(document)}"
    if document.status is DocumentStatus.DONE:
        return (f"{name}: done — {counted(document.fact_count, 'memory', 'memories')} from "
                f"{counted(document.chunks_total, 'chunk')} [{document.id}]")
    if document.status is DocumentStatus.FAILED:
        return f"{name}: failed — {document.error} [{document.id}]"
    return f"{name}: {document.status.value}, {document.chunks_done}/{document.chunks_total} chunks"


def import_files(app: Container, files: Sequence[Path], space: str, title: str | None,
                 as_json: bool) -> bool:
    """Upload and process each file; True when every one ended `done` (or was already there)."""
    operator = AccessService.operator()
    results: list[dict[str, Any]] = []
    lines: list[str] = []
    every_ok, wrote = True, False  # wrote: a file reached the space
    with _bar() as bar:
        for path in files:
            try:
                size = path.stat().st_size
                if size > app.ingestion.max_upload_bytes:
                    raise too_large(app.ingestion.max_upload_bytes, size, f"'{path.name}'")
                uploaded = app.ingestion.upload(operator, path.name, path.read_bytes(), space, title)
                wrote = True
                document = _run(app, uploaded.document, bar, path.name)
            except MemspaceError as exc:
                every_ok = False
                lines.append(f"{path.name}: refused — {exc.message}")
                results.append({"file": str(path), "error": exc.code, "message": exc.message})
                continue
            except OSError as exc:
                every_ok = False
                lines.append(f"{path.name}: cannot read it ({exc.strerror or exc})")
                results.append({"file": str(path), "error": "unreadable", "message": str(exc)})
                continue
            every_ok &= document.status is DocumentStatus.DONE
            lines.append(_outcome(path.name, document, uploaded.duplicate))
            results.append({"file": str(path), **document_json(document),
                            "duplicate": uploaded.duplicate})
    progress = indexes_after_import(app, space if wrote else None)  # last line: any index building
    if progress is not None:
        lines.append(indexes_line(progress))
    typer.echo(json.dumps(results, indent=2, ensure_ascii=False) if as_json else "\n".join(lines))
    return every_ok


def retry(app: Container, document_id: str, space: str) -> bool:
    """Queue a failed document again and process it now."""
    requeued = app.ingestion.retry(AccessService.operator(), document_id, space)
    with _bar() as bar:
        done = _run(app, requeued, bar, requeued.title)
    typer.echo(_outcome(done.title, done, False))
    return done.status is DocumentStatus.DONE


def load_demo(app: Container, directory: Path | None = None) -> SeedReport:
    """Load seed/demo.json and its documents through the services.

    Raises:
        Conflict: the demo's spaces exist already. InvalidInput: the plan is broken.
    """
    folder = directory or seed_dir()
    with Console(stderr=True).status("Loading the demo…") as status:
        return app.seeder.load((folder / PLAN).read_text(encoding="utf-8"),
                               lambda name: (folder / name).read_bytes(),
                               lambda step: status.update(f"Loading the demo… {step}"))


def demo_text(report: SeedReport) -> str:
    lines = [f"Loaded the demo into {', '.join(report.spaces)}: "
             f"{report.memories} memories, {report.relations} relations, "
             f"{len(report.documents)} documents "
             f"({sum(d.fact_count for d in report.documents)} memories from them).",
             "API keys — shown once, store them now:"]
    lines += [f"    {name:<14} {raw}" for name, raw in report.keys.items()]
    return "\n".join(lines)
