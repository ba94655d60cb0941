"""The Neo4j connection's bounded retries, on a simulated clock (no server): an outage is
reported within the retry window, the next calls try once while the server is known down, and a
server that comes back is used at once."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ServiceUnavailable

from memspace.domain.errors import Unavailable
from memspace.stores.neo4j import connection
from memspace.stores.neo4j.connection import DOWN_MEMORY_S, Neo4jConnection

URI = "bolt://127.0.0.1:1"


class SimulatedTime:
    """Stands in for the `time` module inside connection.py: sleeping moves the clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class DeadServer:
    """Each attempt takes `cost` seconds, then fails like a stopped server, until revived."""

    def __init__(self, clock: SimulatedTime, cost: float) -> None:
        self.clock, self.cost, self.attempts, self.up = clock, cost, 0, False

    def __call__(self) -> str:
        self.attempts += 1
        self.clock.now += self.cost
        if self.up:
            return "answered"
        raise ServiceUnavailable("Couldn't connect to 127.0.0.1:1")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SimulatedTime:
    simulated = SimulatedTime()
    monkeypatch.setattr(connection, "time", simulated)
    return simulated


@pytest.mark.parametrize("cost", [0.0, 0.5, 2.0])
def test_an_outage_is_reported_within_the_window_then_calls_try_once(
    clock: SimulatedTime, cost: float,
) -> None:
    link = Neo4jConnection(URI, "neo4j", None, None, connect_timeout_s=2.0, retry_window_s=5.0)
    try:
        server = DeadServer(clock, cost)
        started = clock.now
        with pytest.raises(Unavailable, match=f"Neo4j at {URI} is not answering"):
            link.retrying(server)
        assert clock.now - started <= 5.0  # never past the window, whatever an attempt costs
        assert server.attempts >= 2 if cost < 2.0 else server.attempts >= 1
        server.attempts, started = 0, clock.now
        with pytest.raises(Unavailable):  # known down: one attempt, no waiting
            link.retrying(server)
        assert (server.attempts, clock.now - started) == (1, cost)
        server.up = True  # back: the first try succeeds and the memory of the outage ends
        assert link.retrying(server) == "answered"
        server.up, server.attempts = False, 0
        with pytest.raises(Unavailable):
            link.retrying(server)
        assert server.attempts >= 2 if cost < 2.0 else server.attempts >= 1  # a full window again
    finally:
        link.driver.close()


def test_the_outage_is_forgotten_after_a_while(clock: SimulatedTime) -> None:
    link = Neo4jConnection(URI, "neo4j", None, None, connect_timeout_s=2.0, retry_window_s=5.0)
    try:
        server = DeadServer(clock, 0.0)
        with pytest.raises(Unavailable):
            link.retrying(server)
        clock.now += DOWN_MEMORY_S + 0.1
        server.attempts = 0
        with pytest.raises(Unavailable):
            link.retrying(server)
        assert server.attempts > 1
    finally:
        link.driver.close()
