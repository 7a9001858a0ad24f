"""The index knows its own format: written at creation, checked by readers and the writer,
with `webcrawler index --reindex` as the way out of a mismatch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webcrawler.index import IndexDamaged, open_searcher, open_writer
from webcrawler.index.format.version import FORMAT_FILE, FORMAT_VERSION, WHOOSH_VERSION


def test_a_new_index_names_its_format_and_whoosh(tiny_index: Path) -> None:
    written = json.loads((tiny_index / FORMAT_FILE).read_text())
    assert written["format"] == FORMAT_VERSION == 2
    assert written["whoosh"] == WHOOSH_VERSION == "2.7.5"


def test_whoosh_is_pinned_to_the_version_the_format_names() -> None:
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert f'"whoosh-reloaded=={WHOOSH_VERSION}"' in pyproject


@pytest.mark.parametrize("record", [{"format": 1, "whoosh": "2.7.5"}, {"format": 2, "whoosh": "2.8.0"},
                                    "not json"])
def test_another_format_is_refused_by_readers_and_the_writer(tiny_index: Path, record) -> None:
    path = tiny_index / FORMAT_FILE
    if isinstance(record, dict):
        record = json.dumps({**json.loads(path.read_text()), **record})
    path.write_text(record)
    for opening in (open_searcher, open_writer):
        with pytest.raises(IndexDamaged, match="webcrawler index --reindex") as caught:
            opening(tiny_index)
        assert FORMAT_FILE in str(caught.value)


def test_an_index_from_before_the_format_file_is_format_1_and_refused(tiny_index: Path) -> None:
    """Format 2 added the facet fields: a format 1 index (no file) must be rebuilt."""
    (tiny_index / FORMAT_FILE).unlink()
    for opening in (open_searcher, open_writer):
        with pytest.raises(IndexDamaged, match="format 1.*webcrawler index --reindex"):
            opening(tiny_index)
    assert not (tiny_index / FORMAT_FILE).exists()  # refusing writes nothing


def test_an_index_from_before_the_file_written_by_another_whoosh_is_refused(tiny_index: Path) -> None:
    (tiny_index / FORMAT_FILE).unlink()
    (toc,) = tiny_index.glob("_MAIN_*.toc")
    data = bytearray(toc.read_bytes())
    # the table of contents: three size varints, the -12345 check and the TOC version (ints),
    # then the Whoosh release that wrote it, as three varints: 2, 7, 5
    assert data[11:14] == bytes([2, 7, 5])
    data[12] = 8
    toc.write_bytes(bytes(data))
    with pytest.raises(IndexDamaged, match="whoosh 2.8.5"):
        open_searcher(tiny_index)


def test_garbage_in_the_table_of_contents_is_damage(tiny_index: Path) -> None:
    (toc,) = tiny_index.glob("_MAIN_*.toc")
    toc.write_bytes(b"\x04\x08\x04" + b"garbage" * 20)
    with pytest.raises(IndexDamaged, match="table of contents"):
        open_searcher(tiny_index)


def test_another_installed_whoosh_is_refused_before_any_index_is_touched(
        tiny_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from webcrawler.index.format import version as index_format

    monkeypatch.setattr(index_format, "installed_whoosh", lambda: "2.8.0")
    for index_dir in (tiny_index, tmp_path / "new"):
        with pytest.raises(IndexDamaged, match="pip install whoosh-reloaded==2.7.5"):
            open_writer(index_dir)
    assert not (tmp_path / "new").exists()
