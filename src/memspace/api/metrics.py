"""GET /metrics: Prometheus text from the app's own registry (`MEMSPACE_METRICS=true`)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from memspace.startup.container import Container


def add_metrics_route(app: FastAPI, container: Container) -> None:
    """Unauthenticated like /readyz: counts and timings only, no content, no keys."""
    metrics = container.metrics
    if metrics is None:
        return
    metrics.watch_queue(container.worker.queue_depth)
    cache = getattr(container.store, "vector_cache", None)
    if cache is not None:
        metrics.watch_vector_cache(cache.stats)

    async def scrape() -> Response:
        body = await run_in_threadpool(generate_latest, metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    app.add_api_route("/metrics", scrape, methods=["GET"], include_in_schema=False)
