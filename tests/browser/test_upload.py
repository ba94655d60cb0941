"""The upload view in a real browser: the file goes over REST with an upload ticket (never the
API key, never through the model), the document ends `done`, and its facts are shown as text."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import XSS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]

RUNBOOK = f"""# Deploy runbook

Deploys go out from the release branch every Tuesday at 10:00 UTC.

Rollbacks use the previous container image tag; never rebuild to roll back.

A note someone pasted from a bug report: {XSS}
"""


async def test_an_uploaded_file_ends_done_and_shows_its_facts(deployment: Deployment, open_view: OpenView,
                                                             tmp_path: Path) -> None:
    space = deployment.space("docs")
    key = deployment.key("teammate", {space: "rw"})
    runbook = tmp_path / "deploy-runbook.md"
    runbook.write_text(RUNBOOK, encoding="utf-8")
    async with open_view(key) as host:
        view = await host.open("upload", "upload_file_ui", {"space": space})
        await view.locator("#file").set_input_files(str(runbook))
        await expect(view.get_by_text("deploy-runbook.md")).to_be_visible()
        await view.get_by_label("Title (optional)").fill("Deploy runbook")
        await host.settled()
        await view.get_by_role("button", name="Upload").click()
        facts = view.get_by_role("region", name="Facts from the document")
        await expect(facts).to_contain_text("from Deploy runbook", timeout=30_000)
        await expect(facts).to_contain_text("every Tuesday at 10:00 UTC")
        await expect(facts.get_by_text(XSS)).to_have_count(1)
        await host.screenshot("upload")
        upload_url = f"{deployment.url}/v1/documents"
        assert upload_url in host.requests
        document_id = host.called("document_status_ui")[-1].arguments["documentId"]
        assert await view.locator("img").count() == 0
        host.assert_clean(allowed_requests=(upload_url,))
    who = deployment.principal(key)
    document, found = deployment.app.documents.facts(who, document_id, space)
    assert (document.title, document.status.value, document.created_by) == (
        "Deploy runbook", "done", "teammate")
    assert document.fact_count == len(found) > 0
    assert any(XSS in m.content for m in found)


async def test_a_read_only_key_cannot_upload(deployment: Deployment, open_view: OpenView) -> None:
    space = deployment.space("readonly")
    key = deployment.key("reader", {space: "r"})
    async with open_view(key) as host:
        view = await host.open("upload", "upload_file_ui", {"space": space})
        await expect(view.get_by_text(f"This key can only read {space}")).to_be_visible()
        await expect(view.locator("#file")).to_be_disabled()
        host.assert_clean()
