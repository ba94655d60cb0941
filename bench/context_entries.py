"""How many entries get_context packs into a budget: the demo (seed/demo.json), five questions
of its two spaces, `lean` excerpts at 400, 600 and 800 tokens; entries shown whole, as
pointers, and omitted. Prints; asserts nothing. Run it at two commits (a git worktree of the
earlier one) to compare them.

Usage: context_entries.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memspace.cli.ingest import PLAN, seed_dir  # noqa: E402
from memspace.services.access import AccessService  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

QUESTIONS = [("acme-rebuild", "where is the Acme storefront hosted?"),
             ("acme-rebuild", "how do we deploy to production?"),
             ("acme-rebuild", "checkout latency budget"), ("support", "how do refunds work?"),
             ("support", "what happens to an outage ticket at night?")]


def main() -> None:
    app = build(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp(prefix="memspace-ctx-")),  # type: ignore[call-arg]
                         llm_model=""))
    folder = seed_dir()
    app.seeder.load((folder / PLAN).read_text(encoding="utf-8"),
                    lambda name: (folder / name).read_bytes(), lambda _step: None)
    who = AccessService.operator()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    for budget in (400, 600, 800):
        whole = pointers = omitted = 0
        for space, question in QUESTIONS:
            brief = app.briefings.brief(who, question, budget, "lean", space)
            whole += len(brief.included)
            pointers += len(brief.shortened)
            omitted += len(brief.omitted)
        print(f"maxTokens {budget}, {len(QUESTIONS)} questions: {whole} whole, {pointers} as "
              f"pointers, {omitted} omitted")
    app.close()


if __name__ == "__main__":
    main()
