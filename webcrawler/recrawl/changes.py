"""Did a page change, and did it change non-trivially? (WebFountain section 4; Broder 1997)

Three answers, cheapest first:

- UNMODIFIED: the server said 304 to a conditional GET, or the body's checksum is
  the one stored (byte-identical);
- TRIVIAL: the bytes differ, but the visible text's w-shingles resemble the stored
  ones at least RESEMBLANCE_THRESHOLD (a new date, a visit counter, a rotated
  advertisement line);
- CHANGED: anything less alike (an edited paragraph), or no stored sketch to
  compare with.

The text is shingled as in Broder et al.: lower-cased words, every run of digits
replaced by "#" (so dates, times and counters never differ), SHINGLE_WORDS words
per shingle. The set of shingles is summarised by a MinHash of 256 values of 32
bits (datasketch's "affine32" scheme: a 32-bit hash of each shingle, permuted by
a * h + b mod 2^32 with odd a) after a 4-byte count of the shingles: 1,028 bytes
a page. It is our own twenty lines of numpy rather than datasketch because
`import datasketch` takes 0.45 s (it imports scipy) in every agent process the
crawl starts and recycles, and makes the same signature no faster.

Resemblance alone cannot tell an advertisement line from a paragraph: on a
60-word page a new 8-word ad line leaves resemblance 0.74, on a 1,500-word page a
rewritten paragraph leaves 0.96 (bench/change_threshold.py, BENCHMARKS.md). What
separates them is how many shingles differ, which the sketch estimates as
(1 - r) * |A u B|, with |A u B| = (|A| + |B|) / (1 + r): an 8-word line changes
about 2 * (8 + 3) = 22 shingles, a 60-word paragraph about 126. A page changed
non-trivially when at least MIN_CHANGED_SHINGLES (32) differ: above every ad line
measured (p95 19), below a 30-word paragraph added (about 33).
This module never touches the database: the agents call `sketch`, the engine
calls `classify`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from hashlib import blake2b

import numpy as np

SHINGLE_WORDS = 4
PERMUTATIONS = 256
MIN_CHANGED_SHINGLES = 32  # measured: bench/change_threshold.py, BENCHMARKS.md
SEED = 1  # fixed: sketches made by different processes and runs must compare

_WORD = re.compile(r"\w+")
_DIGITS = re.compile(r"\d+")
_RNG = np.random.default_rng(SEED)
_A = _RNG.integers(0, 1 << 32, PERMUTATIONS, dtype=np.uint64) | np.uint64(1)  # odd: a bijection
_B = _RNG.integers(0, 1 << 32, PERMUTATIONS, dtype=np.uint64)
_MASK = np.uint64(0xFFFFFFFF)


class Change(StrEnum):
    """What a recrawl found, stored in counters of the document's history."""

    UNMODIFIED = "unmodified"
    TRIVIAL = "trivial"
    CHANGED = "changed"


def shingles(text: str, width: int = SHINGLE_WORDS) -> set[bytes]:
    """The page's w-shingles: runs of `width` words, digits normalised away."""
    words = [_DIGITS.sub("#", w) for w in _WORD.findall(text.lower())]
    if len(words) <= width:
        return {" ".join(words).encode()} if words else set()
    return {" ".join(words[i : i + width]).encode() for i in range(len(words) - width + 1)}


def sketch(text: str) -> bytes:
    """The compact signature of `text`: its shingle count, then PERMUTATIONS MinHash values
    (all little-endian uint32)."""
    found = shingles(text)
    values = np.full(PERMUTATIONS, 0xFFFFFFFF, dtype=np.uint64)
    if found:
        hashes = np.frombuffer(b"".join(blake2b(s, digest_size=4).digest() for s in found),
                               dtype="<u4").astype(np.uint64)
        values = ((hashes[:, None] * _A + _B) & _MASK).min(axis=0)
    return np.uint32(len(found)).astype("<u4").tobytes() + values.astype("<u4").tobytes()


def _parts(signature: bytes) -> tuple[int, np.ndarray]:
    values = np.frombuffer(signature, dtype="<u4")
    return int(values[0]), values[1:]


def resemblance(a: bytes, b: bytes) -> float:
    """Estimated Jaccard resemblance of two sketches (the share of equal minima)."""
    (_, left), (_, right) = _parts(a), _parts(b)
    if left.shape != right.shape or not left.size:
        return 0.0
    return float(np.count_nonzero(left == right)) / left.size


def differing_shingles(a: bytes, b: bytes) -> float:
    """Estimated size of the symmetric difference of the two shingle sets."""
    (count_a, _), (count_b, _) = _parts(a), _parts(b)
    r = resemblance(a, b)
    return (1.0 - r) * (count_a + count_b) / (1.0 + r)


def classify(old_checksum: str | None, old_sketch: bytes | None, checksum: str,
             new_sketch: bytes, threshold: float = MIN_CHANGED_SHINGLES) -> Change:
    """The change between the stored copy and a freshly fetched body."""
    if old_checksum and old_checksum == checksum:
        return Change.UNMODIFIED
    if (old_sketch and new_sketch and len(old_sketch) == len(new_sketch)
            and differing_shingles(old_sketch, new_sketch) < threshold):
        return Change.TRIVIAL
    return Change.CHANGED
