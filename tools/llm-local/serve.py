"""Serve one GGUF model OpenAI-compatibly on 127.0.0.1 until SIGTERM/SIGINT (run by start.sh).

    <runtime python> serve.py --model FILE --port N [--alias NAME] [--threads N] [--ctx N]
                              [--tools 0|1]

xllamacpp runs llama.cpp's own HTTP server (/health, /v1/models, /v1/chat/completions, with
`response_format` JSON schemas turned into a grammar) on its threads; this process only
configures it and waits.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading

# OpenMP threads spin while waiting for work by default: on a busy 2-core machine that made each
# call 10-20x slower. Read when the library loads, so it is set before the import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import xllamacpp  # after the environment it reads when it loads


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", default="local")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    # The extract_facts prompt is ~1,650 tokens; a note of 8,000 characters adds ~2,500 and the
    # five candidates ~300: 8,192 leaves room for the answer and one retry's echo.
    parser.add_argument("--ctx", type=int, default=8192)
    # 1: prompts rendered by the model's own (Jinja) chat template, the path on which llama.cpp
    # accepts OpenAI `tools` and answers `tool_calls`.
    parser.add_argument("--tools", type=int, default=0)
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]
    # llama.cpp allows every origin by default, which would let any web page the developer opens
    # use the model; memspace calls it from Python, where CORS does not apply.
    params.cors_origins = "http://127.0.0.1"
    params.port = args.port
    params.n_ctx = args.ctx
    params.use_jinja = bool(args.tools)
    # One slot: every request reuses the cached system prompt (a call drops from ~100 s to ~10 s
    # for the 1.5B on a loaded 2-core machine), and requests queue instead of sharing the cores.
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server = xllamacpp.Server(params)
    print(f"LLM-LOCAL READY {server.listening_address}/v1", flush=True)
    stop.wait()
    # Skip the interpreter's teardown: the native server's threads are ours to abandon, and a
    # slow destructor would only delay stop.sh.
    os._exit(0)


if __name__ == "__main__":
    main()
