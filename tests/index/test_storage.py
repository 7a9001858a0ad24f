"""Segments are read from a memory map: the same bytes as the file, released on close."""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path

import psutil
import pytest

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.format.storage import IndexStorage, MappedFile


@pytest.fixture
def data_file(tmp_path: Path) -> tuple[IndexStorage, bytes]:
    body = b"header\nsecond line\n" + pickle.dumps({"a": [1, 2, 3]}) + bytes(range(256)) * 4
    (tmp_path / "x.seg").write_bytes(body)
    return IndexStorage(str(tmp_path)), body


def test_reads_match_the_file(data_file: tuple[IndexStorage, bytes]) -> None:
    storage, body = data_file
    mapped = storage.open_file("x.seg")
    assert isinstance(mapped, MappedFile)
    reference = io.BytesIO(body)
    assert mapped.readline() == reference.readline() == b"header\n"
    assert mapped.read(3) == reference.read(3)
    assert mapped.tell() == reference.tell()
    mapped.seek(-5, os.SEEK_END)
    assert mapped.read() == body[-5:]
    start = body.index(b"\x80")
    mapped.seek(start)
    assert mapped.read_pickle() == {"a": [1, 2, 3]}
    assert mapped.get(7, 6) == body[7:13]
    part = mapped.subset(7, 12)
    assert part.read() == body[7:19] and part.get(0, 100) == body[7:19]
    assert part.readline() == b""
    part.seek(0)
    assert part.readline() == b"second line\n"
    assert mapped.get_int(0) == int.from_bytes(body[:4], "big", signed=True)
    mapped.close()


def test_closing_the_searcher_unmaps_its_segments(tmp_path: Path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        for start in range(0, 60, 20):
            writer.add([IndexedDocument(i, f"http://h/{i}", "t", f"word{i} common", "h")
                        for i in range(start + 1, start + 21)])
            writer.commit()
    def segments_held() -> list[str]:  # a map holds its file's descriptor (this index's only:
        mine = str(tmp_path)             # a worker process also ran other tests' indexes)
        return [f.path for f in psutil.Process().open_files()
                if f.path.endswith(".seg") and f.path.startswith(mine)]

    with open_searcher(tmp_path / "ix") as searcher:
        assert searcher.search("common").total == 60
        assert segments_held()
    assert not segments_held()


def test_a_view_reads_the_map_without_a_copy_and_outlives_its_close(
        data_file: tuple[IndexStorage, bytes]) -> None:
    """Posting arrays are numpy views of the map (vectors.py): closing the segment while one
    lives must neither fail nor pull the bytes from under it."""
    import numpy as np

    from webcrawler.index.format import fastpaths

    storage, body = data_file
    mapped = storage.open_file("x.seg")
    part = mapped.subset(7, 12)
    view = part.view(0, 100)  # clipped to the subset, as get() is
    assert bytes(view) == part.get(0, 100) == body[7:19]
    numbers = np.frombuffer(mapped.view(len(body) - 1024, 1024), np.uint8)
    fastpaths.reset()
    mapped.close()
    assert fastpaths.taken["storage.close_deferred"] == 1
    assert numbers.tolist() == list(range(256)) * 4 and bytes(view) == body[7:19]


def _held(directory: Path) -> list[str]:
    """The .seg files under `directory` this process holds open (a map holds a descriptor)."""
    mine = str(directory)
    return [f.path for f in psutil.Process().open_files()
            if f.path.endswith(".seg") and f.path.startswith(mine)]


def test_a_segment_open_twice_is_mapped_once_and_unmapped_with_its_last_reader(
        data_file: tuple[IndexStorage, bytes], tmp_path: Path) -> None:
    from webcrawler.index.format import fastpaths

    storage, body = data_file
    fastpaths.reset()
    first, second = storage.open_file("x.seg"), storage.open_file("x.seg")
    assert fastpaths.taken["storage.shared"] == 1
    assert first.get(0, 6) == second.get(0, 6) == body[:6]
    first.close()
    first.close()  # twice: still one reader let go
    assert second.get(7, 6) == body[7:13] and _held(tmp_path)
    second.close()
    assert not _held(tmp_path)


def test_a_file_written_again_under_its_name_is_mapped_anew(
        data_file: tuple[IndexStorage, bytes], tmp_path: Path) -> None:
    storage, body = data_file
    old = storage.open_file("x.seg")
    (tmp_path / "new").write_bytes(b"other bytes")
    os.replace(tmp_path / "new", tmp_path / "x.seg")
    new = storage.open_file("x.seg")
    assert new.get(0, 100) == b"other bytes" and old.get(0, 6) == body[:6]
    old.close()
    new.close()
    assert not _held(tmp_path)


def test_a_new_commit_maps_only_its_new_segments(tmp_path: Path) -> None:
    from webcrawler.index.format import fastpaths

    def pages(start: int) -> list[IndexedDocument]:
        return [IndexedDocument(i, f"http://h/{i}", "t", f"word{i} common", "h")
                for i in range(start, start + 20)]

    with open_writer(tmp_path / "ix") as writer:
        for start in (1, 21):
            writer.add(pages(start))
            writer.commit()
    with open_searcher(tmp_path / "ix") as searcher:
        assert searcher.search("common").total == 40
        with open_writer(tmp_path / "ix") as writer:
            writer.add(pages(41))
        fastpaths.reset()
        searcher.refresh()
        assert searcher.search("common").total == 60
        assert fastpaths.taken["storage.shared"] == 2  # the two segments it had open
        assert len(_held(tmp_path)) == 3
    assert not _held(tmp_path)
