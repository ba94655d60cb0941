"""The console's sign-in form counts a wrong key against the failed sign-in limit of its
address (docs/security.md). In a module of its own: it leaves 127.0.0.1 blocked for a minute
on its deployment, which no other test shares, and no other test's failed sign-ins count
before its own, whatever order the tests run in."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.browser.conftest import Deployment

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


async def test_a_wrong_key_counts_against_the_failed_sign_in_limit(deployment: Deployment) -> None:
    # The bucket refills continuously (the limit's worth a minute), so a slow run earns back an
    # attempt every 60/limit seconds: the bounds allow for exactly the attempts the elapsed
    # time gave back, no more.
    limit = deployment.app.settings.auth_failure_limit
    async with httpx.AsyncClient(base_url=deployment.url) as client:
        form = await client.get("/console")
        csrf = form.text.split('name=csrf value="')[1].split('"')[0]
        answers = []
        started = time.monotonic()
        for _ in range(limit + 1):
            answers.append(await client.post("/console", data={"key": "msk_wrong_wrong", "csrf": csrf}))
        given_back = int((time.monotonic() - started) * limit / 60) + 1
    statuses = [answer.status_code for answer in answers]
    assert set(statuses) <= {401, 429}
    first_refusal = statuses.index(429)
    assert limit <= first_refusal <= limit + given_back
    assert statuses[first_refusal:].count(401) <= given_back
    refused = answers[first_refusal]
    assert "Too many failed sign-ins" in refused.text and int(refused.headers["Retry-After"]) >= 1
    assert "Sign in to the memspace console" in answers[0].text
