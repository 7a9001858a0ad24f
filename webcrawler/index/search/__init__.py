"""Reading and ranking: the searchers (one index or its shards), the weighting and its prior,
the fast paths for word queries (term-at-a-time, pruning by window bounds), proximity,
filters, facets, grouping and snippets.

Built on the format room (`format/`) and the word tools (`words/`); the writer (`writing/`)
writes the window bounds this room reads (`boundfile.py`).
"""
