"""Shingle sketches of a page's text, and how much two of them resemble each other (Broder 1997).

Neutral ground: the recrawl compares a page with its stored copy (webcrawler/recrawl/changes.py,
whose docstring explains the sketch), the engine compares a page with those already indexed
(near-duplicates), the agents compute the sketch.
"""

from __future__ import annotations

import numpy as np

from webcrawler.text.tokens import spaced_words
from webcrawler.text.word_hashes import word_hashes

SHINGLE_WORDS = 4
SKETCH_SIZE = 256

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def shingles(text: str, width: int = SHINGLE_WORDS) -> np.ndarray:
    """The page's distinct w-shingles as sorted 32-bit hashes (digits normalised away)."""
    hashed = word_hashes(spaced_words(text))
    if not hashed.size:
        return np.zeros(0, dtype=np.uint32)
    count = max(1, hashed.size - width + 1)
    hashes = hashed[:count].copy()
    for offset in range(1, min(width, hashed.size)):  # in place: no array a step
        hashes *= _MULTIPLIER
        hashes += hashed[offset : offset + count]
    hashes ^= hashes >> np.uint64(31)  # mix the high bits down: the top 32 bits are kept
    hashes *= _MULTIPLIER
    return _distinct(np.sort((hashes >> np.uint64(32)).astype(np.uint32)))


def _distinct(ordered: np.ndarray) -> np.ndarray:
    """`ordered` without repeats: what np.unique returns, for a sorted array (np.unique's
    hash table costs several times the sort on a page's few thousand shingles)."""
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def sketch(text: str) -> bytes:
    """The compact signature of `text`: its shingle count, then its SKETCH_SIZE smallest
    shingle hashes (all little-endian uint32)."""
    found = shingles(text)
    head = np.array([found.size], dtype="<u4")
    return head.tobytes() + found[:SKETCH_SIZE].astype("<u4").tobytes()


def _parts(signature: bytes) -> tuple[int, np.ndarray]:
    values = np.frombuffer(signature, dtype="<u4")
    return int(values[0]), values[1:]


def resemblance(a: bytes, b: bytes) -> float:
    """Estimated Jaccard resemblance: of the k smallest hashes of the union, the share that
    both pages have (exact when both have fewer than k shingles).

    Each sketch's hashes are distinct, so in the two sorted together a hash both pages have
    is the one equal to its successor: one sort of at most 2k values, where numpy's set
    functions (union, intersection, membership) sorted them three times."""
    (count_a, left), (count_b, right) = _parts(a), _parts(b)
    if not count_a and not count_b:
        return 1.0
    merged = np.concatenate((left, right))
    merged.sort()
    repeated = merged[1:] == merged[:-1]  # merged[i] is in both sketches
    first = np.ones(merged.size, dtype=bool)  # the first of its value: the union, in order
    first[1:] = ~repeated
    in_both = np.zeros(merged.size, dtype=bool)
    in_both[:-1] = repeated
    shared = in_both[first][:SKETCH_SIZE]
    return int(shared.sum()) / shared.size


def differing_shingles(a: bytes, b: bytes) -> float:
    """Estimated size of the symmetric difference of the two shingle sets."""
    (count_a, _), (count_b, _) = _parts(a), _parts(b)
    r = resemblance(a, b)
    return (1.0 - r) * (count_a + count_b) / (1.0 + r)
