"""webcrawler: a single-machine search engine for the Web.

NumPy's OpenBLAS starts a pool of threads (one a core but one) when NumPy is first imported,
unless told otherwise before. Nothing here multiplies matrices large enough to share out, and
the pool costs each process that imports NumPy (the engine, the index writer) its start-up
CPU, and makes it a threaded process, whose every `malloc` takes glibc's lock
(docs/measurements.md, the engine's eighth turn). So one thread, unless the user chose.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
