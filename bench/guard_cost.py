"""What the one write guard and the one quoting rule cost: the guard per write, and a search
with its text, at 10,000 memories, before and after, alternated.

    PYTHONPATH=src:. .venv/bin/python bench/guard_cost.py --before /path/to/a/checkout/of/776c1f6

- **Per write**: the scanner as the guard runs it on one add's fields. Before, only the text was
  scanned (the checkout's services/security/secrets.py, loaded beside this one); now every field (text,
  category, speaker, two citations), normalised, split tokens joined. Rounds alternate the two,
  and the report gives p50 and p95 of each and their difference.
- **Per search**: `search_memory`'s service call and its text (present/text.search_text) on an
  SQLite store of 10,000 memories (hashing embedder, so the model does not hide the difference),
  in a child process per side, sides alternated over rounds; p50 and p95 of each side.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
WRITES = [
    {"content": f"The {topic} service retries webhooks {n} times with exponential backoff, "
                "capped at 30 s, after the March incident review.",
     "category": "architecture", "speaker": "dana",
     "evidence[0]": f"api/src/{topic}/retry.py:{40 + n}#backoff",
     "evidence[1]": f"cmd:pytest tests/test_{topic}_retry.py"}
    for n, topic in enumerate(["billing", "orders", "search", "auth", "export"] * 40)
]
SEARCH = """
import json, statistics, sys, tempfile, time
from pathlib import Path
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.present.text import search_text
from memspace.services.access.access import AccessService
from memspace.services.search.search import SearchRequest
from tests.support.fakes import HashEmbedder
app = build(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp())), embedder=HashEmbedder())
app.admin.create_space("bench")
who = AccessService.operator()
topics = ["billing", "orders", "search", "auth", "export", "deploys", "pricing", "backups"]
texts = [f"Note {n}: the {topics[n % 8]} team decided item {n} in review {n // 8}" for n in range(10_000)]
app.memories.add_many(who, texts, "bench", "decision")
queries = [f"what did the {t} team decide in review {n}" for n in range(40) for t in topics]
for q in queries[:20]:
    search_text(app.search.search(who, SearchRequest(q, space="bench")))
took = []
for q in queries:
    start = time.perf_counter()
    search_text(app.search.search(who, SearchRequest(q, space="bench")))
    took.append((time.perf_counter() - start) * 1000)
print(json.dumps(took))
"""


def load_old_scanner(checkout: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "old_secrets", checkout / "src" / "memspace" / "services" / "secrets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_secrets"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module.SecretScanner()


def per_write(old: Any, new: Any, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(rounds):
        for side in ("before", "after"):
            for fields in WRITES:
                start = time.perf_counter()
                if side == "before":
                    old.scan(fields["content"])
                else:
                    for text in fields.values():
                        new.scan(text)
                out[side].append((time.perf_counter() - start) * 1000)
    return out


def per_search(checkout: Path, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(rounds):
        for side, root in (("before", checkout), ("after", HERE)):
            done = subprocess.run([sys.executable, "-c", SEARCH], capture_output=True, text=True,
                                  cwd=tempfile.gettempdir(), check=True,
                                  env={"PYTHONPATH": f"{root / 'src'}:{root}", "PATH": "/usr/bin:/bin"})
            out[side] += json.loads(done.stdout.strip().splitlines()[-1])
    return out


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="a checkout of the code to compare with (e.g. 776c1f6)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from memspace.services.security.secrets import SecretScanner

    writes = per_write(load_old_scanner(args.before), SecretScanner(), args.rounds)
    searches = per_search(args.before, args.rounds)
    print(f"PYTHONPATH=src:. .venv/bin/python bench/guard_cost.py --before {args.before} "
          f"--rounds {args.rounds}")
    for name, data in (("guard per write (ms)", writes), ("search + text at 10,000 (ms)", searches)):
        b50, b95, a50, a95 = (p(data["before"], 50), p(data["before"], 95),
                              p(data["after"], 50), p(data["after"], 95))
        print(f"{name}: before p50 {b50:.2f} p95 {b95:.2f}; after p50 {a50:.2f} p95 {a95:.2f}; "
              f"p95 after/before {a95 / b95:.2f}, difference {a95 - b95:+.2f}")


if __name__ == "__main__":
    main()
