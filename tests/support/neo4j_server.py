"""Find a real Neo4j for the tests, in this order (tests/README.md), and hand out its Bolt URI.

1. `MEMSPACE_TEST_NEO4J_URI`, used as-is (it must answer, with auth disabled).
2. testcontainers `neo4j:5.26-community`, when a Docker engine answers.
3. tools/neo4j-local, when `java` and `mvn` are on PATH: a tools/neo4j-local server already
   answering on its port (`make neo4j`) is used and left running (any other server there is
   refused: it may hold real data); otherwise start.sh starts one for the session and stop.sh
   stops it afterwards.
4. Otherwise `Neo4jUnavailable`, saying what was tried.

Every server is used without auth, as the contract fixture builds `Neo4jStore(uri)`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from neo4j import GraphDatabase

IMAGE = "neo4j:5.26-community"
NEO4J_LOCAL = Path(__file__).resolve().parents[2] / "tools" / "neo4j-local"
# The first start.sh builds with Maven (downloads ~160 MB); later starts take ~5 s.
START_TIMEOUT_S = 600
STOP_TIMEOUT_S = 60


class Neo4jUnavailable(Exception):
    """No Neo4j server could be found or started."""


@contextlib.contextmanager
def neo4j_server() -> Iterator[str]:
    """Yield the Bolt URI of a running Neo4j; stop it afterwards if this started it.

    Raises:
        Neo4jUnavailable: none of the sources above gave a server that answers.
    """
    explicit = os.environ.get("MEMSPACE_TEST_NEO4J_URI", "").strip()
    if explicit:
        problem = _bolt_problem(explicit)
        if problem:
            raise Neo4jUnavailable(f"MEMSPACE_TEST_NEO4J_URI={explicit} does not answer: {problem}")
        yield explicit
        return

    tried: list[str] = []
    container = _start_container(tried)
    if container is not None:
        try:
            yield container.get_connection_url()
        finally:
            container.stop()
        return

    if shutil.which("java") and shutil.which("mvn"):
        uri = f"bolt://127.0.0.1:{os.environ.get('NEO4J_LOCAL_PORT', '7687')}"
        if not _bolt_problem(uri):
            # A server already answering is used only if it is a tools/neo4j-local one (`make
            # neo4j`): any other auth-less Neo4j on the port may be someone's real database.
            directory = _data_directory(uri)
            if "/tools/neo4j-local/" not in directory:
                raise Neo4jUnavailable(
                    f"a Neo4j that tools/neo4j-local did not start answers at {uri} (data in "
                    f"{directory or 'an unknown folder'}); the tests write into the database they "
                    "get, so name it on purpose with MEMSPACE_TEST_NEO4J_URI, or set "
                    "NEO4J_LOCAL_PORT to start a test server on another port")
            yield uri  # someone else's server (`make neo4j`): theirs to stop
            return
        _run(NEO4J_LOCAL / "start.sh", START_TIMEOUT_S)
        try:
            yield uri
        finally:
            _run(NEO4J_LOCAL / "stop.sh", STOP_TIMEOUT_S, error=RuntimeError)
        return
    tried.append("tools/neo4j-local: needs `java` (17 or 21) and `mvn` on PATH")
    raise Neo4jUnavailable("; ".join(tried))


def _bolt_problem(uri: str) -> str | None:
    """None when a Bolt server answers at `uri` (without auth), else why not."""
    try:
        with GraphDatabase.driver(uri, auth=None, connection_timeout=3) as driver:
            driver.verify_connectivity()
    except Exception as exc:  # any failure means "not usable"; the message says which
        return f"{type(exc).__name__}: {exc}"
    return None


def _data_directory(uri: str) -> str:
    """Where the server at `uri` keeps its data ("" when it will not say)."""
    try:
        with GraphDatabase.driver(uri, auth=None, connection_timeout=3) as driver:
            records, _, _ = driver.execute_query(
                "CALL dbms.listConfig('server.directories.data') YIELD value RETURN value")
    except Exception:  # an older or locked-down server: treat as not ours
        return ""
    return str(records[0]["value"]) if records else ""


def _docker_answers() -> bool:
    """A quick socket probe, so we never build a Docker client that cannot connect."""
    url = urlparse(os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock"))
    try:
        if url.scheme == "unix":
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(2)
                sock.connect(url.path)
        elif url.scheme in ("tcp", "http", "https"):
            socket.create_connection((url.hostname or "localhost", url.port or 2375), 2).close()
    except OSError:
        return False
    return True  # reachable, or a scheme (ssh://) only the Docker client can judge


def _start_container(tried: list[str]) -> Any:
    """A started no-auth Neo4j container, or None (with the reason appended to `tried`)."""
    if not _docker_answers():
        tried.append("testcontainers: no Docker engine answers")
        return None
    try:
        try:
            from testcontainers.community.neo4j import Neo4jContainer
        except ImportError:  # testcontainers before the `community` namespace
            from testcontainers.neo4j import Neo4jContainer

        class NoAuthNeo4j(Neo4jContainer):
            def _configure(self) -> None:
                self.with_env("NEO4J_AUTH", "none")

        container = NoAuthNeo4j(IMAGE)
    except Exception as exc:  # docker.errors.DockerException and friends (docs/operations.md)
        tried.append(f"testcontainers: {type(exc).__name__}: {exc}")
        return None
    try:
        container.start()
    except Exception as exc:  # pull or startup failed: remove what was created
        tried.append(f"testcontainers: {type(exc).__name__}: {exc}")
        with contextlib.suppress(Exception):
            container.stop()
        return None
    return container


def _run(script: Path, timeout_s: int, error: type[Exception] = Neo4jUnavailable) -> None:
    try:
        subprocess.run([str(script)], check=True, timeout=timeout_s, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        raise error(f"{script} failed: {exc.stderr.strip() or exc.stdout.strip()}") from exc
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise error(f"{script}: {exc}") from exc
