"""The exact number of documents a query matches, without scoring them.

The top-N collector skips blocks that cannot reach the top, so it does not count
matches; Whoosh's own count re-runs the query through its matcher tree, one
Python step per matching document (on a common word at 50,000 documents, most
of a query's time). For the common query - words only, no phrase, site: or
exclusion - the count is cheaper:

- one word, in a segment without deletions: the word's document frequency, a
  number stored with the term (no postings read);
- otherwise the union of the words' document numbers, read a block at a time
  (the ids arrive as one tuple per block of 128) minus the segment's deletions.

Other queries are counted Whoosh's way. This module never writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import accumulate

from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.matching import Matcher
from whoosh.query import Query
from whoosh.reading import IndexReader
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index.query import ParsedQuery
from webcrawler.index.schema import CONTENT


def count_matches(searcher: WhooshSearcher, parsed: ParsedQuery, query: Query) -> int:
    """How many live documents match `query` (the Whoosh form of `parsed`)."""
    if parsed.phrases or parsed.site or parsed.excluded or parsed.filters:
        return sum(1 for _ in searcher.docs_for_query(query))
    terms = parsed.terms()
    return sum(_count_segment(s.reader(), terms) for s, _ in searcher.leaf_searchers())


def _count_segment(reader: IndexReader, terms: list[str]) -> int:
    present = [t for t in terms if (CONTENT, t) in reader]
    deletions = reader.has_deletions()
    if len(present) == 1 and not deletions:
        return reader.doc_frequency(CONTENT, present[0])
    ids: set[int] = set()
    for term in present:
        ids.update(_ids(reader.postings(CONTENT, term)))
    if deletions and ids:
        ids = {n for n in ids if not reader.is_deleted(n)}
    return len(ids)


def _ids(matcher: Matcher) -> Iterable[int]:
    """The matcher's document numbers; a block at a time from Whoosh's W3 posting lists."""
    if type(matcher) is not W3LeafMatcher:
        return matcher.all_ids()
    out: list[int] = []
    while matcher.is_active():
        if matcher._data is None:
            matcher._read_data()
        out.extend(accumulate(matcher._data[0]))  # ids are stored as gaps
        matcher._next_block()
    return out
