"""Every word's 64-bit hash in a page, for its shingle sketch (shingles.py), found for the whole
page at once.

A word's hash is blake2b of the word with its digits as "#" (`word_hash`): what the sketches
stored by earlier crawls were made of. A page's words are mostly words seen before, so each
word is hashed once and kept; kept in a dict, every word of every page still cost a bytes
object (`split`) and a lookup, one at a time in Python: most of a sketch's cost. Here the page
stays one bytes string (its words separated by spaces, `tokens.spaced_words`): NumPy finds
where its words start and end, reads each word of at most WIDE bytes as two 64-bit integers
(its bytes, zero-padded: no word holds a zero byte, so the pair is the word) and looks all of
them up at once in a table of arrays (open addressing, linear probing). Only a word the table
does not hold yet is made a bytes object and hashed, and a word longer than WIDE bytes (a
handful a page) is hashed each time. The table holds at most half its slots (probes stay
short); when full it is emptied, as the dict was, and refilled from the pages that follow.
"""

from __future__ import annotations

import re
import threading
from hashlib import blake2b

import numpy as np

WIDE = 16  # bytes of a word the table keys on: two uint64
SLOTS = 1 << 18  # the table's size; it holds at most half as many words
FEW_NEW = 64  # new words a page adds one by one in Python (more: probed as arrays)

_DIGITS = re.compile(r"\d+")
_SPACE = 0x20
_PADDING = bytes(2 * WIDE)  # zeros after a page's last word, for its halves' reads
_MIX = np.uint64(0x9E3779B97F4A7C15)
# a word of n bytes (n <= WIDE): which bits of its low half and of its high half are its own
_LOW_MASKS = np.array([(1 << (8 * min(n, 8))) - 1 for n in range(WIDE + 1)], dtype=np.uint64)
_HIGH_MASKS = np.array([(1 << (8 * max(n - 8, 0))) - 1 for n in range(WIDE + 1)], dtype=np.uint64)


def word_hash(word: bytes) -> int:
    """The word's hash: the first 8 bytes of blake2b of it, its runs of digits made "#", read
    as a little-endian integer."""
    return int.from_bytes(blake2b(_digits_made_one(word), digest_size=8).digest(), "little")


def _digits_made_one(word: bytes) -> bytes:
    text = _DIGITS.sub("#", word.decode("utf-8", "surrogatepass"))
    return text.encode("utf-8", "surrogatepass")


def _hashed(words: list[bytes]) -> np.ndarray:
    """`word_hash` of each word, as uint64; a word of ASCII letters only (most) as it is."""
    return np.frombuffer(b"".join([blake2b(word if word.isalpha() else _digits_made_one(word),
                                           digest_size=8).digest() for word in words]), dtype="<u8")


class WordTable:
    """Words of at most WIDE bytes, as (low, high) uint64 pairs, and their hashes; an empty
    slot's low half is 0 (a word's first byte never is)."""

    def __init__(self, slots: int = SLOTS) -> None:
        self.rows = np.zeros((slots, 4), dtype=np.uint64)  # low, high, hash (and a pad): a
        # probe reads one cache line
        self.count = 0
        self.lock = threading.Lock()  # a row is written a column at a time: one page at a time
        self._shift = np.uint64(64 - (slots.bit_length() - 1))
        self._last = slots - 1
        self._cells = self.rows.data.cast("B").cast("Q")  # the rows' uint64s, one by one

    def slots(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Each word's first slot: a multiplicative hash of both halves (words differ mostly in
        their first bytes, their high half is mostly 0)."""
        return (((low ^ (high * _MIX)) * _MIX) >> self._shift).astype(np.intp)

    def find(self, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hashes, found): each word's hash where `found` (elsewhere anything), probing all the
        words at once, a word leaving the probe at its own slot or at an empty one."""
        at = self.slots(low, high)
        rows = self.rows.take(at, axis=0)
        values = rows[:, 2].copy()
        found = (rows[:, 0] == low) & (rows[:, 1] == high)
        going = np.flatnonzero(~found & (rows[:, 0] != 0))  # past another word's slot: probe on
        while going.size:
            at[going] = (at[going] + 1) & self._last
            rows = self.rows.take(at[going], axis=0)
            here = (rows[:, 0] == low[going]) & (rows[:, 1] == high[going])
            values[going[here]] = rows[here, 2]
            found[going[here]] = True
            going = going[~here & (rows[:, 0] != 0)]
        return values, found

    def add(self, low: np.ndarray, high: np.ndarray, value: np.ndarray) -> None:
        """Keep words the table does not hold (distinct): the table is emptied first when they
        would fill more than half its slots (a page with more new words than that keeps the
        first of them); each takes the first free slot from its own on, the first of the
        words that reach a free slot together taking it."""
        room = (self._last + 1) // 2
        if self.count + low.size > room:
            self.rows[:, 0] = 0
            self.count = 0
            low, high, value = low[:room], high[:room], value[:room]
        at = self.slots(low, high)
        if low.size <= FEW_NEW:
            self._add_each(at.tolist(), low.tolist(), high.tolist(), value.tolist())
            self.count += low.size
            return
        pending = np.arange(low.size)
        while pending.size:
            free = np.flatnonzero(self.rows.take(at, axis=0)[:, 0] == 0)
            taking = free[_first_of_each(at[free])]
            words = pending[taking]
            self.rows[at[taking], 0], self.rows[at[taking], 1] = low[words], high[words]
            self.rows[at[taking], 2] = value[words]
            going = np.ones(pending.size, dtype=bool)
            going[taking] = False
            pending, at = pending[going], (at[going] + 1) & self._last
        self.count += low.size

    def _add_each(self, at: list[int], low: list[int], high: list[int], value: list[int]) -> None:
        """`add` one word after another, each probing from its slot to the first free one: for
        a page's few dozen new words, a few Python steps each where a round of the arrays'
        probing costs a dozen NumPy calls. Where a word lands does not change what `find`
        answers (it probes from the word's slot to the word or a free slot)."""
        cells, last = self._cells, self._last
        for slot, word_low, word_high, word_value in zip(at, low, high, value, strict=True):
            while cells[4 * slot]:
                slot = (slot + 1) & last
            cell = 4 * slot
            cells[cell], cells[cell + 1], cells[cell + 2] = word_low, word_high, word_value


def _first_of_each(slots: np.ndarray) -> list[int]:
    """The place of each slot's first occurrence in `slots`: a dict over a page's few dozen
    new words (np.unique sorted them, at several times the cost)."""
    first: dict[int, int] = {}
    for place, slot in enumerate(slots.tolist()):
        first.setdefault(slot, place)
    return list(first.values())


_KNOWN = WordTable()


def word_hashes(spaced: bytes, known: WordTable | None = None) -> np.ndarray:
    """The hashes of the words of `spaced` (words separated by ASCII spaces), in order."""
    known = _KNOWN if known is None else known
    starts, ends = _bounds(spaced)
    lengths = ends - starts
    low, high = _halves(spaced, starts, lengths)
    with known.lock:
        values, found = known.find(low, high)
        missing = np.flatnonzero(~found)
        if missing.size:
            _hash_missing(spaced, known, values, missing, starts, ends, low, high)
    return values


def _bounds(spaced: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Where each word starts, and where it ends (the offset after its last byte)."""
    in_word = np.zeros(len(spaced) + 2, dtype=bool)
    np.not_equal(np.frombuffer(spaced, dtype=np.uint8), _SPACE, out=in_word[1:-1])
    edges = np.flatnonzero(in_word[1:] != in_word[:-1])
    return edges[0::2], edges[1::2]


def _halves(spaced: bytes, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each word's first 8 bytes and next 8 as little-endian uint64, zero past the word; a word
    longer than WIDE bytes gets a high half of all ones (no word's bytes are all 0xFF: not
    UTF-8), which no word of the table has."""
    padded = spaced + _PADDING  # one copy, in C: no array to zero and fill
    at_byte = np.ndarray((len(spaced) + WIDE,), dtype="<u8", buffer=padded, strides=(1,))
    wide = np.minimum(lengths, WIDE)
    low = at_byte.take(starts) & _LOW_MASKS.take(wide)
    high = at_byte.take(starts + 8) & _HIGH_MASKS.take(wide)
    high[lengths > WIDE] = np.uint64(0xFFFFFFFFFFFFFFFF)
    return low, high


def _hash_missing(spaced: bytes, known: WordTable, values: np.ndarray, missing: np.ndarray,
                  starts: np.ndarray, ends: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
    """Hash the words the table does not hold, once each, into `values`; keep those of at most
    WIDE bytes."""
    number: dict[bytes, int] = {}  # each distinct word's number, in order of appearance
    inverse = []
    first = []  # each distinct word's first place among the missing (a page has a few dozen)
    for place, (start, end) in enumerate(zip(starts[missing].tolist(), ends[missing].tolist(),
                                             strict=True)):
        word = spaced[start:end]
        known_as = number.get(word)
        if known_as is None:
            known_as = number[word] = len(number)
            first.append(place)
        inverse.append(known_as)
    hashed = _hashed(list(number))
    values[missing] = hashed[inverse]
    at = missing[first]
    short = ends[at] - starts[at] <= WIDE
    known.add(low[at[short]], high[at[short]], hashed[short])
