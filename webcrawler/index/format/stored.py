"""A segment's stored-fields directory read once per segment, not once per commit.

Whoosh finds a document's stored fields (title, URL, text: what a result shows) through
a directory of every document's offset and length in the segment's `_stored` column,
which its reader reads whole - a Python loop over the lengths when the writer kept no
offsets - the first time any stored document is asked for. A commit opens a new reader
for every segment, so an index of a million documents read its whole directory again
after each commit of two hundred, in the query server's refresh thread, beside the
queries. The column never changes once written, so the directory is remembered by
segment (`segcache.py`) and each new reader is handed it.
"""

from __future__ import annotations

import zlib

import numpy as np
from whoosh.codec.whoosh3 import STORED_COLUMN, W3PerDocReader
from whoosh.columns import CompressedBytesColumn, PickleColumn
from whoosh.filedb.structfile import StructFile
from whoosh.reading import SegmentReader

from webcrawler.index.format import segcache

COLUMN = "_stored"  # Whoosh's name for the stored fields' column


class _Directory(CompressedBytesColumn.Reader):
    """Whoosh's reader of the stored column, given its directory instead of reading it."""

    def __init__(self, dbfile: StructFile, basepos: int, length: int, doccount: int,
                 offsets: np.ndarray, lengths: np.ndarray) -> None:
        self._dbfile, self._basepos, self._length, self._doccount = dbfile, basepos, length, doccount
        self.had_stored_offsets = True
        self._offsets, self._lengths = offsets, lengths
        self._decompress = zlib.decompress

    def __getitem__(self, docnum: int) -> bytes:
        length = int(self._lengths[docnum])
        if not length:
            return b""
        return self._decompress(self._dbfile.get(self._basepos + int(self._offsets[docnum]), length))


def open_stored(reader: SegmentReader) -> None:
    """Give `reader` (a segment's, just opened) its stored column with the directory read
    once for the segment; a reader Whoosh did not write as W3 keeps Whoosh's way."""
    perdoc = getattr(reader, "_perdoc", None)
    if not isinstance(perdoc, W3PerDocReader) or COLUMN in perdoc._readers:
        return
    if not perdoc.has_column(COLUMN) or not isinstance(STORED_COLUMN, PickleColumn):
        return
    colfile, base, length = perdoc._get_column_file(COLUMN)
    perdoc._colfiles[COLUMN] = (colfile, base, length)
    count = perdoc.doc_count_all()
    offsets, lengths = segcache.remembered(reader, ("stored directory",),
                                           lambda: _directory(colfile, base, length, count))
    perdoc._readers[COLUMN] = PickleColumn.Reader(_Directory(colfile, base, length, count,
                                                             offsets, lengths))


def _directory(colfile: StructFile, base: int, length: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, lengths) of every document in the column, as Whoosh reads them, each in
    the narrowest of uint32 and int64 that holds it (`segcache` counts their bytes)."""
    whoosh_reader = STORED_COLUMN.reader(colfile, base, length, count)._child
    return _narrow(whoosh_reader._offsets), _narrow(whoosh_reader._lengths)


def _narrow(values: np.ndarray) -> np.ndarray:
    wide = np.asarray(values, dtype=np.int64)
    return wide.astype(np.uint32) if not len(wide) or int(wide.max()) < 2**32 else wide
