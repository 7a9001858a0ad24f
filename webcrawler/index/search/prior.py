"""A link-based prior: pages that many pages link to rank higher, pages that mostly link
out (indexes, tables of contents: hubs) lower.

Each document carries two numbers from the crawl's links table, counted when it is
indexed (`schema.py`: the `inlinks` and `outlinks` columns): the distinct pages linking
to it, and the pages it links to. Its relevance is multiplied by

    prior = (1 + IN_WEIGHT * log(1 + inlinks)) / (1 + OUT_WEIGHT * log(1 + outlinks))

which is 1 for a page nothing is known of. In-links are the backlink count of the
crawl's URL ordering (Cho, Garcia-Molina and Page), on a log scale so that a site's home
page linked from every page does not drown the rest; out-links mark the back-of-book
index pages that hold every query word and answer none. Every word's score in a document
is multiplied by the same factor, so the fast word path (`wordsearch.py`) and Whoosh's
matchers (`weighting.py`) multiply per word and agree; block bounds are multiplied by
the segment's largest factor, so block-max skipping stays safe. Measured with
`bench/quality.py` (docs/index.md, BENCHMARKS.md). Counts are those the links table held
when the page was indexed: a page indexed early knows few of its in-links until the crawl
sends it to the index again as they arrive (`engine/pipeline/link_refresh.py`), or it is indexed
again (a recrawl, or `webcrawler index --reindex` after the crawl).
"""

from __future__ import annotations

import weakref

import numpy as np
from whoosh.reading import SegmentReader

from webcrawler.index.format import segcache
from webcrawler.index.format.columns import count_column

IN_WEIGHT = 0.2
OUT_WEIGHT = 0.2

_FACTORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def factor(inlinks: int, outlinks: int) -> float:
    """The prior of one document (tests, explanations)."""
    return float((1 + IN_WEIGHT * np.log1p(inlinks)) / (1 + OUT_WEIGHT * np.log1p(outlinks)))


def factors(reader: object) -> tuple[np.ndarray, float] | None:
    """(each document's prior as float64, the segment's largest) for a segment, read once
    per open segment; None for other readers or a segment without the counts."""
    if not isinstance(reader, SegmentReader):
        return None
    if reader not in _FACTORS:  # by segment too: a commit opens every segment's reader anew
        _FACTORS[reader] = segcache.remembered(reader, ("prior",), lambda: _factors(reader))
    return _FACTORS[reader]


def _factors(reader: SegmentReader) -> tuple[np.ndarray, float] | None:
    inlinks, outlinks = count_column(reader, "inlinks"), count_column(reader, "outlinks")
    if inlinks is None or outlinks is None:
        return None
    priors = (1.0 + IN_WEIGHT * np.log1p(inlinks)) / (1.0 + OUT_WEIGHT * np.log1p(outlinks))
    return priors, float(priors.max()) if len(priors) else 1.0
