"""index.check(): a sound index passes (deletions, several segments); damage is named."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from webcrawler.index import IndexDamaged, IndexedDocument, check, open_searcher, open_writer
from webcrawler.index.writing.writer import bounded_merge


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    index_dir = tmp_path / "ix"
    with open_writer(index_dir) as writer:
        for start in (1, 21):
            writer.add([IndexedDocument(i, f"http://h/{i}", "t", f"text {i}", "h")
                        for i in range(start, start + 20)])
            writer.commit()
        writer.delete([3, 25])  # deletions live beside the segments' compound files
    return index_dir


def test_a_sound_index_passes(index_dir: Path, tmp_path: Path) -> None:
    check(index_dir)
    check(tmp_path / "absent")  # nothing yet: a new index, not damage


def test_a_segment_short_of_its_last_bytes_is_named(index_dir: Path) -> None:
    segment = max(index_dir.glob("*.seg"), key=lambda p: p.stat().st_size)
    segment.write_bytes(segment.read_bytes()[:-1])
    with pytest.raises(IndexDamaged, match=segment.name):
        check(index_dir)


def test_a_missing_segment_is_named(index_dir: Path) -> None:
    segment = next(index_dir.glob("*.seg"))
    segment.unlink()
    with pytest.raises(IndexDamaged, match=f"{segment.name} is missing"):
        check(index_dir)


def test_checking_beside_a_committing_writer_finds_no_damage(tmp_path: Path) -> None:
    """A commit that merges deletes the segments of the TOC being checked: not damage."""
    index_dir = tmp_path / "busy"
    open_writer(index_dir).close()
    stop = threading.Event()

    def write() -> None:
        with open_writer(index_dir, merge=bounded_merge(fan_in=2)) as writer:
            for start in range(1, 1 + 40 * 5, 5):
                writer.add([IndexedDocument(i, f"http://h/{i}", "t", f"text {i}", "h")
                            for i in range(start, start + 5)])
                writer.commit()  # every other commit merges segments away
                time.sleep(0.01)
        stop.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        checks = 0
        while not stop.is_set() and checks < 2000:
            check(index_dir)
            checks += 1
    finally:
        thread.join(timeout=120)
    check(index_dir)


def test_segments_without_a_table_of_contents_are_damage(index_dir: Path) -> None:
    for toc in index_dir.glob("_MAIN_*.toc"):
        toc.unlink()
    with pytest.raises(IndexDamaged, match="no table of contents"):
        check(index_dir)
    with pytest.raises(IndexDamaged, match="no table of contents"):
        open_searcher(index_dir)
