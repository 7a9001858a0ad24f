"""A bounded memo of what queries derive from a segment's files, kept across commits.

Whoosh opens a new reader for every segment of every commit, so what is cached per
reader (`weakref` dictionaries elsewhere) is read again after each commit. A
segment's files never change once written (deletions live in the table of contents),
so what is derived from them alone - a posting list's block table, its per-window
score bounds, a segment's document lengths, link priors, facet columns and combined facet
codes - is remembered here by the segment's name instead, and a large segment's values
survive the small commits beside it.
Bounded by bytes (least recently used first out): the keys are words strangers type.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

BUDGET = 64 * 1024 * 1024  # bytes of remembered values, estimated

_memo: OrderedDict[tuple, tuple[Any, int]] = OrderedDict()
_size = 0
_lock = threading.Lock()


def segment_key(reader: Any) -> tuple | None:
    """What names a segment's files (None for readers that are not one segment's)."""
    segment = reader.segment() if hasattr(reader, "segment") else None
    if segment is None:
        return None
    return str(segment.segment_id()), segment.doc_count_all()


def remembered(reader: Any, key: tuple, make: Callable[[], Any]) -> Any:
    """`make()` for `key` of `reader`'s segment, made once while it stays remembered."""
    segment = segment_key(reader)
    if segment is None:
        return make()
    full = (segment, *key)
    with _lock:
        found = _memo.get(full)
        if found is not None:
            _memo.move_to_end(full)
            return found[0]
    value = make()  # outside the lock: two threads may make it at once, both right
    _store(full, value, _bytes(value))
    return value


def peek(reader: Any, key: tuple) -> Any:
    """What is remembered for `key` of `reader`'s segment, or None."""
    segment = segment_key(reader)
    with _lock:
        found = _memo.get((segment, *key)) if segment is not None else None
    return None if found is None else found[0]


def keep(reader: Any, key: tuple, value: Any) -> None:
    """Remember `value` for `key` of `reader`'s segment (not for other readers)."""
    segment = segment_key(reader)
    if segment is not None:
        _store((segment, *key), value, _bytes(value))


def _store(key: tuple, value: Any, size: int) -> None:
    global _size
    with _lock:
        old = _memo.pop(key, None)
        if old is not None:
            _size -= old[1]
        _memo[key] = (value, size)
        _size += size
        while _size > BUDGET and len(_memo) > 1:
            _key, (_value, dropped) = _memo.popitem(last=False)
            _size -= dropped


def _bytes(value: Any) -> int:
    """A rough size: arrays by their bytes, containers by their items, 64 for the rest."""
    if isinstance(value, np.ndarray):
        return value.nbytes + 112
    if isinstance(value, (tuple, list)):
        return 56 + sum(_bytes(item) for item in value)
    return 64


def clear() -> None:
    """Forget everything (tests)."""
    global _size
    with _lock:
        _memo.clear()
        _size = 0
