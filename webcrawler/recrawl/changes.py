"""Did a page change, and did it change non-trivially? (WebFountain section 4; Broder 1997)

Three answers, cheapest first:

- UNMODIFIED: the server said 304 to a conditional GET, or the body's checksum is
  the one stored (byte-identical);
- TRIVIAL: the bytes differ, but the visible text's w-shingles resemble the stored
  ones at least RESEMBLANCE_THRESHOLD (a new date, a visit counter, a rotated
  advertisement line);
- CHANGED: anything less alike (an edited paragraph), or no stored sketch to
  compare with.

The text is shingled as in Broder et al. (webcrawler/text/shingles.py): lower-cased words, every run of digits
replaced by "#" (so dates, times and counters never differ), SHINGLE_WORDS words
per shingle, each shingle hashed to 32 bits. The set is summarised as Broder's
1997 sketch: the SKETCH_SIZE smallest shingle hashes (a bottom-k MinHash), after a
4-byte count of the shingles: at most 1,028 bytes a page. Resemblance is
estimated from the k smallest hashes of the union of two sketches, and is exact
for pages of fewer than k shingles. We use this rather than datasketch's k-hash
MinHash because importing datasketch (it imports scipy) slows the start of every
agent process, and a k-hash MinHash costs several times this sketch per page.

Resemblance alone cannot tell an advertisement line from a paragraph: a new line
on a short page lowers it more than a rewritten paragraph on a long one
(bench/change_threshold.py, BENCHMARKS.md). What
separates them is how many shingles differ, which the sketch estimates as
(1 - r) * |A u B|, with |A u B| = (|A| + |B|) / (1 + r): an 8-word line changes
about 2 * (8 + 3) = 22 shingles, a 30-word paragraph about 66. A page changed
non-trivially when at least MIN_CHANGED_SHINGLES (32) differ: above every ad line
tried, below a 30-word paragraph added. A shorter edit (a sentence)
counts as trivial: the price of never re-indexing for an advertisement.
This module never touches the database: the agents call `sketch` (webcrawler/text/shingles.py),
the engine calls `classify`.
"""

from __future__ import annotations

from enum import StrEnum

from webcrawler.text.shingles import differing_shingles

MIN_CHANGED_SHINGLES = 32  # measured: bench/change_threshold.py, BENCHMARKS.md


class Change(StrEnum):
    """What a recrawl found, stored in counters of the document's history."""

    UNMODIFIED = "unmodified"
    TRIVIAL = "trivial"
    CHANGED = "changed"


def classify(old_checksum: str | None, old_sketch: bytes | None, checksum: str,
             new_sketch: bytes, threshold: float = MIN_CHANGED_SHINGLES) -> Change:
    """The change between the stored copy and a freshly fetched body."""
    if old_checksum and old_checksum == checksum:
        return Change.UNMODIFIED
    if (old_sketch and new_sketch and len(old_sketch) == len(new_sketch)
            and differing_shingles(old_sketch, new_sketch) < threshold):
        return Change.TRIVIAL
    return Change.CHANGED
