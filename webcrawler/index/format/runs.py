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
from collections.abc import Iterable, Iterator
from itertools import groupby, islice
from operator import itemgetter
from typing import Any

from whoosh.filedb.filestore import Storage

TERMS_A_PICKLE = 4096  # terms pickled together: one load per chunk, few chunks held at once

Term = tuple[str, bytes]
TermPostings = tuple[Term, list, bool]  # (term, postings, whether each has its length)


def write_run(storage: Storage, name: str, terms: Iterable[TermPostings]) -> None:
    """Pickle `terms` (in term order) to the temporary file `name`, in chunks."""
    f = storage.create_file(name).raw_file()
    try:
        terms = iter(terms)
        while chunk := list(islice(terms, TERMS_A_PICKLE)):
            pickle.dump(chunk, f, pickle.HIGHEST_PROTOCOL)
    finally:
        f.close()


def read_run(storage: Storage, name: str) -> Iterator[TermPostings]:
    """The terms of run `name` in order; the file is deleted once they are read."""
    f = storage.open_file(name).raw_file()
    try:
        while True:
            try:
                chunk = pickle.load(f)
            except EOFError:
                return
            yield from chunk
    finally:
        f.close()
        storage.delete_file(name)


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


class MergedRuns:
    """The postings of a pool that spilled: its runs on disk and what it still holds, merged
    by term (the term writer's grouped path, `termwriter.TermWriter._pool_terms`)."""

    def __init__(self, storage: Storage, names: list[str], rest: Iterator[TermPostings],
                 shared: dict[bytes, bytes]) -> None:
        self._storage = storage
        self._names = names
        self._rest = rest
        self._shared = shared

    def terms(self) -> Iterator[TermPostings]:
        names, self._names = self._names, []
        return merged([read_run(self._storage, name) for name in names] + [self._rest],
                      self._shared)
