"""memspace: a shared, graph-shaped memory for teams of AI agents and the people who work with them."""

import os as _os

# numpy's OpenBLAS keeps its worker threads spinning for ~0.1 s after every call (2^28 cycles)
# before they sleep. A server calls BLAS briefly per request (the query's embedding, the vector
# product), so its spare thread spun most of the time, on cores the HTTP server and Neo4j need:
# measured on 2 cores, 40 requests (embedding + 100,000-row product, 20 ms apart) used 45 ms
# of CPU per 33 ms of wall time; with 2^4 cycles 24 ms, for the same latency (12.8 vs 13.5 ms).
# OpenBLAS reads this when numpy is first imported, which this package's import precedes.
# Set by the operator, theirs wins.
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

__version__ = "0.1.0"
