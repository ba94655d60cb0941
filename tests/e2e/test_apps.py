"""The MCP Apps surface over real HTTP: views as ui:// resources with a declared CSP, launcher
tools that answer in text for hosts without UI, app-only helpers, and upload tickets that open
exactly one door."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

VIEWS = {"space-picker": "select_space_ui", "guided-save": "guided_save_ui",
         "upload": "upload_file_ui", "memory-graph": "memory_graph_ui",
         "conflicts": "conflicts_ui"}
HELPERS = {"list_spaces_ui", "set_active_space_ui", "find_memories_ui", "save_memory_ui",
           "preview_correction_ui", "correct_memory_ui", "graph_data_ui", "memory_detail_ui",
           "upload_ticket_ui", "document_status_ui", "list_conflicts_ui", "resolve_conflict_ui"}


async def test_views_are_self_contained_ui_resources_with_a_declared_csp(deployment: Deployment) -> None:
    space = deployment.space("views")
    async with mcp_client(deployment.url, deployment.key("viewer", {space: "r"})) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        for view in VIEWS:
            uri = f"ui://memspace/{view}.html"
            assert listed[uri].mime_type == "text/html;profile=mcp-app"
            [content] = (await client.read_resource(uri)).contents
            html = content.text  # type: ignore[union-attr]
            assert html.startswith("<!doctype html>") and html.count("</script>") == 1
            assert "<script src" not in html and "<link" not in html
            csp = (content.meta or {})["ui"]["csp"]
            if view == "upload":
                assert csp == {"connectDomains": [deployment.url]}  # where the server really is
            else:
                assert csp == {"connectDomains": [], "resourceDomains": []}


async def test_launchers_open_their_view_and_helpers_are_hidden_from_the_model(
    deployment: Deployment,
) -> None:
    space = deployment.space("tools")
    async with mcp_client(deployment.url, deployment.key("lister", {space: "r"}),
                          apps=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for view, name in VIEWS.items():
        assert tools[name].meta == {"ui": {"resourceUri": f"ui://memspace/{view}.html"}}
    for name in HELPERS:
        assert tools[name].meta is not None and tools[name].meta["ui"]["visibility"] == ["app"]


async def test_launchers_answer_in_text_for_hosts_without_ui(deployment: Deployment) -> None:
    space = deployment.space("plain")
    key = deployment.key("plain-client", {space: "rw"})
    deployment.app.memories.add(deployment.app.access.authenticate(key),
                                "Releases are cut on Tuesdays", space, "process")
    async with mcp_client(deployment.url, key) as client:
        picker = await client.call_tool("select_space_ui", {})
        assert space in picker.content[0].text and "setActiveSpace" in picker.content[0].text  # type: ignore[union-attr]
        graph = await client.call_tool("memory_graph_ui", {"space": space})
        assert "1 active memory" in graph.content[0].text  # type: ignore[union-attr]
        assert "Releases are cut on Tuesdays" in graph.content[0].text  # type: ignore[union-attr]
        upload = await client.call_tool("upload_file_ui", {"space": space})
        assert "curl" in upload.content[0].text and "/v1/documents" in upload.content[0].text  # type: ignore[union-attr]
        save = await client.call_tool("guided_save_ui", {"space": space, "content": "draft"})
        assert "Nothing is saved" in save.content[0].text  # type: ignore[union-attr]
        assert data(save)["draft"]["content"] == "draft"


async def test_an_upload_ticket_uploads_to_its_space_and_opens_nothing_else(
    deployment: Deployment,
) -> None:
    space = deployment.space("tickets")
    other = deployment.space("elsewhere")
    key = deployment.key("uploader", {space: "rw", other: "rw"})
    reader = deployment.key("reader", {space: "r"})
    async with mcp_client(deployment.url, key) as client:
        issued = await client.call_tool("upload_ticket_ui", {"space": space})
        ticket = data(issued)
        assert ticket["ticket"] not in issued.content[0].text  # type: ignore[union-attr]  # only the view sees it
    async with mcp_client(deployment.url, reader) as client:
        assert "can only read" in error_text(await client.call_tool("upload_ticket_ui", {"space": space}))
    bearer = {"Authorization": f"Bearer {ticket['ticket']}", "Origin": "null"}  # as from a sandboxed view
    async with httpx2.AsyncClient(base_url=deployment.url, headers=bearer) as http:
        sent = await http.post("/v1/documents", files={"file": ("notes.txt", b"Lunch is at noon.")})
        assert sent.status_code == 202, sent.text
        assert sent.headers["access-control-allow-origin"] == "*"
        elsewhere = await http.post("/v1/documents", data={"space": other},
                                    files={"file": ("notes.txt", b"Sneaking in.")})
        assert elsewhere.status_code == 404
        for refused in [await http.get("/v1/memories"), await http.get(f"/v1/documents/{sent.json()['id']}")]:
            assert refused.status_code == 401 and "only authorises POST /v1/documents" in refused.text
        forged = await http.post("/v1/documents", headers={"Authorization": f"Bearer {ticket['ticket']}x"},
                                 files={"file": ("notes.txt", b"Forged.")})
        assert forged.status_code == 401
    async with httpx2.AsyncClient(base_url=deployment.url) as http:
        preflight = {"Origin": "null", "Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "authorization"}
        allowed = await http.options("/v1/documents", headers=preflight)
        assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == "*"
        closed = await http.options("/v1/memories", headers=preflight)
        assert "access-control-allow-origin" not in closed.headers
