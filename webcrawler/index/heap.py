"""Freed work arrays kept in the process's heap, so that the next query reuses them.

A word query over a large segment makes arrays of a few hundred kilobytes to a few
megabytes (a score and a mark per document, each list's scores) and frees them when it
ends. glibc's malloc hands every block above its mmap threshold (128 KiB at first) to the
kernel on free and maps fresh pages for the next one, and each fresh page faults when the
query first writes it: in docs/index.md's measure, two thirds of the scoring time of a
segment of 146,000 documents. `keep_freed_memory` raises the threshold to `KEPT`, so such
arrays come from the heap, and lets the heap keep up to `TRIM` of freed memory before it
gives any back: more resident memory, bounded, for no page faults. Elsewhere than glibc
(musl, macOS) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

log = logging.getLogger(__name__)

KEPT = 32 * 1024 * 1024  # blocks up to this size come from the heap (glibc's largest allowed)
TRIM = 32 * 1024 * 1024  # freed memory a heap keeps before it returns any (each thread's arena)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt parameters, from glibc's malloc.h

_done = False


def keep_freed_memory() -> bool:
    """Set glibc's thresholds once per process; False where there is no glibc."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: musl has no mallopt
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _done = bool(mallopt(_M_MMAP_THRESHOLD, KEPT)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM))
    if not _done:
        log.debug("malloc kept its thresholds: freed arrays go back to the kernel")
    return _done
