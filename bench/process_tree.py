"""The CPU seconds of a whole process tree, from its start to its exit, counted by the kernel.

A crawl leaves orphans (the forkserver outlives the engine, the agents are its children), so
sampling the tree misses each process's last moments and every process that ends between two
samples. This process becomes the "subreaper" of what it starts: an orphan is re-parented to it,
not to init; once every descendant is reaped, `RUSAGE_CHILDREN` holds their CPU, each process's
own and its reaped children's. `reap(group)` waits for one process group only (a contender started
in a session of its own), so a server this process also runs (a generated web) is left alone.
"""

from __future__ import annotations

import ctypes
import os
import resource
import time

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphans of the crawl (the forkserver outlives the engine) become ours to reap."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def reap_all(limit: float = 120.0, group: int | None = None) -> None:
    """Wait for every descendant left, or every one in process group `group` (bounded: `limit`
    seconds)."""
    target = -1 if group is None else -group
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(target, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)
    raise RuntimeError("the crawl's processes did not all end")


def children_cpu() -> float:
    """User and system CPU seconds of every reaped descendant so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
