"""index.check(): a sound index passes (deletions, several segments); damage is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from webcrawler.index import IndexDamaged, IndexedDocument, check, open_writer


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
