"""The export's handoff line (services/portability/export_records.py) is format version 1: spelled beside
the export rather than borrowed from present/, and today the same keys, in the same order, as
the wire's handoff, so an export written before the move reads back the same."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from memspace.domain.models import Handoff
from memspace.present.records import handoff_json
from memspace.services.portability.export_records import handoff_line, iso

AT = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def _handoff(evidence: tuple[str, ...] = ()) -> Handoff:
    return Handoff("h1", "s1", "claude", "deploy", "Half of the rollout is done", ("canary",),
                   ("widen to 50%",), ("who owns the alerts?",), ("https://ci/run/7",), AT,
                   "alice", evidence)


def test_a_handoff_line_is_the_version_1_record_byte_for_byte() -> None:
    line = handoff_line(_handoff())
    assert json.dumps(line) == json.dumps({
        "type": "handoff", "id": "h1", "agent": "claude", "topic": "deploy",
        "summary": "Half of the rollout is done", "done": ["canary"],
        "nextSteps": ["widen to 50%"], "openQuestions": ["who owns the alerts?"],
        "links": ["https://ci/run/7"], "createdAt": "2026-03-01T09:30:00Z",
        "createdBy": "alice"})
    assert json.dumps(line) == json.dumps({"type": "handoff", **handoff_json(_handoff())})


def test_evidence_is_written_only_when_there_is_some() -> None:
    cited = handoff_line(_handoff(("src/app.py:10-12",)))
    assert cited["evidence"] == ["src/app.py:10-12"]
    assert list(cited)[-3:] == ["evidence", "createdAt", "createdBy"]
    assert "evidence" not in handoff_line(_handoff())
    assert iso(None) is None
