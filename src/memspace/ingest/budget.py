"""Reading a document in a child process, under a time and a memory budget.

A 9.8 KB PDF of ten pages sharing one content stream of 100,000 operators kept pypdf busy for
59 s, and pypdf cannot be interrupted inside a thread. So the ingestion worker hands
each file to a child process and kills it when the budget runs out: the document then ends
`failed` with a reason naming the limit, and the server's own process never parses a byte.

Children fork from a forkserver that has already imported the parsers, so starting one costs
milliseconds rather than an interpreter start and the pypdf import.
"""

from __future__ import annotations

import multiprocessing
import resource
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from memspace.domain.errors import UnreadableDocument
from memspace.domain.files import DocumentReader, ExtractedText

_CONTEXT: Any = None


def _context() -> Any:
    global _CONTEXT
    if _CONTEXT is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["memspace.ingest.reader"])
        _CONTEXT = context
    return _CONTEXT


@dataclass(frozen=True)
class ParseBudget:
    seconds: float = 60.0
    memory_bytes: int = 1024 * 2**20


def _child(conn: Connection, reader: DocumentReader, kind: str, data: bytes,
           budget: ParseBudget) -> None:
    """Runs in the child: the CPU limit also ends it if the parent is gone."""
    cpu = int(budget.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (budget.memory_bytes, budget.memory_bytes))
    try:
        conn.send(("ok", reader.read(kind, data)))
    except UnreadableDocument as exc:
        conn.send(("unreadable", exc.message))
    except MemoryError:
        conn.send(("memory", ""))
    except BaseException as exc:  # reported to the parent, which fails the document
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class BudgetedReader:
    """A DocumentReader whose `read` runs in a child process under `budget`."""

    def __init__(self, inner: DocumentReader, budget: ParseBudget) -> None:
        self._inner = inner
        self._budget = budget

    def kind_of(self, filename: str, data: bytes) -> str:
        return self._inner.kind_of(filename, data)  # a header and extension check: cheap

    def read(self, kind: str, data: bytes) -> ExtractedText:
        """Raises UnreadableDocument: unreadable, or over the time or memory budget."""
        context = _context()
        parent, child = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(child, self._inner, kind, data, self._budget),
                                  name="memspace-parse", daemon=True)
        process.start()
        child.close()
        try:
            answered = parent.poll(self._budget.seconds)
            outcome, payload = parent.recv() if answered else ("time", None)
        except EOFError:  # the child died without answering (killed by a limit, or crashed)
            outcome, payload = "died", None
        finally:
            parent.close()
            if process.is_alive():
                process.kill()
            process.join()
        if outcome == "ok" and isinstance(payload, ExtractedText):
            return payload
        raise UnreadableDocument(self._reason(kind, outcome, payload, process.exitcode))

    def _reason(self, kind: str, outcome: str, payload: Any, exitcode: int | None) -> str:
        what = "PDF" if kind == "pdf" else f"{kind} file"
        if outcome == "unreadable":
            return str(payload)
        if outcome in ("time", "died") and exitcode in (None, -9, -24):  # killed, or SIGXCPU
            return (f"reading this {what} took longer than its {self._budget.seconds:g} s budget "
                    "(MEMSPACE_MAX_PARSE_SECONDS), so it was stopped: the file is built to be "
                    "slow to read, or is very large. Split it, re-save it from a viewer, or ask "
                    "the operator to raise the limit")
        if outcome in ("memory", "died"):
            return (f"reading this {what} needed more than its "
                    f"{self._budget.memory_bytes // 2**20:,} MiB memory budget "
                    "(MEMSPACE_MAX_PARSE_MEMORY_MB), so it was stopped: split it, re-save it "
                    "from a viewer, or ask the operator to raise the limit")
        return (f"damaged {what}: it cannot be read ({payload}); upload the original file again, "
                "or re-save it from a viewer")
