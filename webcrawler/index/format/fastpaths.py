"""Which fast paths ran: counters the tests read, so that a Whoosh upgrade which
silently sends queries, merges or segment reads down Whoosh's own (15x slower)
way fails a test rather than only a benchmark.

A path records itself with `note(name)`; the names are listed in `PATHS`. Each
note is one dictionary increment, on paths that cost microseconds at least.
Nothing here imports whoosh or decides anything: it only counts.
"""

from __future__ import annotations

from collections import Counter

PATHS = {
    "wordsearch.arrays": "a segment of a word query scored term at a time (wordsearch.py)",
    "wordsearch.pruned": "a segment of a word query scored only where it can reach the top (pruning.py)",
    "pruning.hopeless": "a segment scored whole at once: its bounds could not skip enough (pruning.py)",
    "wordsearch.whoosh": "a word query handed back to Whoosh's matchers: a segment not W3",
    "vectors.arrays": "a posting list read from its flat arrays (vectors.py)",
    "vectors.blocks": "a posting list decoded from Whoosh's pickled blocks",
    "merging.copied": "a merged segment whose posting blocks are copied (merging.py)",
    "merging.decoded": "a merged segment decoded posting by posting (Whoosh's add_reader)",
    "mergecolumns.plain": "a chunk of a merge's terms with plain ones, written as columns (mergecolumns.py)",
    "merging.stored_copied": "a merged segment whose stored fields are copied as stored (merging.py)",
    "storage.subset": "a file inside a segment read from our memory map (storage.py)",
    "storage.close_deferred": "a segment's map unmapped after its reader closed: a view still read it",
}

taken: Counter[str] = Counter()


def note(name: str) -> None:
    """Count one use of the path `name` (one of PATHS)."""
    taken[name] += 1


def reset() -> None:
    """Forget the counts (tests call this before the operation they observe)."""
    taken.clear()
