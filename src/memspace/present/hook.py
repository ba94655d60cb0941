"""What the Claude Code hooks print (`memspace hook …`), and how they read a remote server's
answers: the same text whether the store is local or behind `--url`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memspace.domain.models import Handoff
from memspace.present.handoffs import handoff_text
from memspace.present.quoting import NOTICE, label, quoted, warning
from memspace.services.security import suspicious_reason

# A memory longer than this is shown cut (the agent can read the rest with search_memory).
RECALLED_CHARS = 600


@dataclass(frozen=True)
class Recalled:
    """A memory the prompt-recall hook found, and the prompt's identifiers it holds."""

    memory_id: str
    content: str
    identifiers: tuple[str, ...]


def hook_output(event: str, context: str) -> dict[str, Any]:
    """Claude Code's JSON answer of a SessionStart or UserPromptSubmit hook that adds context."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}


def session_start_text(space: str, handoff: Handoff) -> str:
    return (f"memspace: the latest handoff in space '{space}' (read it before you start; leave "
            f"your own with save_handoff before you stop).\n\n{handoff_text(handoff)}")


def recall_text(space: str, recalled: Sequence[Recalled]) -> str:
    """The memories a prompt's identifiers found, framed and quoted as the tools show them: the
    hook puts them in the model's context without the model asking, so they are data there too."""
    lines = [f"memspace: memories of space '{space}' that name identifiers in this prompt "
             "(exact matches; search_memory finds more).", NOTICE]
    for item in recalled:
        content = " ".join(item.content.split())
        if len(content) > RECALLED_CHARS:
            content = content[: RECALLED_CHARS - 1] + "…"
        names = ", ".join(label(i) for i in item.identifiers)
        lines.append(f"- [{item.memory_id}] (names {names})\n"
                     f"{warning(suspicious_reason(item.content))}{quoted(content)}")
    return "\n".join(lines)


def handoff_from_json(data: dict[str, Any], space_id: str = "") -> Handoff:
    """A handoff as `GET /v1/handoffs/latest` answers it (present.records.handoff_json)."""
    return Handoff(
        id=str(data["id"]), space_id=space_id, agent=str(data["agent"]),
        topic=str(data["topic"]), summary=str(data["summary"]),
        done=tuple(data.get("done") or ()), next_steps=tuple(data.get("nextSteps") or ()),
        open_questions=tuple(data.get("openQuestions") or ()),
        links=tuple(data.get("links") or ()),
        created_at=datetime.fromisoformat(str(data["createdAt"]).replace("Z", "+00:00")),
        created_by=str(data.get("createdBy") or ""),
    )


def found_from_json(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(id, content) of each result of `POST /v1/search` (present.json.search_json)."""
    return [(str(hit["id"]), str(hit["content"])) for hit in data.get("results", [])]


def search_body(keyword: str, space: str, limit: int) -> dict[str, Any]:
    """The `POST /v1/search` body of one strict keyword search."""
    return {"keyword": keyword, "space": space, "limit": limit, "exactKeyword": True,
            "includeProfile": False}
