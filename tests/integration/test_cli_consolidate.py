"""`memspace consolidate` as a user runs it on the demo (an embedded store in a fresh data
folder, the real embedding model, no language model): a dry run, a pass, its listing and its
undo, and the errors that say what to do."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.model


def test_a_pass_over_the_demo_is_previewed_run_listed_and_undone(run) -> None:  # type: ignore[no-untyped-def]
    assert run("seed").exit_code == 0
    assert run("add", "Checkout deploys freeze on Fridays.", "-s", "acme-rebuild").exit_code == 0
    assert run("add", "checkout deploys freeze on fridays!", "-s", "acme-rebuild").exit_code == 0

    dry = run("consolidate", "--space", "acme-rebuild", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.startswith("Dry run over acme-rebuild (nothing written): read ")
    assert "restatement" in dry.stdout and "Undo it" not in dry.stdout

    done = run("consolidate", "--space", "acme-rebuild", "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["counts"]["restatement"] == 1 and report["cost"]["modelCalls"] == 0
    pass_id = report["passId"]
    [fold] = [c for c in report["changes"] if c["kind"] == "restatement"]

    again = run("consolidate", "--space", "acme-rebuild")
    assert again.exit_code == 0 and "read 1 memory" in again.stdout  # the one it retired

    listed = run("consolidate", "passes", "--space", "acme-rebuild")
    assert listed.exit_code == 0 and pass_id in listed.stdout and "1 restatement" in listed.stdout

    undone = run("consolidate", "undo", pass_id, "--space", "acme-rebuild", "--reason", "both",
                 "--json")
    assert undone.exit_code == 0, undone.output
    answer = json.loads(undone.stdout)
    assert answer["restored"] == fold["retired"] and answer["undoneBy"] == "cli:operator"
    twice = run("consolidate", "undo", pass_id, "--space", "acme-rebuild")
    assert twice.exit_code == 1 and "undone already" in twice.output


def test_the_errors_say_what_to_do(run) -> None:  # type: ignore[no-untyped-def]
    assert run("seed").exit_code == 0
    nameless = run("consolidate")
    assert nameless.exit_code == 2 and "memspace consolidate --space" in nameless.output
    missing = run("consolidate", "--space", "nowhere")
    assert missing.exit_code == 1 and "no space 'nowhere'" in missing.output
    unknown = run("consolidate", "undo", "cp_nothing", "--space", "support")
    assert unknown.exit_code == 1 and "consolidate passes --space support" in unknown.output
