"""A segment's per-document columns read as numpy arrays, in one piece.

Whoosh's column readers answer one document at a time; the facets (`search/facets.py`) and
the link prior (`search/prior.py`) want every document's value at once, so they read the
column's bytes where Whoosh 2.7 keeps them (its readers' private offsets: the one place
that knows them).
"""

from __future__ import annotations

import numpy as np
from whoosh.columns import NumericColumn, RefBytesColumn
from whoosh.reading import SegmentReader

_REF_DTYPES: dict[str, np.dtype] = {"B": np.dtype(np.uint8), "H": np.dtype(">u2")}


def _column(reader: SegmentReader, field: str) -> object | None:
    if field not in reader.schema or not reader.has_column(field):
        return None
    return reader.column_reader(field, translate=False)


def ref_column(reader: SegmentReader, field: str) -> tuple[np.ndarray, list[bytes]] | None:
    """(each document's value number, the distinct values) of a `RefBytesColumn`; None when
    `field` has no such column in the segment."""
    found = _column(reader, field)
    if not isinstance(found, RefBytesColumn.Reader):
        return None
    dtype = _REF_DTYPES[found._typecode]
    raw = found._dbfile.get(found._basepos, found._doccount * found._itemsize)
    return np.frombuffer(raw, dtype=dtype, count=found._doccount), list(found._uniques)


def count_column(reader: SegmentReader, field: str) -> np.ndarray | None:
    """A 4-byte unsigned `NumericColumn` as float64, one value per document of the segment
    (documents past the column's end count 0); None when `field` has no such column."""
    column = _column(reader, field)
    if not isinstance(column, NumericColumn.Reader) or column._fixedlen != 4:
        return None
    count = min(column._count, reader.doc_count_all())
    values = np.frombuffer(column._dbfile.get(column._basepos, 4 * count), ">u4", count)
    out = np.zeros(reader.doc_count_all())
    out[:count] = values
    return out
