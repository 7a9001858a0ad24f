"""A query of filters alone (`type:pdf`, `site:host`, `lang:de`, with or without
-exclusions): every document the filters let through, none of them scored by words.

Such a query used to be refused ("type one or more words"), though the facet links
write exactly these queries. With no word to score, the documents are ranked by their
link prior (`prior.py`: pages many pages link to first, hubs last), the order a reader
browsing a site or a type would want, ties in index order. Whoosh's matchers find the
documents; nothing here writes.
"""

from __future__ import annotations

import numpy as np
from whoosh import query as wq
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index.search import facets, prior
from webcrawler.index.words.query import ParsedQuery, required, without_excluded


def rank_filtered(searcher: WhooshSearcher, parsed: ParsedQuery, limit: int) -> tuple[
        list[tuple[float, int]], int, facets.Counts]:
    """([(prior, docnum), ...] best first, at most `limit`; the number of documents the
    filters let through; their facet counts), for a query with no word (`parsed.words`)."""
    parts = required(parsed)
    query = without_excluded(parts[0] if len(parts) == 1 else wq.And(parts), parsed)
    scores: list[np.ndarray] = []
    numbers: list[np.ndarray] = []
    for sub, offset in searcher.leaf_searchers():
        local = np.fromiter(sub.docs_for_query(query), dtype=np.int64)
        known = prior.factors(sub.reader())
        scores.append(known[0][local] if known is not None else np.ones(len(local)))
        numbers.append(local + offset)
    if not numbers:
        return [], 0, {}
    docnums, values = np.concatenate(numbers), np.concatenate(scores)
    order = np.lexsort((docnums, -values))[:limit]  # best prior first, then index order
    ranked = list(zip(values[order].tolist(), docnums[order].tolist(), strict=True))
    return ranked, len(docnums), facets.count_global(searcher, docnums.tolist())
