"""What is remembered per segment survives the commits beside it, and stays within its budget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format import segcache
from webcrawler.index.format.opening import open_index


def _readers(path: Path, opened: list) -> list:
    searcher = open_index(path, create=False).searcher()
    opened.append(searcher)
    return [sub.reader() for sub, _offset in searcher.leaf_searchers()]


def test_a_segment_is_remembered_across_commits_and_within_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ix"
    with open_writer(path) as writer:
        writer.add([IndexedDocument(n, f"http://h/{n}", "t", f"word{n} common", "h") for n in range(1, 40)])
        writer.commit()
    segcache.clear()
    made: list[int] = []
    opened: list = []
    first = _readers(path, opened)[0]
    value = segcache.remembered(first, ("k",), lambda: made.append(1) or np.arange(10))
    with open_writer(path) as writer:  # a commit beside it: new readers, the same segment
        writer.add([IndexedDocument(100, "http://h/100", "t", "other", "h")])
        writer.commit()
    readers = _readers(path, opened)
    assert len(readers) == 2
    again = [segcache.remembered(r, ("k",), lambda: made.append(1) or np.arange(10)) for r in readers]
    assert made == [1, 1]  # once for the old segment, once for the new one
    assert any(a is value for a in again)
    assert segcache.peek(readers[0], ("missing",)) is None

    monkeypatch.setattr(segcache, "BUDGET", 3000)
    for n in range(5):  # 1,000 bytes and more each: the oldest go
        segcache.keep(first, ("big", n), np.zeros(125))
    assert segcache.peek(first, ("big", 4)) is not None
    assert segcache.peek(first, ("big", 0)) is None
    for searcher in opened:
        searcher.close()
