"""Window bounds written beside a segment, so that no query has to make them.

Pruning (`pruning.py`) needs, for each long posting list of a segment, the best score
the word can add in each window of documents. Made on a query's first use of the word,
they cost that query a scan of the whole list in every segment, and every merge starts
a new segment cold. The writer therefore writes them when a segment is made: after a
commit, each segment large enough to hold a long list and without its file gets
`<segment>.bounds` (the same name as the segment's other files, so Whoosh deletes it
with the segment after a merge). The file holds, for every list of `LONG`
postings or more, its per-window maxima for a query weight of 1, rounded up to float32,
with the statistics (p_ref, mu) they were made with: any later commit's are covered by
the scaling argument of `pruning.py`, as remembered bounds are.

The file also holds the block tables (`blocks.block_table`: where each block of the list
lies, and its last document) of the lists of `TABLED` postings or more, with which
proximity reads a few blocks of a list (`proximity.py`): made on first use, a table costs
a read of the whole list, every header of it unpickled.

Queries read the file through a memory map, once per segment; a file that is missing,
damaged (a checksum covers it) or made for another window size is ignored, and the
bounds are made on first use as before.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from whoosh.index import Index
from whoosh.reading import SegmentReader

from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import block_table, is_w3
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.format.segcache import segment_key
from webcrawler.index.format.segments import (
    Segment,
    doc_frequency,
    field_terms,
    posting_list,
    segment_folder,
    segments,
)
from webcrawler.index.search import prior
from webcrawler.index.search.weighting import word_scores

WINDOW = 256  # documents per window: smaller is tighter, and more windows to add up
LONG = 4096  # postings from which a list's window bounds are kept (shorter: scored)
TABLED = 1024  # postings from which a list's block table is kept (shorter: read in microseconds)
SUFFIX = ".bounds"
MAGIC = b"WCB2"
_HEAD = struct.Struct("<4sII")  # magic, header bytes, crc32 of all that follows
KEPT = 64  # segments whose files stay mapped (a merged-away one's disk space is freed when dropped)
RETRY = 5.0  # seconds before a segment's missing or damaged file is looked for again

Row = tuple[str, np.ndarray | None, float, tuple[np.ndarray, np.ndarray]]  # word, bounds, p_ref, blocks


class Table(NamedTuple):
    """A segment's bounds file as read: rows by word, each its row of window bounds (-1:
    none, a list shorter than `LONG`) and p_ref, then where its block table lies in
    `extents` and `lasts`."""

    rows: dict[str, tuple[int, float, int, int]]
    matrix: np.ndarray
    mu: float
    extents: np.ndarray
    lasts: np.ndarray


_opened: dict[tuple, Table] = {}
_missed: dict[tuple, float] = {}  # segments without a sound file: when last looked for
_lock = threading.Lock()


def windows_of(lengths: np.ndarray) -> int:
    """How many windows a segment of `len(lengths)` documents has."""
    return _windows(len(lengths))


def _windows(docs: int) -> int:
    return (docs + WINDOW - 1) // WINDOW


def unit_scores(found: vectors.Postings, p_ref: float, mu: float, lengths: np.ndarray,
                priors: tuple[np.ndarray, float] | None) -> np.ndarray:
    """Each posting's score for a query weight of 1."""
    ids, weights = found
    return word_scores(weights, lengths[ids], 1.0, p_ref, mu, None if priors is None else priors[0][ids])


def window_max(ids: np.ndarray, values: np.ndarray, windows: int) -> np.ndarray:
    """The largest of `values` in each window of document numbers (0 where none)."""
    out = np.zeros(windows)
    window = ids // WINDOW
    starts = np.flatnonzero(np.diff(window, prepend=-1))
    out[window[starts]] = np.maximum.reduceat(values, starts)
    return out


def path_of(folder: Path, segment: Segment) -> Path:
    return Path(folder) / f"{segment.segment_id()}{SUFFIX}"


def write_missing(ix: Index) -> int:
    """Write the bounds file of every segment of `ix`'s newest commit that may hold a long
    list and has no sound one (a sound file is checked once a process); returns how many
    were written."""
    if all(segment.doc_count_all() < LONG for segment in segments(ix)):
        return 0  # nothing to write: a small index's commits open no searcher for this
    folder = Path(ix.storage.folder)
    written = 0
    with ix.searcher() as searcher:
        total = searcher.field_length(CONTENT) or 1
        mu = searcher.avg_field_length(CONTENT, 0.0)
        for sub, _offset in searcher.leaf_searchers():
            reader = sub.reader()
            key, path = _long_segment(reader), path_of(folder, reader.segment())
            # a table remembered from another folder (a copy of the index) is not this one's file
            if key is None or not is_w3(reader) or (path.exists() and _table(reader) is not None):
                continue
            rows = _rows(reader, lambda word: (searcher.frequency(CONTENT, word) + 1.0) / (total + 1.0), mu)
            if rows is not None:
                _write(path, rows, mu, reader.doc_count_all())
                with _lock:
                    _missed.pop(key, None)  # read when next asked
                written += 1
    return written


def _rows(reader: SegmentReader, p_of: Callable[[str], float], mu: float) -> list[Row] | None:
    """(word, unit window maxima (None below `LONG` postings), p_ref, block table) of each of
    the segment's lists of `TABLED` postings or more."""
    lengths = vectors.lengths(reader, CONTENT)
    if lengths is None or mu <= 0:
        return None
    priors = prior.factors(reader)
    windows = windows_of(lengths)
    rows: list[Row] = []
    for word, raw in field_terms(reader, CONTENT):
        count = doc_frequency(raw)
        if count < min(TABLED, LONG):
            continue
        data = posting_list(reader, raw)
        if data is None:
            continue
        table = block_table(data)
        if count < LONG:
            rows.append((word, None, 0.0, table))
            continue
        found = vectors.postings_from(reader, raw) if vectors.has_arrays(raw) \
            else vectors.postings(reader, CONTENT, word)
        p_ref = p_of(word)
        unit = unit_scores(found, p_ref, mu, lengths, priors)
        rows.append((word, window_max(found[0], unit, windows), p_ref, table))
    return rows


def _write(path: Path, rows: list[Row], mu: float, docs: int) -> None:
    """The file, written whole under another name and renamed: readers see all or nothing.
    After the header: the bounds (float32, a row a word), every word's block table's
    extents (int64 pairs) and last docnums (int32), one after the other."""
    windows = _windows(docs)
    bounded = [made for _word, made, _p, _table in rows if made is not None]
    matrix = np.zeros((len(bounded), windows), dtype="<f4")
    for i, made in enumerate(bounded):
        matrix[i] = _rounded_up(made)
    at = np.cumsum([made is not None for _word, made, _p, _table in rows]) - 1
    counts = [len(table[1]) for *_rest, table in rows]
    firsts = np.concatenate([[0], np.cumsum(counts)]).astype(int).tolist()
    extents = np.concatenate([table[0] for *_rest, table in rows] or [np.zeros((0, 2))]).astype("<i8")
    lasts = np.concatenate([table[1] for *_rest, table in rows] or [np.zeros(0)]).astype("<i4")
    words = [[word, p, firsts[i], counts[i], -1 if made is None else int(at[i])]
             for i, (word, made, p, _table) in enumerate(rows)]
    header = json.dumps({"window": WINDOW, "docs": docs, "mu": mu, "words": words,
                         "blocks": int(firsts[-1])}).encode()
    header += b" " * (-(len(header) + _HEAD.size) % 8)
    arrays = matrix.tobytes()
    arrays += bytes(-len(arrays) % 8) + extents.tobytes() + lasts.tobytes()
    body = header + arrays
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(_HEAD.pack(MAGIC, len(header), zlib.crc32(body)) + body)
    os.replace(temporary, path)


def _rounded_up(values: np.ndarray) -> np.ndarray:
    """`values` as float32, none below the float64 value (they must stay upper bounds)."""
    narrow = values.astype(np.float32)
    low = narrow.astype(np.float64) < values
    narrow[low] = np.nextafter(narrow[low], np.float32(np.inf))
    return narrow


def bounds(reader: SegmentReader, word: str) -> tuple[np.ndarray, float, float] | None:
    """(unit window maxima, p_ref, mu) of `word`'s long list in `reader`'s segment, from
    its bounds file; None when the file or the word is not there."""
    table = _table(reader)
    row = None if table is None else table.rows.get(word)
    if table is None or row is None or row[0] < 0:
        return None
    return table.matrix[row[0]], row[1], table.mu


def blocks(reader: SegmentReader, word: str) -> tuple[np.ndarray, np.ndarray] | None:
    """`word`'s block table (`blocks.block_table`) in `reader`'s segment, from its bounds
    file; None when the file or the word is not there."""
    table = _table(reader)
    row = None if table is None else table.rows.get(word)
    if table is None or row is None:
        return None
    first, count = row[2], row[3]
    return table.extents[first:first + count], table.lasts[first:first + count]


def warm(reader: SegmentReader) -> None:
    """Read the segment's file now, as a searcher opens a commit, not in the first query that
    needs it: a large segment's takes tens of milliseconds (its checksum, its word list)."""
    _table(reader)


def _table(reader: SegmentReader) -> Table | None:
    key = _long_segment(reader)
    if key is None:
        return None
    now = time.monotonic()
    with _lock:
        if key in _opened:
            return _opened[key]
        if now < _missed.get(key, -RETRY) + RETRY:
            return None
    table = _read(reader, reader.segment())
    with _lock:
        if table is None:  # not written yet, perhaps: the writer writes it after its commit
            if len(_missed) >= KEPT:
                _missed.clear()
            _missed[key] = now
            return None
        if len(_opened) >= KEPT:
            _opened.pop(next(iter(_opened)))
        _opened[key] = table
    return table


def _long_segment(reader: object) -> tuple | None:
    """The segment's key (`segcache.segment_key`) when it may hold a list of `LONG` postings."""
    key = segment_key(reader) if isinstance(reader, SegmentReader) else None
    return key if key is not None and key[1] >= LONG else None


def _read(reader: SegmentReader, segment: Segment) -> Table | None:
    """The segment's bounds file, checked whole (None: missing, damaged, or not for it)."""
    folder = segment_folder(reader)
    if folder is None:
        return None
    try:
        with open(path_of(folder, segment), "rb") as raw:
            mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    with contextlib.suppress(ValueError, KeyError, TypeError, struct.error, UnicodeDecodeError):
        magic, size, crc = _HEAD.unpack_from(mapped)
        windows = _windows(segment.doc_count_all())
        if magic != MAGIC or zlib.crc32(memoryview(mapped)[_HEAD.size:]) != crc:
            return None
        header = json.loads(bytes(mapped[_HEAD.size:_HEAD.size + size]))
        words, count = header["words"], header["blocks"]
        if header["window"] != WINDOW or header["docs"] != segment.doc_count_all():
            return None
        at = _HEAD.size + size
        bounded = sum(entry[4] >= 0 for entry in words)
        matrix = np.frombuffer(mapped, "<f4", bounded * windows, at).reshape(-1, windows)
        at += matrix.nbytes + (-matrix.nbytes % 8)
        extents = np.frombuffer(mapped, "<i8", 2 * count, at).reshape(-1, 2)
        lasts = np.frombuffer(mapped, "<i4", count, at + extents.nbytes)
        if at + extents.nbytes + lasts.nbytes != len(mapped):
            return None
        rows = {word: (int(row), float(p), int(first), int(n)) for word, p, first, n, row in words}
        return Table(rows, matrix, float(header["mu"]), extents, lasts)
    return None


def forget() -> None:
    """Forget the files opened (tests)."""
    with _lock:
        _opened.clear()
        _missed.clear()
