"""Typo tolerance: query words the index lacks (or holds far more rarely than a near
spelling) also match their near spellings, and the query gets a "did you mean".

The near spellings come from the index's own vocabulary (`vocabulary.py`) through
symspellpy's symmetric-delete lookup, chosen over Whoosh's own corrector (a
Levenshtein automaton walked over every term at each lookup) because a lookup is a
few dictionary probes, and a swap of two letters is one edit (docs/search.md has the
measurements). The distance allowed grows with the word:
none up to 3 letters (every short word is near many others), 1 up to 7, 2 beyond.

A near spelling joins the query as an expansion weighing `NEAR_WEIGHT` of a typed
word, so a document with the word as typed still ranks above one with only its
near spelling, and the suggestion replaces each corrected word with its most
frequent near spelling. Words the index holds are corrected only when a near
spelling is `RARER` times as frequent: "sokcet" once in a typo'd page does not
hide "socket", but "node" is not turned into "mode"; for them only the words one
edit away are looked at, which keeps the lookup short.
"""

from __future__ import annotations

import re
from functools import lru_cache, partial

from symspellpy import SymSpell, Verbosity

from webcrawler.index.background import Pacer
from webcrawler.index.words.query import ParsedQuery
from webcrawler.index.words.vocabulary import Vocabulary

NEAR_WEIGHT = 0.8  # a near spelling weighs this much of the word typed
NEAR_PER_WORD = 2  # near spellings added for one word, most frequent first
RARER = 50  # a word in the index is corrected when a near spelling is this many times as frequent
MIN_FREQUENCY = 1  # words in fewer documents are not offered as corrections
MAX_WORDS = 200_000  # the most frequent words loaded (about 0.5 KB of lookup table each)
LOOKUPS_KEPT = 50_000  # words whose near spellings are remembered (queries repeat words)
PREFIX_LENGTH = 7  # symspellpy's: deletes of the first 7 letters (shorter: less memory, and
# each delete of a long word's prefix stands for thousands of words, all measured at a lookup)


def max_distance(word: str) -> int:
    """The edit distance within which `word` is matched: 0 for 3 letters or fewer,
    1 for 4 to 7, 2 for 8 or more (digits count; words of digits only get 0)."""
    if word.isdigit() or len(word) <= 3:
        return 0
    return 1 if len(word) <= 7 else 2


class Speller:
    """Near spellings of words, from one vocabulary (built once; lookups are thread-safe)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self._symspell = SymSpell(max_dictionary_edit_distance=2, prefix_length=PREFIX_LENGTH)
        frequent = [(w, f) for w, f in vocabulary.frequencies.items() if f >= MIN_FREQUENCY]
        frequent.sort(key=lambda item: -item[1])
        pacer = Pacer()  # a query beside this build waits for it a fraction of a millisecond
        for word, frequency in frequent[:MAX_WORDS]:
            if not word.isdigit():
                self._symspell.create_dictionary_entry(word, frequency)
            pacer.step()
        self._highest = frequent[0][1] if frequent else 0
        # Over a function of the parts, not the bound method: a cache that held `self` would
        # make a cycle, and a replaced speller would wait for the cyclic collector.
        self._remembered = lru_cache(maxsize=LOOKUPS_KEPT)(
            partial(_near, self._symspell, vocabulary, self._highest))

    def near(self, word: str) -> list[str]:
        """`word`'s near spellings worth adding to a query, best first ([] when the word
        is short, or frequent enough, or nothing is near). Answers are remembered."""
        return list(self._remembered(word))


def _near(symspell: SymSpell, vocabulary: Vocabulary, highest: int, word: str) -> tuple[str, ...]:
    distance = max_distance(word)
    own = vocabulary.frequency(word)
    if not distance or RARER * own > highest:  # no word is frequent enough to win
        return ()
    if own:  # the word itself is at distance 0: ask for all, but only one edit away
        found = symspell.lookup(word, Verbosity.ALL, max_edit_distance=1)
    else:  # the nearest only: far fewer candidates to measure
        found = symspell.lookup(word, Verbosity.CLOSEST, max_edit_distance=distance)
    found = [s for s in found if s.term != word and s.count >= max(1, RARER * own)]
    found.sort(key=lambda s: (s.distance, -s.count, s.term))
    return tuple(s.term for s in found[:NEAR_PER_WORD])


def correct(parsed: ParsedQuery, speller: Speller | None, text: str) -> None:
    """Add the near spellings of `parsed`'s words as weighted expansions, and set
    `parsed.suggestion` to `text` (the query as typed) with each corrected word replaced
    by its best near spelling; None when nothing needed correcting."""
    if speller is None:
        return
    for word in dict.fromkeys(parsed.words):
        near = speller.near(word)
        if near:
            parsed.corrections[word] = near
            for extra in near:
                if parsed.expansions.get(extra, 0.0) < NEAR_WEIGHT:
                    parsed.expansions[extra] = NEAR_WEIGHT
    if parsed.corrections:
        parsed.suggestion = suggestion(text, {w: near[0] for w, near in parsed.corrections.items()})


def suggestion(text: str, replacements: dict[str, str]) -> str:
    """`text` with each word found (lower-cased) in `replacements` replaced."""

    def replace(match: re.Match[str]) -> str:
        return replacements.get(match.group(0).lower(), match.group(0))

    return re.sub(r"\w+", replace, " ".join(text.split()))
