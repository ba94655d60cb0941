"""The Docker image, checked without Docker: the wheel built from exactly what the Dockerfile
copies carries the prompt, the demo and the views; compose.yaml agrees with Settings, the app's
routes and the README."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
import yaml

from memspace.api.routes import router
from memspace.startup.app import transport_security
from memspace.startup.container import Container
from memspace.startup.settings import Settings
from tests.support.packaging import REPO, build_wheel, dockerfile_instructions, stage_docker_context

COMPOSE = REPO / "compose.yaml"
README = REPO / "README.md"

# Runs inside the installed wheel (PYTHONPATH = the throwaway target), through the package's
# own loaders. Third-party imports still come from this venv: only memspace is under test.
CHECK_PACKAGE = textwrap.dedent("""
    import sys
    from pathlib import Path
    import memspace
    from memspace.cli.ingest import PLAN, seed_dir
    from memspace.llm.extractor import PROMPT
    from memspace.llm.prompts import load_prompt
    from memspace.surfaces.views import VIEWS, view_html
    from memspace.services.demo.seeding import SeedPlan

    target = Path(sys.argv[1]).resolve()
    assert Path(memspace.__file__).resolve().is_relative_to(target), memspace.__file__
    prompt = load_prompt(PROMPT)
    assert {"candidates", "content"} <= prompt.slots, prompt.slots
    plan = SeedPlan.model_validate_json((seed_dir() / PLAN).read_text(encoding="utf-8"))
    sizes = [len((seed_dir() / d.file).read_bytes()) for d in plan.documents]
    assert plan.memories and plan.documents and all(sizes), sizes
    for view in VIEWS:
        assert view_html(view).startswith("<!doctype html>"), view.name
    print(f"prompt {prompt.name}; seed: {len(plan.spaces)} spaces, {len(plan.memories)} memories, "
          f"{len(plan.documents)} documents; views: {', '.join(v.name for v in VIEWS)}")
""")


def test_the_wheel_built_from_the_dockerfiles_copies_carries_prompts_seed_and_views(
        tmp_path: Path) -> None:
    context = stage_docker_context(tmp_path / "app")
    wheel = build_wheel(context, tmp_path / "dist")
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)], check=True, timeout=120)
    done = subprocess.run([sys.executable, "-c", CHECK_PACKAGE, str(target)], cwd=tmp_path,
                          env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "views: space-picker, guided-save, upload, memory-graph" in done.stdout


def test_the_image_installs_the_package_without_extras_then_bakes_in_the_model() -> None:
    runs = [rest for keyword, rest in dockerfile_instructions() if keyword == "RUN"]
    package = next(i for i, r in enumerate(runs) if re.search(r"pip install .*\s\.$", r))
    assert not any("torch" in r or "sentence-transformers" in r or "[" in r for r in runs), runs
    assert package < next(i for i, r in enumerate(runs) if "memspace.embeddings.fetch" in r)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return cast(dict[str, Any], yaml.safe_load(COMPOSE.read_text(encoding="utf-8")))


def _dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, rest in dockerfile_instructions():
        if keyword == "ENV":
            env.update(pair.split("=", 1) for pair in rest.split())
    return env


def _resolved(value: str) -> str:
    """compose's `${NAME:-default}` with nothing set in the environment."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)


def _service_settings(compose: dict[str, Any]) -> Settings:
    env = {**_dockerfile_env(), **{k: _resolved(str(v)) for k, v in
                                    compose["services"]["memspace"]["environment"].items()}}
    unknown = sorted(k for k in env if k.removeprefix("MEMSPACE_").lower() not in Settings.model_fields)
    assert not unknown, f"Settings has no field for {unknown}"
    values = {k.removeprefix("MEMSPACE_").lower(): v for k, v in env.items()}
    values["allowed_hosts"] = yaml.safe_load(values.get("allowed_hosts", "[]"))
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_every_variable_compose_and_the_dockerfile_set_is_a_setting(compose: dict[str, Any]) -> None:
    settings = _service_settings(compose)
    assert settings.store == "neo4j" and settings.neo4j_uri == "bolt://neo4j:7687"
    assert settings.host == "0.0.0.0"


def test_the_health_checks_ask_for_readyz(compose: dict[str, Any]) -> None:
    paths = {route.path for route in router.routes}  # type: ignore[attr-defined]
    assert "/readyz" in paths
    docker_check = next(rest for keyword, rest in dockerfile_instructions() if keyword == "HEALTHCHECK")
    compose_check = " ".join(compose["services"]["memspace"]["healthcheck"]["test"])
    for check in (docker_check, compose_check):
        assert "http://127.0.0.1:8000/readyz" in check
    assert compose["services"]["memspace"]["depends_on"]["neo4j"]["condition"] == "service_healthy"


def test_the_published_port_is_the_readmes_url_and_its_host_is_allowed(compose: dict[str, Any]) -> None:
    settings = _service_settings(compose)
    [published] = compose["services"]["memspace"]["ports"]
    host_ip, host_port, container_port = published.split(":")
    assert int(container_port) == settings.port
    url = f"http://{host_ip}:{host_port}"
    readme = README.read_text(encoding="utf-8")
    assert f"{url}/mcp" in readme
    security = transport_security(cast(Container, SimpleNamespace(settings=settings)))
    # A client on the host reaches the container as 127.0.0.1:8000; other containers by its name.
    assert f"{host_ip}:*" in security.allowed_hosts
    assert "memspace:*" in security.allowed_hosts
