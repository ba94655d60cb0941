#!/usr/bin/env bash
# Install (once, cached) and start the local model server, OpenAI-compatible on 127.0.0.1, in the
# background; wait until it answers. Idempotent: exits 0 if our server is already up. The last
# line printed is the base URL to use as MEMSPACE_LLM_API_BASE: http://127.0.0.1:PORT/v1
#
# Env: LLM_LOCAL_MODEL (qwen2.5-coder-1.5b; see install.py), LLM_LOCAL_PORT (8091),
#      LLM_LOCAL_HOME (~/.cache/memspace/llm: runtime and model cache), LLM_LOCAL_THREADS (nproc),
#      LLM_LOCAL_CTX (8192), LLM_LOCAL_TOOLS (0; 1: tool calls through the chat template),
#      LLM_LOCAL_START_TIMEOUT (120 s, after the install),
#      LLM_LOCAL_PYTHON (python3, runs the installer), LLM_LOCAL_PID_FILE / LLM_LOCAL_LOG_FILE
#      (<this dir>/llm.pid, llm.log: set both to run a second server).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL="${LLM_LOCAL_MODEL:-qwen2.5-coder-1.5b}"
PORT="${LLM_LOCAL_PORT:-8091}"
THREADS="${LLM_LOCAL_THREADS:-$(nproc)}"
CTX="${LLM_LOCAL_CTX:-8192}"
# 1: render prompts with the model's own chat template, which lets a client pass OpenAI `tools`
# and get `tool_calls` back (bench/tool_choice.py); off by default, as the tests were measured.
TOOLS="${LLM_LOCAL_TOOLS:-0}"
TIMEOUT="${LLM_LOCAL_START_TIMEOUT:-120}"
PYTHON="${LLM_LOCAL_PYTHON:-python3}"
PID_FILE="${LLM_LOCAL_PID_FILE:-$DIR/llm.pid}"
LOG_FILE="${LLM_LOCAL_LOG_FILE:-$DIR/llm.log}"
URL="http://127.0.0.1:$PORT/v1"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }
# A pid counts as ours only if it is alive and runs our serve.py (guards against pid reuse).
our_pid() { [[ -n "${1:-}" ]] && grep -qaF -- "$DIR/serve.py" "/proc/$1/cmdline" 2>/dev/null; }
# llama.cpp answers /health with 503 while it loads the model and 200 once it can serve.
healthy() { "$PYTHON" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
    "http://127.0.0.1:$PORT/health" 2>/dev/null; }
# Alive and not a zombie. While a server we just launched goes through nohup -> setsid -> bash
# -> python, its cmdline changes under us, so a starting server is judged by this instead.
alive() {
    [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null || return 1
    local state
    state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
    [[ -n "$state" && "$state" != Z ]]
}
STARTED_HERE=""
# A start that fails or is interrupted leaves no server behind (it would hold the port).
stop_started() {
    [[ -n "$STARTED_HERE" ]] || return 0
    STARTED_HERE=""
    if alive "${PID:-}"; then
        kill -KILL -- "-$PID" 2>/dev/null || kill -KILL "$PID" 2>/dev/null || true
        echo "llm-local: stopped the server this start launched (pid $PID)" >&2
    fi
    rm -f "$PID_FILE"
}
trap stop_started EXIT
trap 'exit 130' INT TERM
die() { echo "llm-local: $*" >&2; exit 1; }
fail() {
    echo "llm-local: $*" >&2
    if [[ -f "$LOG_FILE" ]]; then echo "--- last lines of $LOG_FILE:" >&2; tail -n 30 "$LOG_FILE" >&2; fi
    stop_started
    exit 1
}

# Serialise concurrent start.sh runs (parallel test workers): one installs and starts, the others
# wait here and then find it running. fd 9 is closed for the server (9>&- below).
exec 9>"$DIR/.start.lock"
flock -w 1800 9 || die "could not take $DIR/.start.lock"

PID=""
if [[ -f "$PID_FILE" ]]; then
    PID="$(cat "$PID_FILE")"
    if our_pid "$PID"; then
        RUNNING_PORT="$(tr '\0' '\n' <"/proc/$PID/cmdline" | grep -A1 -x -- --port | tail -n 1)"
        [[ "$RUNNING_PORT" == "$PORT" ]] \
            || die "already running (pid $PID) on port $RUNNING_PORT, not $PORT; run $DIR/stop.sh first"
        if healthy; then
            echo "llm-local: already running (pid $PID)"
            echo "$URL"
            exit 0
        fi
        echo "llm-local: pid $PID is still starting; waiting"
    else
        rm -f "$PID_FILE"   # stale
        PID=""
    fi
fi

if [[ -z "$PID" ]]; then
    port_open && die "port $PORT on 127.0.0.1 is already in use by another process (set LLM_LOCAL_PORT)"
    command -v "$PYTHON" >/dev/null || die "$PYTHON not found (the installer needs Python 3.10+)"
    # The installer prints "<runtime python> <model file>" on its last line; progress goes to stderr.
    INSTALLED="$("$PYTHON" "$DIR/install.py" "$MODEL" | tail -n 1)" || die "install failed (see above)"
    read -r RUNTIME MODEL_FILE <<<"$INSTALLED"
    rm -f "$PID_FILE"
    # setsid: its own session and process group, so Ctrl-C in this shell does not stop it and
    # stop.sh can end the group. setsid forks when it leads a process group (a shell with job
    # control), so $! is not always the server: the last shell of the chain writes its own pid,
    # which python inherits through exec. OMP_WAIT_POLICY: see serve.py.
    # shellcheck disable=SC2016
    OMP_WAIT_POLICY=PASSIVE nohup setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' llm-local \
        "$PID_FILE" "$RUNTIME" "$DIR/serve.py" --model "$MODEL_FILE" --port "$PORT" \
        --alias "$MODEL" --threads "$THREADS" --ctx "$CTX" --tools "$TOOLS" \
        >"$LOG_FILE" 2>&1 </dev/null 9>&- &
    LAUNCHER=$!
    STARTED_HERE=1
    PID="$LAUNCHER"
    # (a forking setsid's parent may exit before its child writes: give the chain 10 s)
    for _ in $(seq 200); do [[ -s "$PID_FILE" ]] && break; sleep 0.05; done
    [[ -s "$PID_FILE" ]] || fail "the server did not start (no pid written by pid $LAUNCHER)"
    PID="$(cat "$PID_FILE")"
    echo "llm-local: started $MODEL as pid $PID (log $LOG_FILE)"
fi

deadline=$((SECONDS + TIMEOUT))
until grep -q "LLM-LOCAL READY" "$LOG_FILE" 2>/dev/null && healthy; do
    alive "$PID" || fail "server (pid $PID) exited during startup"
    if ((SECONDS >= deadline)); then
        [[ -n "$STARTED_HERE" ]] || fail "not ready after ${TIMEOUT}s (pid $PID, started by an earlier run, left running; stop it with $DIR/stop.sh)"
        fail "not answering on $URL after ${TIMEOUT}s (LLM_LOCAL_START_TIMEOUT); the server was stopped"
    fi
    sleep 0.2
done
STARTED_HERE=""  # ready: from here on it is meant to outlive this script
echo "llm-local: ready (pid $PID)"
echo "$URL"
