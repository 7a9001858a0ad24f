"""Facet counts and filters from per-document arrays: no query leaves its fast path for them.

Each segment keeps, for the facet fields (`schema.py`: `site`, `kind`, `lang`), a
column of one small number per document pointing into the segment's list of distinct
values (Whoosh's RefBytesColumn). Read once per open segment as a numpy array (a view
of the memory-mapped segment, one or two bytes a document), it turns the matched
document numbers of a query into counts with one `bincount`, and a `type:` or `lang:`
filter into a boolean mask, whatever path ranked the query. Counts are over every
match (not the page). Each segment numbers its own values, so each segment's numbers
are mapped once to numbers shared by every segment the process opens (`Tally`): a
query's counts are then summed across segments as arrays, and turned into names once.
A segment's combinations of values (site, type, language) are numbered the same way,
once per segment, so that a query adds a segment's counts with one array addition,
whatever the number of facets, and splits them by facet once at the end: at a million
documents in twenty segments the facets were a fixed 60 us a segment, a rare word's
largest cost (docs/measurements.md). Never writes.
"""

from __future__ import annotations

import heapq
import threading
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable

import numpy as np
from whoosh.reading import SegmentReader
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index.format import segcache
from webcrawler.index.format.columns import ref_column

FACETS = {"site": "site", "type": "kind", "language": "lang"}  # facet name -> index field
FACET_VALUES = 10  # values listed per facet, most matches first
Counts = dict[str, Counter]  # facet name -> value -> matches

_ARRAYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MAPPINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # segment's numbers -> shared
_SHARED: dict[str, dict[str, int]] = {}  # field -> value -> its shared number
_NAMES: dict[str, list[str]] = {}  # field -> shared number -> value
_NAME_ARRAYS: dict[str, np.ndarray] = {}  # field -> _NAMES[field] as an array
_COMBINATIONS: dict[tuple[int, ...], int] = {}  # shared numbers per facet (-1: none) -> its number
_COMBINATION_VALUES: list[tuple[int, ...]] = []  # shared combination number -> shared numbers
_COMBINATION_ARRAY = np.zeros((0, len(FACETS)), dtype=np.int64)  # _COMBINATION_VALUES as an array
_SHARING = threading.Lock()


def column(reader: SegmentReader, field: str) -> tuple[np.ndarray, list[str]] | None:
    """(each document's value number, the values) of a facet field in one segment; None
    for a segment without the column (written before the field existed)."""
    per_field = _ARRAYS.setdefault(reader, {})
    if field not in per_field:  # by segment too: a commit opens every segment's reader anew
        per_field[field] = segcache.remembered(reader, ("column", field), lambda: _read(reader, field))
    return per_field[field]


def warm(reader: SegmentReader) -> None:
    """Read a segment's facet columns and their shared numbers now: a searcher opening a
    new commit in the background does, so the first query on it does not wait for them."""
    for field in FACETS.values():
        found = column(reader, field)
        if found is not None:
            _mapping(reader, field, found[1])
    both = combined(reader)
    if both is not None:
        _shared_combinations(reader, both[1])


def _read(reader: SegmentReader, field: str) -> tuple[np.ndarray, list[str]] | None:
    found = ref_column(reader, field)
    if found is None:
        return None
    refs, values = found
    return refs, [value.decode("utf-8", "replace") for value in values]


def _mapping(reader: SegmentReader, field: str, values: list[str]) -> np.ndarray:
    """The shared number of each of a segment's value numbers (made once per segment: the
    shared numbers only grow, so a segment's never change; not once per commit's reader,
    which cost a loop over every segment's values at each commit)."""
    per_field = _MAPPINGS.setdefault(reader, {})
    found = per_field.get(field)
    if found is None:
        found = per_field[field] = segcache.remembered(reader, ("facet mapping", field),
                                                       lambda: _share(field, values))
    return found


def _share(field: str, values: list[str]) -> np.ndarray:
    """The shared numbers of `values`, numbering the ones not seen before."""
    with _SHARING:
        shared = _SHARED.setdefault(field, {})
        names = _NAMES.setdefault(field, [])
        for value in values:
            if value not in shared:
                shared[value] = len(names)
                names.append(value)
        return np.array([shared[v] for v in values], dtype=np.int64)


class Tally:
    """A query's matches per facet value, summed over segments by shared value number
    (`add`), or by shared combination of values (`add_combinations`)."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}  # facet -> matches per shared number
        self._combinations: np.ndarray | None = None  # matches per shared combination

    def add(self, facet: str, field: str, reader: SegmentReader, values: list[str],
            tally: np.ndarray) -> None:
        """Add one segment's `tally` (matches per value number of the segment's `values`)."""
        mapping = _mapping(reader, field, values)
        size = len(_NAMES[field])  # only grows: every number mapped so far is below it
        total = self._arrays.get(facet)
        if total is None or len(total) < size:
            grown = np.zeros(size, dtype=np.int64)
            if total is not None:
                grown[: len(total)] = total
            total = self._arrays[facet] = grown
        total[mapping] += tally

    def add_combinations(self, shared: np.ndarray, per_combination: np.ndarray) -> None:
        """Add one segment's matches per combination of values; `shared` is each of its
        combinations' shared number (`_shared_combinations`, distinct)."""
        total = self._combinations
        size = len(_COMBINATION_VALUES)  # only grows: every number given so far is below it
        if total is None or len(total) < size:
            grown = np.zeros(size, dtype=np.int64)
            if total is not None:
                grown[: len(total)] = total
            total = self._combinations = grown
        total[shared] += per_combination

    def counts(self) -> Counts:
        """The tally by value name (values with no match, and the empty value, left out)."""
        arrays = dict(self._arrays)
        if self._combinations is not None:
            for facet, total in _split(self._combinations).items():
                known = arrays.get(facet)
                if known is not None:  # a segment counted facet by facet too (`_count_each`)
                    size = max(len(known), len(total))
                    total = np.pad(total, (0, size - len(total))) + np.pad(known, (0, size - len(known)))
                arrays[facet] = total
        out: Counts = {}
        for facet, total in arrays.items():
            present = np.flatnonzero(total)
            counter = out[facet] = Counter(dict(zip(_names(FACETS[facet], len(total))[present].tolist(),
                                                    total[present].tolist(), strict=True)))
            counter.pop("", None)
        return out


def _split(per_combination: np.ndarray) -> dict[str, np.ndarray]:
    """Matches per shared combination as matches per shared value number, facet by facet
    (facets that no counted combination has are left out)."""
    combinations = _combination_array(len(per_combination))[: len(per_combination)]
    counted = per_combination > 0
    out = {}
    for i, facet in enumerate(FACETS):
        numbers = combinations[:, i]
        held = counted & (numbers >= 0)
        if held.any():
            out[facet] = np.bincount(numbers[held], weights=per_combination[held]).astype(np.int64)
    return out


def _combination_array(size: int) -> np.ndarray:
    """The first `size` shared combinations' value numbers as an array, a row each (remade
    when more are known)."""
    global _COMBINATION_ARRAY
    found = _COMBINATION_ARRAY
    if len(found) < size:
        with _SHARING:
            found = np.array(_COMBINATION_VALUES, dtype=np.int64).reshape(-1, len(FACETS))
            _COMBINATION_ARRAY = found
    return found


def _names(field: str, size: int) -> np.ndarray:
    """The first `size` shared values of `field` as an array (remade when more are known)."""
    names = _NAME_ARRAYS.get(field)
    if names is None or len(names) < size:
        with _SHARING:
            names = _NAME_ARRAYS[field] = np.array(_NAMES[field], dtype=object)
    return names


def count(reader: SegmentReader, docnums: np.ndarray, into: Tally) -> None:
    """Add the facet values of a segment's (live, matched) `docnums` to `into`: one
    gather and one count over the matches for every facet (`combined`), then each
    facet's counts from the few distinct combinations."""
    if not len(docnums):
        return
    found = combined(reader)
    if found is None:
        _count_each(reader, docnums, into)
        return
    codes, tables = found
    _add(reader, tables, np.bincount(codes[docnums], minlength=len(tables[0][2])), into)


def count_remembered(reader: SegmentReader, key: tuple, docnums: np.ndarray, into: Tally) -> None:
    """`count`, remembered for the segment as it is (its deletions included) under `key`,
    which must name `docnums`: a frequent word's matches are counted once, not per query."""
    found = combined(reader)
    if found is None or not len(docnums):
        count(reader, docnums, into)
        return
    codes, tables = found
    per_combination = segcache.remembered(
        reader, ("facet counts", reader.doc_count(), *key),
        lambda: np.bincount(codes[docnums], minlength=len(tables[0][2])))
    _add(reader, tables, per_combination, into)


def _add(reader: SegmentReader, tables: list[tuple[str, str, np.ndarray, list[str]]],
         per_combination: np.ndarray, into: Tally) -> None:
    """Add a segment's matches per combination of values to `into`."""
    into.add_combinations(_shared_combinations(reader, tables), per_combination)


def _shared_combinations(reader: SegmentReader,
                         tables: list[tuple[str, str, np.ndarray, list[str]]]) -> np.ndarray:
    """The shared number of each of a segment's combinations of values (`combined`), made
    once per segment as its values' shared numbers are (`_mapping`)."""
    per_field = _ARRAYS.setdefault(reader, {})
    found = per_field.get(SHARED_COMBINATIONS)
    if found is None:
        found = per_field[SHARED_COMBINATIONS] = segcache.remembered(
            reader, (SHARED_COMBINATIONS,), lambda: _share_combinations(reader, tables))
    return found


def _share_combinations(reader: SegmentReader,
                        tables: list[tuple[str, str, np.ndarray, list[str]]]) -> np.ndarray:
    """The shared numbers of a segment's combinations, numbering the ones not seen before."""
    size = len(tables[0][2])
    numbers = np.full((size, len(FACETS)), -1, dtype=np.int64)
    position = {facet: i for i, facet in enumerate(FACETS)}
    for facet, field, table, values in tables:
        numbers[:, position[facet]] = _mapping(reader, field, values)[table]
    with _SHARING:
        out = []
        for combination in map(tuple, numbers.tolist()):
            number = _COMBINATIONS.get(combination)
            if number is None:
                number = _COMBINATIONS[combination] = len(_COMBINATION_VALUES)
                _COMBINATION_VALUES.append(combination)
            out.append(number)
    return np.array(out, dtype=np.intp)


def _count_each(reader: SegmentReader, docnums: np.ndarray, into: Tally) -> None:
    """`count` one facet at a time (a segment whose columns differ in length)."""
    for facet, field in FACETS.items():
        found = column(reader, field)
        if found is not None:
            refs, values = found
            into.add(facet, field, reader, values, np.bincount(refs[docnums], minlength=len(values)))


COMBINED = "facet combinations"
SHARED_COMBINATIONS = "facet combinations, shared numbers"
Combined = tuple[np.ndarray, list[tuple[str, str, np.ndarray, list[str]]]]


def combined(reader: SegmentReader) -> Combined | None:
    """(each document's combination of facet values, as a small number; per facet with
    a column: (facet, field, each combination's value number, the values)), made once
    per segment (`segcache.py`); None when the segment has no facet column or its
    columns differ in length."""
    per_field = _ARRAYS.setdefault(reader, {})
    if COMBINED not in per_field:  # kept per reader too: a query asks once per segment
        per_field[COMBINED] = segcache.remembered(reader, (COMBINED,), lambda: _combine(reader))
    return per_field[COMBINED]


def _combine(reader: SegmentReader) -> Combined | None:
    present = [(facet, field, found) for facet, field in FACETS.items()
               if (found := column(reader, field)) is not None]
    if not present or len({len(found[0]) for _facet, _field, found in present}) > 1:
        return None
    code = np.zeros(len(present[0][2][0]), dtype=np.int64)
    for _facet, _field, (refs, values) in present:
        code = code * max(len(values), 1) + refs
    distinct, inverse = np.unique(code, return_inverse=True)
    tables = []
    for facet, field, (_refs, values) in reversed(present):
        distinct, table = np.divmod(distinct, max(len(values), 1))
        tables.append((facet, field, table, values))
    dtype = np.uint16 if len(inverse) and inverse.max() < 65536 else np.int32
    return inverse.astype(dtype).reshape(-1), tables[::-1]


def count_global(searcher: WhooshSearcher, docnums: Iterable[int]) -> Counts:
    """Facet counts of top-level document numbers (Whoosh's path: phrases, site:, ...)."""
    ordered = np.fromiter(docnums, dtype=np.int64)
    ordered.sort()
    counts = Tally()
    leaves = searcher.leaf_searchers()
    for i, (sub, offset) in enumerate(leaves):
        end = leaves[i + 1][1] if i + 1 < len(leaves) else offset + sub.doc_count_all()
        inside = ordered[(ordered >= offset) & (ordered < end)] - offset
        reader = sub.reader()
        if isinstance(reader, SegmentReader):
            count(reader, inside, counts)
    return counts.counts()


def passing(reader: SegmentReader, docnums: np.ndarray, filters: dict[str, str]) -> np.ndarray:
    """Which of a segment's `docnums` (a boolean mask) hold the `filters`' values (index
    field -> value); documents of a segment without the column never pass."""
    passed = np.ones(len(docnums), dtype=bool)
    for field, wanted in filters.items():
        found = column(reader, field)
        if found is None:
            return np.zeros(len(docnums), dtype=bool)
        refs, values = found
        numbers = [i for i, value in enumerate(values) if value == wanted]
        passed &= np.isin(refs[docnums], numbers)
    return passed


def merge(parts: Iterable[Counts]) -> Counts:
    """Counts of several indexes (a sharded index's shards) added up."""
    total: Counts = {}
    for part in parts:
        for facet, counter in part.items():
            total.setdefault(facet, Counter()).update(counter)
    return total


def listed(counts: Counts) -> dict[str, list[tuple[str, int]]]:
    """The facets as answered: each facet's `FACET_VALUES` most frequent values, ties by name."""
    return {facet: _most(counts.get(facet, Counter())) for facet in FACETS}


def _most(counter: Counter) -> list[tuple[str, int]]:
    """The `FACET_VALUES` most frequent values, ties by name: only the values counted at
    least as often as the last one listed are sorted (a site facet may have thousands)."""
    items: Iterable[tuple[str, int]] = counter.items()
    if len(counter) > FACET_VALUES:
        least = heapq.nlargest(FACET_VALUES, counter.values())[-1]
        items = [(value, n) for value, n in items if n >= least]
    return sorted(items, key=lambda item: (-item[1], item[0]))[:FACET_VALUES]


def site_of(searcher: WhooshSearcher, docnums: list[int]) -> list[str]:
    """The `site` value of each top-level document number (for grouping the results)."""
    return values_of(searcher, "site", docnums)


def values_of(searcher: WhooshSearcher, field: str, docnums: list[int]) -> list[str]:
    """A facet field's value of each top-level document number ("" where a segment lacks
    the column), from the segments' cached columns (a column reader made per query would
    read every segment's list of distinct values again)."""
    leaves = searcher.leaf_searchers()
    starts = [offset for _sub, offset in leaves]
    out = []
    for docnum in docnums:
        sub, offset = leaves[bisect_right(starts, docnum) - 1]
        reader = sub.reader()
        found = column(reader, field) if isinstance(reader, SegmentReader) else None
        out.append("" if found is None else found[1][found[0][docnum - offset]])
    return out
