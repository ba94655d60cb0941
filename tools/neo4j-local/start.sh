#!/usr/bin/env bash
# Start the embedded Neo4j 5.26 Community server (Bolt on 127.0.0.1, auth disabled) in the
# background and wait until it answers. Idempotent: exits 0 if our server is already up.
#
# Env: NEO4J_LOCAL_PORT (7687), NEO4J_LOCAL_DATA_DIR (<this dir>/data), NEO4J_LOCAL_HEAP (512m),
#      NEO4J_LOCAL_PAGECACHE (256m), NEO4J_LOCAL_START_TIMEOUT (120 s),
#      NEO4J_LOCAL_JAVA (java from JAVA_HOME or PATH; must be 17 or 21), NEO4J_LOCAL_JAVA_OPTS (extra),
#      NEO4J_LOCAL_CONF (a neo4j.conf-style file of settings, read by the server),
#      NEO4J_LOCAL_PID_FILE / NEO4J_LOCAL_LOG_FILE (<this dir>/neo4j.pid, .log: set both to run a second server).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT="${NEO4J_LOCAL_PORT:-7687}"
DATA_DIR="${NEO4J_LOCAL_DATA_DIR:-$DIR/data}"
HEAP="${NEO4J_LOCAL_HEAP:-512m}"
PAGECACHE="${NEO4J_LOCAL_PAGECACHE:-256m}"
TIMEOUT="${NEO4J_LOCAL_START_TIMEOUT:-120}"
PID_FILE="${NEO4J_LOCAL_PID_FILE:-$DIR/neo4j.pid}"
LOG_FILE="${NEO4J_LOCAL_LOG_FILE:-$DIR/neo4j.log}"
URI="bolt://127.0.0.1:$PORT"
MAIN_CLASS="memspace.neo4jlocal.Main"
if [[ -n "${NEO4J_LOCAL_JAVA:-}" ]]; then JAVA="$NEO4J_LOCAL_JAVA"
elif [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"
else JAVA="java"; fi

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }
# A pid counts as ours only if it is alive and runs our main class (guards against pid reuse).
our_pid() { [[ -n "${1:-}" ]] && grep -qaF -- "$MAIN_CLASS" "/proc/$1/cmdline" 2>/dev/null; }
# Alive at all, and not a zombie waiting for us to reap it. While a server we just launched
# goes through nohup -> setsid -> bash -> java, its cmdline changes under us (and is empty for
# an instant at each exec), so a starting server is judged by this, not by its main class.
alive() {
    [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null || return 1
    local state
    state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
    [[ -n "$state" && "$state" != Z ]]
}
STARTED_HERE=""
# A start that fails must not leave a server behind (it would hold the port for the next run).
stop_started() {
    [[ -n "$STARTED_HERE" ]] || return 0
    STARTED_HERE=""
    if alive "$PID"; then
        kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 100); do alive "$PID" || break; sleep 0.2; done
        alive "$PID" && kill -KILL "$PID" 2>/dev/null || true
        echo "neo4j-local: stopped the server this start launched (pid $PID)" >&2
    fi
    rm -f "$PID_FILE"
}
trap stop_started EXIT
trap 'exit 130' INT TERM
die() { echo "neo4j-local: $*" >&2; exit 1; }
fail() {
    echo "neo4j-local: $*" >&2
    if [[ -f "$LOG_FILE" ]]; then echo "--- last lines of $LOG_FILE:" >&2; tail -n 40 "$LOG_FILE" >&2; fi
    stop_started
    exit 1
}

# Serialise concurrent start.sh runs (e.g. parallel test workers): one builds and starts, the
# others wait here and then find it running. fd 9 is closed for the server (9>&- below).
exec 9>"$DIR/.start.lock"
flock -w 600 9 || die "could not take $DIR/.start.lock"

# --- already running? -------------------------------------------------------------------------
PID=""
if [[ -f "$PID_FILE" ]]; then
    PID="$(cat "$PID_FILE")"
    if our_pid "$PID"; then
        RUNNING_PORT="$(tr '\0' '\n' <"/proc/$PID/cmdline" | grep -A1 -x -- --port | tail -n 1)"
        if [[ "$RUNNING_PORT" != "$PORT" ]]; then
            die "already running (pid $PID) on port $RUNNING_PORT, not $PORT; run $DIR/stop.sh first"
        fi
        if port_open && grep -q "NEO4J-LOCAL READY" "$LOG_FILE" 2>/dev/null; then
            echo "neo4j-local: already running (pid $PID)"
            echo "$URI"
            exit 0
        fi
        echo "neo4j-local: pid $PID is still starting; waiting"
    else
        rm -f "$PID_FILE"   # stale
        PID=""
    fi
fi

if [[ -z "$PID" ]]; then
    if port_open; then
        die "port $PORT on 127.0.0.1 is already in use by another process (set NEO4J_LOCAL_PORT)"
    fi

    # --- build only when output is missing or older than pom.xml / sources ----------------------
    STAMP="$DIR/target/.build-stamp"
    if [[ ! -f "$STAMP" || ! -d "$DIR/target/lib" ]] \
        || [[ -n "$(find "$DIR/pom.xml" "$DIR/src" -newer "$STAMP" -print -quit)" ]]; then
        command -v mvn >/dev/null || die "mvn not found (needs Maven and Java 17)"
        echo "neo4j-local: building (mvn package; the first build downloads ~160 MB from Maven Central)"
        rm -rf "$DIR/target/lib"   # drop jars of an older Neo4j version
        if ! (cd "$DIR" && mvn -q -B package) >"$DIR/build.log" 2>&1; then
            tail -n 40 "$DIR/build.log" >&2
            die "mvn package failed (full output in $DIR/build.log)"
        fi
        touch "$STAMP"
    fi
    command -v "$JAVA" >/dev/null || die "java not found (needs Java 17 or 21)"
    JV="$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
    [[ "$JV" == 17 || "$JV" == 21 ]] || echo "neo4j-local: warning: Java $JV; Neo4j 5.26 supports 17 and 21" >&2

    # JVM flags. The --add-opens are the ones Neo4j's own launcher passes; without them Neo4j
    # still starts but falls back to slower paths and logs warnings:
    #   java.nio    - page cache reflects into java.nio.DirectByteBuffer (else "fallback mode")
    #   java.io + sun.nio.ch - FileChannelImpl.fd -> FileDescriptor.fd, the raw descriptor for
    #                 native preallocate/fadvise of transaction logs; without BOTH every log
    #                 file logs "Incorrect file descriptor" warnings (checked one at a time)
    # -Xms/-Xmx: heap is separate from the page cache (off-heap, --pagecache); 512m heap is
    # plenty for test-sized data, raise NEO4J_LOCAL_HEAP for bulk loads / big vector indexes.
    JAVA_OPTS=(
        "-Xms$HEAP" "-Xmx$HEAP"
        -XX:+UseG1GC
        -XX:-OmitStackTraceInFastThrow
        -XX:+ExitOnOutOfMemoryError
        -Dfile.encoding=UTF-8
        -Djdk.nio.maxCachedBufferSize=1024
        -Dio.netty.tryReflectionSetAccessible=true
        -Dlog4j2.disable.jmx=true
        --add-opens=java.base/java.nio=ALL-UNNAMED
        --add-opens=java.base/java.io=ALL-UNNAMED
        --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    )
    # shellcheck disable=SC2206
    EXTRA_OPTS=(${NEO4J_LOCAL_JAVA_OPTS:-})

    mkdir -p "$DATA_DIR"
    rm -f "$PID_FILE"
    # setsid: own session, so a Ctrl-C in the shell that started it does not stop the server.
    # setsid forks when it leads a process group (a shell with job control), so $! is not
    # always the server: the last shell of the chain writes its own pid, which java inherits
    # through exec.
    # shellcheck disable=SC2016
    nohup setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' neo4j-local "$PID_FILE" \
        "$JAVA" "${JAVA_OPTS[@]}" "${EXTRA_OPTS[@]}" \
        -cp "$DIR/target/classes:$DIR/target/lib/*" "$MAIN_CLASS" \
        --port "$PORT" --data-dir "$DATA_DIR" --pagecache "$PAGECACHE" \
        >"$LOG_FILE" 2>&1 </dev/null 9>&- &
    LAUNCHER=$!
    for _ in $(seq 200); do [[ -s "$PID_FILE" ]] && break; sleep 0.05; done
    PID="$(cat "$PID_FILE" 2>/dev/null || true)"
    if [[ -z "$PID" ]]; then
        PID="$LAUNCHER"; STARTED_HERE=1
        fail "the server did not start (no pid written by pid $LAUNCHER)"
    fi
    STARTED_HERE=1
    echo "neo4j-local: started pid $PID (log $LOG_FILE, data $DATA_DIR)"
fi

# --- wait for "ready" (default database available) and the Bolt port answering ---------------
deadline=$((SECONDS + TIMEOUT))
until grep -q "NEO4J-LOCAL READY" "$LOG_FILE" 2>/dev/null && port_open; do
    if ! alive "$PID"; then
        rm -f "$PID_FILE"
        STARTED_HERE=""
        fail "server (pid $PID) exited during startup"
    fi
    if ((SECONDS >= deadline)); then
        [[ -n "$STARTED_HERE" ]] || fail "not ready after ${TIMEOUT}s (pid $PID, started by an earlier run, left running; stop it with $DIR/stop.sh)"
        fail "not ready after ${TIMEOUT}s (NEO4J_LOCAL_START_TIMEOUT); the server was stopped"
    fi
    sleep 0.5
done
STARTED_HERE=""  # ready: from here on it is meant to outlive this script
grep "NEO4J-LOCAL READY" "$LOG_FILE" | tail -n 1
echo "$URI"
