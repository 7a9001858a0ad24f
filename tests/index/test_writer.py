"""Replacing, deleting, reconciling, and reading while another process commits."""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from tests.support.tmpfs import small_tmpfs
from webcrawler.index import IndexedDocument, open_searcher, open_writer


def doc(i: int, text: str = "common words here") -> IndexedDocument:
    return IndexedDocument(i, f"http://h/{i}", f"page {i}", f"{text} unique{i}", "h")


def test_add_replaces_by_doc_id_and_delete_removes(tmp_path: Path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        writer.add([doc(1), doc(2), doc(3)])
        writer.commit()
        writer.add([doc(2, "replaced text")])
        writer.delete([3, 99])
        assert writer.doc_ids() == {1, 2, 3}  # only what is committed
        writer.commit()
        assert writer.doc_ids() == {1, 2}
    with open_searcher(tmp_path / "ix") as searcher:
        assert searcher.doc_count() == 2
        assert [h.doc_id for h in searcher.search("replaced").hits] == [2]
        assert searcher.search("unique3").hits == []
        assert searcher.size_bytes() > 0


def test_searcher_refresh_sees_new_commits(tmp_path: Path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        writer.add([doc(1)])
        writer.commit()
        with open_searcher(tmp_path / "ix") as searcher:
            assert searcher.search("common").total == 1
            writer.add([doc(2)])
            writer.commit()
            searcher.refresh()
            assert searcher.search("common").total == 2


def test_search_opens_new_commits_in_the_background(tmp_path: Path) -> None:
    """No refresh() call: search() notices the commit and a thread opens it; the queries
    meanwhile answer from the previous commit, and totals never go backwards."""
    with open_writer(tmp_path / "ix") as writer:
        writer.add([doc(1)])
        writer.commit()
        with open_searcher(tmp_path / "ix") as searcher:
            assert searcher.search("common").total == 1
            writer.add([doc(2), doc(3)])
            writer.commit()
            seen = []
            deadline = time.monotonic() + 10
            while (not seen or seen[-1] < 3) and time.monotonic() < deadline:
                seen.append(searcher.search("common").total)
                time.sleep(0.02)
            assert seen[-1] == 3 == searcher.doc_count()
            assert set(seen) <= {1, 3} and seen == sorted(seen)
            writer.add([doc(4)])
            writer.commit()
            time.sleep(0.6)
            searcher.search("common")  # starts an open; close() must wait for it, not leak it
        assert searcher._opening is None


def test_a_searcher_on_an_empty_index_sees_the_first_commit(tmp_path: Path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        with open_searcher(tmp_path / "ix") as searcher:
            assert searcher.search("common").total == 0
            writer.add([doc(1)])
            writer.commit()
            deadline = time.monotonic() + 10
            while searcher.search("common").total == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert searcher.search("common").total == 1


def _write(index_dir: Path, start: int, batches: int) -> None:
    with open_writer(index_dir) as writer:
        for b in range(batches):
            writer.add([doc(start + b * 50 + i) for i in range(50)])
            writer.commit()


def test_reading_while_another_process_commits(tmp_path: Path) -> None:
    index_dir = tmp_path / "ix"
    _write(index_dir, 0, 1)
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=_write, args=(index_dir, 1000, 12))
    with open_searcher(index_dir) as searcher:
        proc.start()
        seen = []
        while proc.is_alive():
            searcher.refresh()
            seen.append(searcher.search("common", per_page=5).total)
            time.sleep(0.01)
        proc.join()
        searcher.refresh()
        assert proc.exitcode == 0
        assert searcher.search("common").total == 650 == searcher.doc_count()
    assert seen == sorted(seen) and seen[0] >= 50


@pytest.mark.parametrize("deleted", [(), range(0, 300, 11)], ids=["copied", "renumbered"])
def test_fast_merge_writes_what_whoosh_merge_writes(tmp_path: Path, deleted: range) -> None:
    """Lists copied block by block (no deletions) or renumbered (deletions), after documents
    added in the merging commit: the same postings and term statistics as Whoosh's merge,
    and the posting arrays agree with the blocks."""
    import shutil

    from whoosh.codec import whoosh3
    from whoosh.reading import SegmentReader

    from webcrawler.index.format import vectors
    from webcrawler.index.format.blocks import extent, posting_blocks
    from webcrawler.index.format.merging import merge_all
    from webcrawler.index.format.opening import open_index
    from webcrawler.index.writing.writer import IndexWriter

    def whoosh_merge(writer, segments):  # type: ignore[no-untyped-def]
        for segment in segments:
            reader = SegmentReader(writer.storage, writer.schema, segment)
            writer.add_reader(reader)
            reader.close()
        return []

    def term_stats(reader):  # type: ignore[no-untyped-def]
        out = {}
        for key, raw in reader._terms._tindex.items():
            info = whoosh3.W3TermInfo.from_bytes(raw)
            out[key] = (round(info.weight(), 3), info.doc_frequency(), info.min_length(),
                        info.max_length(), info.max_weight(), info.min_id(), info.max_id())
        return out

    source = tmp_path / "source"
    with IndexWriter(open_index(source, create=True), merge=lambda w, segments: segments) as w:
        for start in range(0, 300, 100):
            w.add([doc(i, f"word{i % 7} shared text {i % 3}") for i in range(start, start + 100)])
            w.commit()
        w.delete(deleted)
    seen = []
    for name, policy in (("whoosh", whoosh_merge), ("ours", merge_all)):
        shutil.copytree(source, tmp_path / name)
        ix = open_index(tmp_path / name, create=False)
        writer = IndexWriter(ix)
        writer.add([doc(i, f"word{i % 5} fresh text") for i in range(1000, 1030)])
        current = writer._current()
        writer._writer = None
        current.commit(mergetype=policy)
        with ix.reader() as reader:
            assert len(ix._segments()) == 1
            seen.append(
                (
                    list(reader.iter_postings()),
                    [reader.stored_fields(n) for n in reader.all_doc_ids()],
                    reader.field_length("content"),
                    term_stats(reader),
                )
            )
            if name == "ours":
                terms = reader._terms
                for key, raw in terms._tindex.items():
                    info = whoosh3.W3TermInfo.from_bytes(raw)
                    ids = [d for b in posting_blocks(terms._postfile.get(*extent(info))) for d in b[0]]
                    assert vectors.has_arrays(raw) == (key[:2] == b"\x00\x00" and len(ids) >= 16)
                    if vectors.has_arrays(raw):
                        assert vectors.postings_from(reader, raw)[0].tolist() == ids
        ix.close()
    assert seen[0][0] == seen[1][0] and len(seen[0][0]) > 1000
    assert seen[0][1:3] == seen[1][1:3]
    assert seen[0][3] == seen[1][3]


def test_a_commit_grouped_in_memory_writes_what_a_spilled_one_writes(tmp_path: Path) -> None:
    """The pool groups a commit's postings by term in memory (postings.GroupedPostings);
    a pool too small for the commit spills runs grouped by term to disk and merges them
    (runs.py): both write the same segment, to the byte."""
    from bench.index_digest import digest
    from webcrawler.index.format.opening import open_index
    from webcrawler.index.writing.writer import IndexWriter

    docs = [doc(i, f"word{i % 7} shared text {i % 3} " + "filler " * (i % 50)) for i in range(400)]
    seen = []
    for name, limit in (("grouped", None), ("spilled", 100_000)):  # bytes: a run per few pages
        ix = open_index(tmp_path / name, create=True)
        with IndexWriter(ix) as writer:
            pool = writer._current().pool
            pool.limit = limit or pool.limit
            writer.add(docs)
            assert bool(pool.runs) == (name == "spilled")
        with ix.reader() as reader:
            seen.append((list(reader.iter_postings()), reader.field_length("content"),
                         [reader.doc_field_length(n, "content") for n in reader.all_doc_ids()]))
    assert seen[0] == seen[1] and len(seen[0][0]) > 1000
    # the same segment to the byte (runs.merged shares what the pool shares)
    assert digest(tmp_path / "grouped") == digest(tmp_path / "spilled")


# The abandoned segment's open files are closed by the garbage collector, which warns.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def _open_under(folder: Path) -> list[str]:
    """The files under `folder` this process holds open (its descriptors' targets)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed since
            continue
        if target.startswith(str(folder)):
            found.append(target)
    return found


def test_a_writer_that_filled_the_disk_mid_document_is_discarded_and_unlocks(tmp_path: Path) -> None:
    """The disk fills while a document is written: `discard` must not write it again (the
    same full disk fails that too) and must free the index for the next writer."""
    with small_tmpfs(tmp_path / "disk", "256k") as disk:
        writer = open_writer(disk / "ix", limitmb=32)  # spills within the 100 documents
        big = "".join(f"word{i} " for i in range(20_000))
        with pytest.raises(OSError) as failed:
            for i in range(100):
                writer.add([doc(i, big)])
        writer.discard()
        # the failure's traceback still holds the failed segment writer: its files are closed
        assert not _open_under(disk), "a discarded writer left files open"
        del writer, failed
        gc.collect()  # anything else left open warns now (an error under pytest), not in a later test
        with open_writer(disk / "ix") as again:  # the lock is free
            assert again.doc_ids() == set()


def test_the_writer_holds_a_crawl_commit_of_long_pages_in_its_pool(tmp_path: Path) -> None:
    """`limitmb` (default POOL_MB) is the Whoosh pool's limit: 150 pages of 5,000 words stay in
    the default pool, and a pool of 32 MB spills them to runs on disk."""
    from bench.writer_cpu import long_document
    from webcrawler.index.format.opening import open_index
    from webcrawler.index.writing.writer import POOL_MB, IndexWriter

    docs = [long_document(n) for n in range(150)]
    runs = {}
    for limitmb in (POOL_MB, 32):
        ix = open_index(tmp_path / str(limitmb), create=True)
        with IndexWriter(ix, limitmb=limitmb) as writer:
            pool = writer._current().pool
            assert pool.limit == limitmb * 1024 * 1024
            writer.add(docs)
            runs[limitmb] = len(pool.runs)
    assert runs[POOL_MB] == 0 and runs[32] >= 1
