"""Document ingestion figures for one store. Prints; asserts nothing.

Usage: bench_ingest.py [--pages 100] [--rows 10000]
The store comes from MEMSPACE_STORE (sqlite by default, in a temporary data dir).

1. Flat mode (no model): a generated PDF of --pages pages and a CSV of --rows rows go through
   the real service (upload: store, parse, chunk; then every chunk through the add pipeline).
   Reported as chunks/s, and as a share of raw embedding throughput: the same chunk texts
   embedded in batches by the same model in the same process, i.e. the ceiling a pipeline
   that only embedded could reach.
2. With a model: the same documents against the scripted OpenAI-compatible server of the tests
   (every sentence becomes a fact), through litellm: model calls per document.
3. How many chunks are longer than the embedder's 256-word-piece window (MEMSPACE_CHUNK_CHARS).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.corpus import pdf  # noqa: E402
from tests.support.scripted_llm import ScriptedLLM, sentences_as_facts  # noqa: E402

from memspace.domain.models import Document  # noqa: E402
from memspace.services.access.access import AccessService  # noqa: E402
from memspace.startup.container import Container, build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

PRODUCTS = ["widget", "gadget", "sprocket", "bracket", "hinge", "valve", "gear", "panel"]
REGIONS = ["EU", "US", "APAC", "LATAM"]
WAREHOUSES = ["Lisbon", "Leipzig", "Lyon", "Leeds", "Lodz", "Lille", "Linz"]


def pdf_pages(pages: int, rng: random.Random) -> bytes:
    """A price-list-like PDF: ~3,000 characters of varied sentences per page."""
    def sentence(page: int, n: int) -> str:
        return (f"The {rng.choice(PRODUCTS)} model {page}-{n} costs {rng.randint(5, 900)} euros "
                f"in {rng.choice(REGIONS)} and ships from {rng.choice(WAREHOUSES)} within "
                f"{rng.randint(1, 14)} days.")
    return pdf([" ".join(sentence(p, n) for n in range(30)) for p in range(1, pages + 1)])


def csv_rows(rows: int, rng: random.Random) -> bytes:
    lines = ["sku,product,price,currency,region,stock,warehouse"]
    lines += [f"SKU-{i:05d},{rng.choice(PRODUCTS)} {i % 97},{rng.uniform(1, 900):.2f},EUR,"
              f"{rng.choice(REGIONS)},{rng.randint(0, 500)},{rng.choice(WAREHOUSES)}"
              for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def raw_rate(app: Container, texts: list[str]) -> float:
    """Chunks/s when the same texts are only embedded, in batches, by the same model."""
    started = time.perf_counter()
    app.embedder.embed(texts)
    return len(texts) / (time.perf_counter() - started)


def chunk_texts(app: Container, document: Document) -> list[str]:
    operator = AccessService.operator()
    space = app.store.directory.get_space(document.space_id)
    assert space is not None
    content = app.documents.content(operator, document.id, space.slug, 0, 50)
    texts = [c["text"] for c in content["chunks"]]
    while content["nextOffset"] is not None:
        content = app.documents.content(operator, document.id, space.slug, content["nextOffset"], 50)
        texts += [c["text"] for c in content["chunks"]]
    return texts


def over_window(app: Container, texts: list[str]) -> int:
    tokenizer: Any = app.embedder._load().tokenizer  # type: ignore[attr-defined]
    window = 254  # 256 word pieces, less [CLS] and [SEP]
    return sum(len(tokenizer(t, add_special_tokens=False)["input_ids"]) > window for t in texts)


def flat(data_dir: Path, files: dict[str, bytes]) -> None:
    app = build(Settings(data_dir=data_dir / "flat", llm_model=None))  # type: ignore[call-arg]
    app.admin.create_space("bench-flat")
    app.embedder.embed(["warm up"])  # model load is not ingestion
    print(f"flat mode, {app.settings.store} store, chunks of <= {app.settings.chunk_chars} chars")
    operator = AccessService.operator()
    for name, data in files.items():
        started = time.perf_counter()
        uploaded = app.ingestion.upload(operator, name, data, "bench-flat").document
        upload_s = time.perf_counter() - started
        texts = chunk_texts(app, uploaded)
        # Raw throughput is taken before and after, and averaged: other load on the machine
        # moves both figures, and the ratio is what the comparison is about.
        before = raw_rate(app, texts)
        started = time.perf_counter()
        document = app.ingestion.process(uploaded)
        process_s = time.perf_counter() - started
        raw = (before + raw_rate(app, texts)) / 2
        rate = document.chunks_total / process_s
        overall = document.chunks_total / (upload_s + process_s)
        print(f"  {name}: {len(data) / 2**20:.1f} MiB -> {document.chunks_total} chunks "
              f"({document.status.value}, {document.fact_count} memories); upload (store, parse, "
              f"chunk) {upload_s:.2f} s; chunks {rate:.1f}/s ({overall:.1f}/s including upload); "
              f"raw embedding of the same texts {raw:.1f}/s -> ratio {rate / raw:.2f}")
        longer = over_window(app, texts)
        print(f"    chunks longer than the embedder's window: {longer} of {len(texts)} "
              f"({100 * longer / len(texts):.0f}%)")
    app.close()


def with_model(data_dir: Path, files: dict[str, bytes]) -> None:
    with ScriptedLLM() as llm:
        llm.fallback = sentences_as_facts
        app = build(Settings(data_dir=data_dir / "model", llm_model="openai/scripted",  # type: ignore[call-arg]
                             llm_api_base=llm.url, llm_api_key="bench"))
        app.admin.create_space("bench-model")
        print("with a model (scripted server, one answer per call, every sentence a fact)")
        for name, data in files.items():
            before = len(llm.requests)
            uploaded = app.ingestion.upload(AccessService.operator(), name, data, "bench-model")
            started = time.perf_counter()
            document = app.ingestion.process(uploaded.document)
            process_s = time.perf_counter() - started
            calls = len(llm.requests) - before
            print(f"  {name}: {calls} model calls for {document.chunks_total} chunks "
                  f"({calls / document.chunks_total:.2f} per chunk), {document.fact_count} "
                  f"memories, {process_s:.1f} s")
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--no-model", action="store_true", help="skip the model figures")
    args = parser.parse_args()
    rng = random.Random(7)
    files = {f"{args.pages}-pages.pdf": pdf_pages(args.pages, rng),
             f"{args.rows}-rows.csv": csv_rows(args.rows, rng)}
    with tempfile.TemporaryDirectory(prefix="memspace-bench-") as folder:
        flat(Path(folder), files)
        if not args.no_model:
            with_model(Path(folder), files)


if __name__ == "__main__":
    main()
