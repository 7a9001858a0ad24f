"""Autocomplete: what a half-typed query may become, from the index's own vocabulary.

Two kinds of completion, from one `Vocabulary` (sorted lists, searched by bisection):
the last word completed with the index's words that start with it, most documents
first, the words before it kept as typed; and likely queries, the titles that start
with everything typed, most shared first. Titles take at most half the places, so
a word completion is never crowded out by long titles. The longest part of a lookup
is picking the most frequent of the words under a short prefix; the picks of prefixes
of up to `MEMO_PREFIX` letters are remembered for the life of the vocabulary, the
`MEMO_ENTRIES` used last: anyone may ask /api/suggest, and three letters of Unicode are
more prefixes than memory holds (unbounded, one client grew the server by 0.5 KB a request).
Never touches the index itself: a query of several words is completed in their
context by the caller's `together` (`cooccurrence.py`), which keeps the completions of
the last word that share a document with the words before it; those come first, and
a completion whose words never meet is not offered ("json d" offers "json dumps", not
"json delattr").
"""

from __future__ import annotations

import heapq
import re
import threading
from collections import OrderedDict
from collections.abc import Callable

from webcrawler.index.format.analysis import words as index_words
from webcrawler.index.words.vocabulary import Vocabulary, normalise_title

# (earlier words, candidates, at most how many) -> the candidates kept, in their order
Together = Callable[[list[str], list[str], int], list[str]]

MAX_SUGGESTIONS = 20
CONTEXT_POOL = 100  # frequent completions of the last word checked against the words before it
MEMO_PREFIX = 3  # picks for prefixes this short are remembered (they cover many entries)
MEMO_ENTRIES = 4096  # at most this many (the least recently used go): ~2 MB at most

_LAST_WORD = re.compile(r"(\w+)$")


class Completer:
    """Completions over one vocabulary; thread-safe."""

    def __init__(self, vocabulary: Vocabulary, memo_entries: int = MEMO_ENTRIES) -> None:
        self.vocabulary = vocabulary
        self._memo: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        self._memo_entries = memo_entries
        self._lock = threading.Lock()

    @property
    def remembered(self) -> int:
        """How many picks are remembered now (at most `memo_entries`)."""
        return len(self._memo)

    def complete(self, text: str, n: int, together: Together | None = None) -> list[str]:
        """At most `n` completions of `text`, word completions first; [] for blank text.
        With earlier words and `together`, only completions of the last word that
        `together` finds beside them (in some document) are offered."""
        if not text.strip() or n < 1:
            return []
        typed = " ".join(text.split())
        match = _LAST_WORD.search(text)  # None when the last word is finished (a space after it)
        words: list[str] = []
        if match:
            head = typed[: len(typed) - len(match.group(1))]
            earlier = _earlier_words(head)
            prefix = match.group(1).lower()
            if earlier and together is not None:
                picked = together(earlier, self._frequent_words(prefix, CONTEXT_POOL), n)
            else:
                picked = self._frequent_words(prefix, n)
            words = [head + word for word in picked]
        start = normalise_title(typed)
        titles = self._frequent_titles(start if match else start + " ", n)
        titles = [t for t in titles if t not in words and t != typed.lower()]
        keep = n - min(len(titles), n // 2)
        out = words[:keep]
        return out + titles[: n - len(out)]

    def _frequent_words(self, prefix: str, n: int) -> list[str]:
        return self._remembered("w", prefix, n, self._pick_words)

    def _frequent_titles(self, prefix: str, n: int) -> list[str]:
        if not prefix.strip():
            return []
        return self._remembered("t", prefix, n, self._pick_titles)

    def _remembered(self, kind: str, prefix: str, n: int,
                    pick: Callable[[str, int], list[str]]) -> list[str]:
        """pick(prefix, n), remembered for short prefixes (they cover the most entries)."""
        if len(prefix) > MEMO_PREFIX:
            return pick(prefix, n)
        key = (kind, prefix)
        with self._lock:
            memo = self._memo.get(key)
            if memo is not None:
                self._memo.move_to_end(key)
        if memo is None:
            memo = pick(prefix, max(MAX_SUGGESTIONS, CONTEXT_POOL))
            with self._lock:
                self._memo[key] = memo
                while len(self._memo) > self._memo_entries:
                    self._memo.popitem(last=False)
        return memo[:n]

    def _pick_words(self, prefix: str, n: int) -> list[str]:
        frequency = self.vocabulary.frequencies.__getitem__
        found = self.vocabulary.words_from(prefix)
        return heapq.nsmallest(n, found, key=lambda w: (-frequency(w), w))

    def _pick_titles(self, prefix: str, n: int) -> list[str]:
        count = self.vocabulary.title_counts.__getitem__
        found = self.vocabulary.titles_from(prefix)
        return heapq.nsmallest(n, found, key=lambda t: (-count(t), len(t), t))


def _earlier_words(head: str) -> list[str]:
    """The indexed words of the query before its last word: operators (site:, type:) and
    -excluded words left out, as they do not have to be in the document."""
    kept = [part for part in head.split() if ":" not in part and not part.startswith("-")]
    return index_words(" ".join(kept))
