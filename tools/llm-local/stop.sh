#!/usr/bin/env bash
# Stop the server started by start.sh: SIGTERM, wait up to LLM_LOCAL_STOP_TIMEOUT seconds (15),
# then SIGKILL its process group. Exits 0 if nothing is running.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PID_FILE="${LLM_LOCAL_PID_FILE:-$DIR/llm.pid}"
TIMEOUT="${LLM_LOCAL_STOP_TIMEOUT:-15}"

if [[ ! -f "$PID_FILE" ]]; then
    echo "llm-local: not running (no pid file)"
    exit 0
fi
PID="$(cat "$PID_FILE")"
# Alive and still our server (guards against pid reuse; a zombie's cmdline is empty).
ours() { [[ -n "$PID" ]] && grep -qaF -- "$DIR/serve.py" "/proc/$PID/cmdline" 2>/dev/null; }
if ! ours; then
    echo "llm-local: not running (stale pid file removed)"
    rm -f "$PID_FILE"
    exit 0
fi

PORT="$(tr '\0' '\n' <"/proc/$PID/cmdline" | grep -A1 -x -- --port | tail -n 1)"
# The kernel releases a dying process's memory (and its cmdline) before its sockets: wait for
# the port too, so a start.sh right after this finds it free.
port_open() { [[ -n "$PORT" ]] && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

kill -TERM "$PID" 2>/dev/null || true
deadline=$((SECONDS + TIMEOUT))
while ours || port_open; do
    if ((SECONDS >= deadline)); then
        echo "llm-local: pid $PID still alive after ${TIMEOUT}s; sending SIGKILL" >&2
        kill -KILL -- "-$PID" 2>/dev/null || kill -KILL "$PID" 2>/dev/null || true
        break
    fi
    sleep 0.2
done
rm -f "$PID_FILE"
echo "llm-local: stopped (pid $PID)"
