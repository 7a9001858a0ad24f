"""A commit's words of the content field, kept as they come and made into postings at once.

Grouping each document's words into postings as it is added (a positions list per word,
then a tuple per posting appended to its word's list) was a Python loop per word and per
posting: most of the writer's time for a document. Here a document's words are only
numbered as they come (one `extend` of a C `map` per part of the document: title, URL
words, anchor texts, body; a word's number is its place among the commit's distinct words),
with each part's document, first position and extra weight; when the term writer asks for
the commit's postings, NumPy renumbers the words in sorted order, sorts them by word and
document (a stable sort: positions stay in order) and computes every posting's frequency,
weight and encoded positions for the whole commit, and the postings are made as tuples by
`zip` rather than one by one.

The postings are the ones `postings.PostingPool.add_terms` makes from
`postings.word_positions`, to the byte: the same docnums, the same weights (a part's extra
weight is integral, so its sum is exact in any order: a part with another weight is not
taken here), the same encoded positions, and `postings.ONE_BYTE`'s shared values where it
gives them (a block's pickle refers to a value it met before by identity).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from webcrawler.index.format.merging import Posting

_B, _H, _I = ord("B"), ord("H"), ord("I")


class _Numbering(dict):
    """word -> its number, the next one given to a word not seen yet (`dict.__getitem__`
    calls `__missing__` for it): a page's words numbered by a C `map` over them, a Python call
    only for a commit's new words.

    Numbering a page's words as they are added, while their bytes objects are fresh in the
    cache, costs less than numbering the commit's million words at once at the commit, which
    visited each word's object again after the others had pushed it out of the cache
    (docs/measurements.md, branch s4-writer); and the commit holds a list slot (8 bytes) a
    word, pointing at the dict's own number, instead of the word's bytes object. (A list
    extended by the map and read by `np.fromiter` at the commit costs less than an
    `array("q")`, which converts each number as it is appended.)"""

    __slots__ = ()

    def __missing__(self, word: bytes) -> int:
        self[word] = number = len(self)
        return number


class CommitWords:
    """One field's words of the documents added since the last `take`, in the order added
    (each as its number among the commit's distinct words)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self._number = _Numbering()  # word -> its number, in the order first seen
        self._ids: list[int] = []  # each word's number (the dict's own int), in the order added
        self._docs: list[int] = []  # per part: its document,
        self._starts: list[int] = []  # the position of its first word,
        self._counts: list[int] = []  # its number of words,
        self._extras: list[float] = []  # and each word's weight beyond one
        self._lengths: dict[int, int] = {}  # docnum -> the field's length in it

    def __bool__(self) -> bool:
        return bool(self._docs)

    def add(self, docnum: int, parts: list[tuple[list[bytes], int, float]], length: int) -> None:
        """One document's parts: (words, position of the first, extra weight of each word)."""
        number = self._number.__getitem__
        for words, start, extra in parts:
            if words:
                self._ids += map(number, words)
                self._docs.append(docnum)
                self._starts.append(start)
                self._counts.append(len(words))
                self._extras.append(extra)
        self._lengths[docnum] = length

    def take(self, one_byte: list[bytes]) -> dict[bytes, list[Posting]]:
        """word -> its postings (docnum, weight, encoded positions, length) in docnum order,
        and forget them. `one_byte[p]`: the value of a single position p below 256."""
        return self.take_columns(one_byte).postings()

    def take_columns(self, one_byte: list[bytes]) -> WordPostings:
        """`take`'s postings as columns (`WordPostings`), the words in sorted order, and forget
        them: the term writer writes a commit's lists from the columns without a tuple per
        posting (`termwriter.TermWriter`)."""
        if not self._ids:
            self.clear()
            return WordPostings([], np.zeros(1, np.int64), np.zeros(0, np.int64),
                                np.zeros(0, np.float64), [], np.zeros(0, np.int64), np.zeros(0, np.int64))
        count = len(self._ids)
        counts = np.array(self._counts, np.int64)
        docs = np.repeat(np.array(self._docs, np.int64), counts)
        # each word's position: its part's start plus its place in the part
        offsets = np.repeat(np.array(self._starts, np.int64) - (np.cumsum(counts) - counts), counts)
        positions = offsets + np.arange(count, dtype=np.int64)
        extras = np.repeat(np.array(self._extras, np.float64), counts)
        first_doc = min(self._lengths)
        span = max(self._lengths) - first_doc + 1
        length_of = np.zeros(span, np.int64)
        documents = np.fromiter(self._lengths, np.int64, len(self._lengths))
        length_of[documents - first_doc] = list(self._lengths.values())
        number, seen = self._number, np.fromiter(self._ids, np.int64, count)
        self.clear()

        # words renumbered in sorted order: a word's postings come in the terms' order
        keys = sorted(number)
        rank = np.empty(len(keys), np.int64)  # a word's number as seen -> in sorted order
        rank[np.fromiter(map(number.__getitem__, keys), np.int64, len(keys))] = np.arange(len(keys))
        ids = rank[seen]
        del number, seen
        order = _word_order(ids, docs, len(keys), span, first_doc)
        ids, docs, positions, extras = ids[order], docs[order], positions[order], extras[order]
        # a posting starts where the word or the document changes
        new = np.empty(len(ids), bool)
        new[0] = True
        np.not_equal(ids[1:], ids[:-1], out=new[1:])
        new[1:] |= docs[1:] != docs[:-1]
        starts = np.flatnonzero(new)
        freqs = np.diff(np.append(starts, len(ids)))
        weights = freqs + np.add.reduceat(extras, starts)
        post_docs = docs[starts]
        values, shared = _values(positions, new, starts, freqs, one_byte)
        # each word's postings: from its first posting to the next word's (every word has one)
        post_ids = ids[starts]
        bounds = np.append(np.flatnonzero(np.append(True, post_ids[1:] != post_ids[:-1])), len(post_ids))
        lengths = length_of[post_docs - first_doc]
        return WordPostings(keys, bounds, post_docs, weights, values, lengths, shared)


class WordPostings:
    """A commit's postings of one field as columns: `words` (sorted), and word i's postings
    at [bounds[i], bounds[i + 1]) of `docs`, `weights`, `values` and `lengths` (each word's
    in docnum order). The weights are whole numbers (`CommitWords` takes no other), so their
    sums are exact in any order. `shared[i]`: p when value i is `one_byte[p]` itself (a
    block's pickle refers back to a shared value it met), else -1.

    A pool that spills writes its columns to runs in chunks of words (`runs.py`) and joins
    them back (`join`): a word's postings from each run in run order, which is docnum order."""

    def __init__(self, words: list[bytes], bounds: np.ndarray, docs: np.ndarray, weights: np.ndarray,
                 values: list[bytes], lengths: np.ndarray, shared: np.ndarray) -> None:
        self.words = words
        self.bounds = bounds
        self.docs = docs
        self.weights = weights
        self.values = values
        self.lengths = lengths
        self.shared = shared

    def split(self, count: int) -> tuple[WordPostings, WordPostings]:
        """(the first `count` words' postings, the other words')."""
        at = int(self.bounds[count])
        return (WordPostings(self.words[:count], self.bounds[: count + 1], self.docs[:at], self.weights[:at],
                             self.values[:at], self.lengths[:at], self.shared[:at]),
                WordPostings(self.words[count:], self.bounds[count:] - at, self.docs[at:], self.weights[at:],
                             self.values[at:], self.lengths[at:], self.shared[at:]))

    def chunks(self, words: int) -> Iterator[WordPostings]:
        """The postings of `words` words at a time, in order."""
        rest = self
        while len(rest) > words:
            chunk, rest = rest.split(words)
            yield chunk
        if rest.words:
            yield rest

    def reshared(self, one_byte: list[bytes]) -> WordPostings:
        """These postings with the shared values `one_byte`'s own objects again (as read back
        from a run, whose pickle made copies of them)."""
        which = np.flatnonzero(self.shared >= 0)
        if which.size:
            values = np.empty(len(self.values), object)
            values[:] = self.values
            table = np.empty(len(one_byte), object)
            table[:] = one_byte
            values[which] = table[self.shared[which]]
            self.values = values.tolist()
        return self

    @staticmethod
    def join(pieces: list[WordPostings]) -> WordPostings:
        """The postings of `pieces` (each of its words' postings in docnum order, earlier
        pieces' documents first) by word: each word's postings from every piece, in order."""
        if len(pieces) == 1:
            return pieces[0]
        words = sorted(set().union(*(piece.words for piece in pieces)))
        rank = dict(zip(words, range(len(words)), strict=True))
        ids = np.concatenate([np.repeat(np.fromiter(map(rank.__getitem__, piece.words), np.int64, len(piece)),
                                        np.diff(piece.bounds)) for piece in pieces])
        order = np.argsort(ids, kind="stable")  # stable: each word's postings stay in piece order
        values = np.empty(len(ids), object)
        values[:] = [value for piece in pieces for value in piece.values]
        bounds = np.zeros(len(words) + 1, np.int64)
        np.cumsum(np.bincount(ids, minlength=len(words)), out=bounds[1:])
        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(piece, name) for piece in pieces])[order]
        return WordPostings(words, bounds, joined("docs"), joined("weights"), values[order].tolist(),
                            joined("lengths"), joined("shared"))

    def __len__(self) -> int:
        return len(self.words)

    def postings(self) -> dict[bytes, list[Posting]]:
        """word -> its postings as tuples (docnum, weight, encoded positions, length)."""
        postings: list[Posting] = list(zip(self.docs.tolist(), self.weights.tolist(), self.values,
                                           self.lengths.tolist(), strict=True))
        bounds = self.bounds.tolist()
        return {word: postings[a:b] for word, a, b in zip(self.words, bounds, bounds[1:], strict=False)}


def _word_order(ids: np.ndarray, docs: np.ndarray, words: int, span: int, first_doc: int) -> np.ndarray:
    """The stable order of the words by (word id, document). Documents are numbered as they
    are added, so the words come in document order and a stable order by word id alone is
    the same order; word ids below 2**16 (`words` distinct) sort as 16-bit keys, which NumPy
    sorts by radix, several times faster than 64-bit keys, and larger ones in two such passes
    (low half, then high half: each stable, so the second keeps the first's order within a
    high half). Words out of document order are sorted by the combined key, as before."""
    if docs.size > 1 and not (docs[1:] >= docs[:-1]).all():
        return np.argsort(ids * span + (docs - first_doc), kind="stable")
    if words <= 1 << 16:
        return np.argsort(ids.astype(np.uint16), kind="stable")
    if words <= 1 << 32:
        low = np.argsort((ids & 0xFFFF).astype(np.uint16), kind="stable")
        return low[np.argsort((ids[low] >> 16).astype(np.uint16), kind="stable")]
    return np.argsort(ids, kind="stable")


def _values(positions: np.ndarray, new: np.ndarray, starts: np.ndarray, freqs: np.ndarray,
            one_byte: list[bytes]) -> tuple[list[bytes], np.ndarray]:
    """Each posting's positions encoded as `postings.encode_positions` does: a type byte
    ("B", "H", "I": the width of the largest gap) and the first position and the gaps; and
    which of them are `one_byte`'s (`WordPostings.shared`)."""
    gaps = positions.copy()
    gaps[~new] -= positions[np.flatnonzero(~new) - 1]
    top = np.maximum.reduceat(gaps, starts)
    small = (freqs == 1) & (top < 256)  # one_byte's shared values
    values = np.empty(len(starts), object)
    # the shared objects themselves (a block's pickle refers back to a value it met), taken by
    # NumPy's indexing of an object array rather than one list lookup a posting
    shared = np.empty(len(one_byte), object)
    shared[:] = one_byte
    values[small] = shared[positions[starts[small]]]
    widths = ((_B, 1, top < 256), (_H, 2, (top >= 256) & (top < 65536)), (_I, 4, top >= 65536))
    for code, size, fits in widths:
        chosen = fits & ~small
        if not chosen.any():
            continue
        which = np.flatnonzero(chosen)
        lens = 1 + size * freqs[which]
        ends = np.cumsum(lens)
        begins = ends - lens
        buffer = np.zeros(int(ends[-1]), np.uint8)
        buffer[begins] = code
        # the chosen postings' gaps, in order, each `size` bytes in the machine's order (as
        # `array` writes them) after its posting's type byte
        taken = np.repeat(chosen, freqs)
        item_gaps = gaps[taken].astype({1: np.uint8, 2: np.uint16, 4: np.uint32}[size])
        item_at = np.repeat(begins + 1, freqs[which]) + size * (
            np.arange(len(item_gaps)) - np.repeat(np.cumsum(freqs[which]) - freqs[which], freqs[which]))
        body = item_gaps.view(np.uint8).reshape(-1, size)
        for byte in range(size):
            buffer[item_at + byte] = body[:, byte]
        data = buffer.tobytes()
        values[which] = [data[a:b] for a, b in zip(begins.tolist(), ends.tolist(), strict=True)]
    shared_at = np.full(len(starts), -1, np.int64)
    shared_at[small] = positions[starts[small]]
    return values.tolist(), shared_at
