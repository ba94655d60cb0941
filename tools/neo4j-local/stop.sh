#!/usr/bin/env bash
# Stop the server started by start.sh: SIGTERM (clean shutdown via the JVM hook), wait up to
# NEO4J_LOCAL_STOP_TIMEOUT seconds (30), then SIGKILL. Exits 0 if nothing is running.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PID_FILE="${NEO4J_LOCAL_PID_FILE:-$DIR/neo4j.pid}"
TIMEOUT="${NEO4J_LOCAL_STOP_TIMEOUT:-30}"
MAIN_CLASS="memspace.neo4jlocal.Main"

if [[ ! -f "$PID_FILE" ]]; then
    echo "neo4j-local: not running (no pid file)"
    exit 0
fi
PID="$(cat "$PID_FILE")"
# Alive and still our server (guards against pid reuse; a zombie's cmdline is empty).
ours() { [[ -n "$PID" ]] && grep -qaF -- "$MAIN_CLASS" "/proc/$PID/cmdline" 2>/dev/null; }
if ! ours; then
    echo "neo4j-local: not running (stale pid file removed)"
    rm -f "$PID_FILE"
    exit 0
fi

kill -TERM "$PID" 2>/dev/null || true
deadline=$((SECONDS + TIMEOUT))
while ours; do
    if ((SECONDS >= deadline)); then
        echo "neo4j-local: pid $PID still alive after ${TIMEOUT}s; sending SIGKILL" >&2
        kill -KILL "$PID" 2>/dev/null || true
        break
    fi
    sleep 0.2
done
rm -f "$PID_FILE"
echo "neo4j-local: stopped (pid $PID)"
