"""A commit's postings spilled to disk a term at a time, and merged back by term.

A commit whose postings outgrow the pool's `limitmb` (long pages: a batch of 5,000-word
documents) used to go through Whoosh's external sort: every posting turned back into a
tuple, pickled to a run on its own, read back on its own and merged with `heapq.merge` one
posting at a time, then grouped by term again for the term writer. Here a run is what the
in-memory path already has, the postings grouped by term in term order
(`postings.GroupedPostings.terms`), pickled a few thousand terms at a time; merging runs
is a merge of terms, and a term's postings from each run are joined in the order the runs
were written, which is docnum order (documents are numbered as they are added).
"""

from __future__ import annotations

import heapq
import pickle
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import groupby, islice
from operator import itemgetter
from typing import Any

from whoosh.filedb.filestore import Storage

from webcrawler.index.format.commitwords import WordPostings

TERMS_A_PICKLE = 4096  # terms pickled together: one load per chunk, few chunks held at once

Term = tuple[str, bytes]
TermPostings = tuple[Term, list, bool]  # (term, postings, whether each has its length)
Record = tuple[str, Any]  # (fieldname, a chunk of its terms, or of its columns: `WordPostings`)


def terms_of(fields: Iterable[tuple[str, WordPostings | Iterator[TermPostings]]]) -> Iterator[TermPostings]:
    """A pool's `fields` (a field's columns, or its terms already as tuples) as `TermPostings`,
    for the term writer's general path: both pools, spilled or held in memory, give it so."""
    for fieldname, terms in fields:
        if isinstance(terms, WordPostings):
            for word, postings in terms.postings().items():
                yield (fieldname, word), postings, True
        else:
            yield from terms


def merged(parts: list[Iterator[TermPostings]], shared: dict[bytes, bytes]) -> Iterator[TermPostings]:
    """The terms of `parts` (each in term order; earlier parts hold earlier documents) merged:
    a term's postings from each part joined in part order. A term whose parts do not all
    carry their documents' lengths yields them without (the term writer reads them).

    `shared`: values the pool shares between postings (`postings._ONE_BYTE`), each its own
    key. A block's pickle writes a value it met before as a reference, so a term joined from
    several runs (each unpickled with its own copies) gets the shared objects back: the
    segment is the one a commit in memory writes, to the byte."""
    first = itemgetter(0)
    for term, same in groupby(heapq.merge(*parts, key=first), key=first):
        pieces = list(same)
        if len(pieces) == 1:
            yield pieces[0]
            continue
        with_lengths = all(piece[2] for piece in pieces)
        postings: list[Any] = []
        in_order = True
        get = shared.get
        for _term, found, has_lengths in pieces:
            if postings and found and postings[-1][0] >= found[0][0]:
                in_order = False
            if not has_lengths:  # Whoosh's items: their values as they are
                postings += found
            elif with_lengths:
                postings += [(d, w, get(v, v), n) for d, w, v, n in found]
            else:
                postings += [(d, w, get(v, v)) for d, w, v, _n in found]
        if not in_order:  # a merged segment's postings beside new documents'
            postings.sort(key=first)
        yield term, postings, with_lengths


def records(fields: Iterable[tuple[str, Any]]) -> Iterator[Record]:
    """A run's records of `fields` (each a field's `WordPostings`, or its terms as
    `postings.GroupedPostings.terms` yields them, by field in order): a field's columns
    `TERMS_A_PICKLE` words at a time, or its terms that many at a time."""
    for fieldname, terms in fields:
        if isinstance(terms, WordPostings):
            for columns in terms.chunks(TERMS_A_PICKLE):
                yield fieldname, columns
            continue
        found = iter(terms)
        while chunk := list(islice(found, TERMS_A_PICKLE)):
            yield fieldname, chunk


def write_fields(storage: Storage, name: str, fields: Iterable[tuple[str, Any]]) -> None:
    """Pickle `fields`' `records` to the temporary file `name`."""
    f = storage.create_file(name).raw_file()
    try:
        for record in records(fields):
            pickle.dump(record, f, pickle.HIGHEST_PROTOCOL)
    finally:
        f.close()


def read_fields(storage: Storage, name: str, one_byte: list[bytes]) -> Iterator[Record]:
    """The records of the run `name` (`write_fields`) in order, columns with `one_byte`'s
    shared values; the file is deleted once they are read."""
    f = storage.open_file(name).raw_file()
    try:
        while True:
            try:
                fieldname, chunk = pickle.load(f)
            except EOFError:
                return
            yield fieldname, chunk.reshared(one_byte) if isinstance(chunk, WordPostings) else chunk
    finally:
        f.close()
        storage.delete_file(name)


class _Part:
    """A part's records, the next one at hand (`record`: None once they are all read)."""

    def __init__(self, records: Iterator[Record]) -> None:
        self._records = records
        self.record: Record | None = None
        self.advance()

    def advance(self) -> None:
        self.record = next(self._records, None)

    def holds(self, fieldname: str) -> bool:
        return self.record is not None and self.record[0] == fieldname

    def field_terms(self, fieldname: str) -> Iterator[TermPostings]:
        """This part's terms of `fieldname` (its columns made postings), read as they go."""
        return terms_of(self._field_records(fieldname))

    def _field_records(self, fieldname: str) -> Iterator[Record]:
        while self.record is not None and self.record[0] == fieldname:
            record = self.record
            self.advance()
            yield record


def merged_fields(parts: list[Iterator[Record]], shared: dict[bytes, bytes]
                  ) -> Iterator[tuple[str, WordPostings | Iterator[TermPostings]]]:
    """The fields of `parts` (each's records in order; earlier parts hold earlier documents)
    in order, each once with its terms `merged` from every part, or, where every part holds
    a field as columns, several times: its columns joined a few thousand words at a time."""
    heads = [_Part(part) for part in parts]
    while True:
        fields = [head.record[0] for head in heads if head.record is not None]
        if not fields:
            return
        fieldname = min(fields)
        holding = [head for head in heads if head.holds(fieldname)]
        if all(isinstance(head.record[1], WordPostings) for head in holding if head.record is not None):
            for columns in _joined(fieldname, holding):
                yield fieldname, columns
        else:
            terms = merged([head.field_terms(fieldname) for head in holding], shared)
            yield fieldname, terms
            for _term in terms:  # what the caller left unread
                pass


def _joined(fieldname: str, holding: list[_Part]) -> Iterator[WordPostings]:
    """The columns of `fieldname` in `holding`'s parts joined by word, up to the least of
    the last words of the chunks at hand at a time (every part's postings of those words
    are in those chunks: a part's words come in order)."""
    at_hand: list[tuple[_Part, WordPostings]] = []
    for part in holding:
        assert part.record is not None
        at_hand.append((part, part.record[1]))
        part.advance()
    while at_hand:
        bound = min(chunk.words[-1] for _part, chunk in at_hand)
        pieces: list[WordPostings] = []
        kept: list[tuple[_Part, WordPostings]] = []
        for part, chunk in at_hand:
            first, rest = chunk.split(bisect_right(chunk.words, bound))
            if first.words:
                pieces.append(first)
            if rest.words:
                kept.append((part, rest))
            elif part.holds(fieldname):
                assert part.record is not None
                kept.append((part, part.record[1]))
                part.advance()
        at_hand = kept
        yield WordPostings.join(pieces)


class MergedRuns:
    """The postings of a pool that spilled: its runs on disk and what it still holds, merged
    by field and term (the term writer's grouped path: `fields`, else `terms`)."""

    def __init__(self, storage: Storage, names: list[str], rest: Iterable[tuple[str, Any]],
                 shared: dict[bytes, bytes], one_byte: list[bytes]) -> None:
        self._storage = storage
        self._names = names
        self._rest = rest
        self._shared = shared
        self._one_byte = one_byte

    def fields(self) -> Iterator[tuple[str, WordPostings | Iterator[TermPostings]]]:
        names, self._names = self._names, []
        return merged_fields([read_fields(self._storage, name, self._one_byte) for name in names]
                             + [records(self._rest)], self._shared)

    def terms(self) -> Iterator[TermPostings]:
        return terms_of(self.fields())
