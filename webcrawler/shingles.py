"""Shingle sketches of a page's text, and how much two of them resemble each other (Broder 1997).

Neutral ground: the recrawl compares a page with its stored copy (webcrawler/recrawl/changes.py,
whose docstring explains the sketch), the engine compares a page with those already indexed
(near-duplicates), the agents compute the sketch.
"""

from __future__ import annotations

import re
from functools import lru_cache
from hashlib import blake2b

import numpy as np

SHINGLE_WORDS = 4
SKETCH_SIZE = 256

_WORD = re.compile(r"\w+")
_DIGITS = re.compile(r"\d+")
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


@lru_cache(maxsize=1 << 16)
def _word_hash(word: str) -> int:
    return int.from_bytes(blake2b(_DIGITS.sub("#", word).encode(), digest_size=8).digest(), "little")


def shingles(text: str, width: int = SHINGLE_WORDS) -> np.ndarray:
    """The page's distinct w-shingles as sorted 32-bit hashes (digits normalised away)."""
    words = np.array([_word_hash(w) for w in _WORD.findall(text.lower())], dtype=np.uint64)
    if not words.size:
        return np.zeros(0, dtype=np.uint32)
    count = max(1, words.size - width + 1)
    hashes = words[:count].copy()
    for offset in range(1, min(width, words.size)):
        hashes = hashes * _MULTIPLIER + words[offset : offset + count]
    hashes ^= hashes >> np.uint64(31)  # mix the high bits down: the top 32 bits are kept
    hashes *= _MULTIPLIER
    return np.unique((hashes >> np.uint64(32)).astype(np.uint32))


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
    both pages have (exact when both have fewer than k shingles)."""
    (count_a, left), (count_b, right) = _parts(a), _parts(b)
    if not count_a and not count_b:
        return 1.0
    union = np.union1d(left, right)[:SKETCH_SIZE]
    both = np.intersect1d(left, right, assume_unique=True)
    return float(np.isin(union, both, assume_unique=True).sum()) / union.size


def differing_shingles(a: bytes, b: bytes) -> float:
    """Estimated size of the symmetric difference of the two shingle sets."""
    (count_a, _), (count_b, _) = _parts(a), _parts(b)
    r = resemblance(a, b)
    return (1.0 - r) * (count_a + count_b) / (1.0 + r)
