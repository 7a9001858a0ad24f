"""What an agent costs in memory, its browser included: the measure its budget is held to.

The agent's own resident set, plus, for each of its descendants (Chromium's processes under
`--render`), the resident memory that is neither file-backed nor shared (statm's resident
minus shared). What a page's script can grow (the JavaScript heap, the DOM, array buffers,
decoded pictures) is anonymous memory and counted whole; Chromium's code, mapped by every
one of its processes, is not counted once per process (the summed resident sets of its
seven processes are about four times its private memory: 567 MB against 121 MB idle).
One small /proc read per process, about 0.02 ms: cheap enough to take every tenth of a
second during a render (render.py) and every second for each agent (engine/loop/pool.py).
"""

from __future__ import annotations

from collections.abc import Iterable

import psutil


def footprint(process: psutil.Process, descendants: Iterable[psutil.Process] = ()) -> int:
    """Bytes held by `process` (resident) and `descendants` (private resident); 0 for any
    process gone."""
    total = _resident(process, private=False)
    return total + sum(_resident(child, private=True) for child in descendants)


def with_descendants(process: psutil.Process | None) -> int:
    """`footprint` of `process` and every process below it (0 when it is gone)."""
    if process is None:
        return 0
    try:
        children = process.children(recursive=True)
    except psutil.Error:
        return 0
    return footprint(process, children)


def _resident(process: psutil.Process, private: bool) -> int:
    try:
        memory = process.memory_info()
    except psutil.Error:
        return 0
    return int(memory.rss - memory.shared) if private else int(memory.rss)
