"""Stemming at query time: a query word also finds the other forms of it that the index holds.

The index keeps words as written (an identifier must stay findable as typed). For each
plain word of a query, the Snowball stemmer (PyStemmer, in C) of each language the index
has detected (`text/language.py`, the `lang` facet) gives its stem; the vocabulary words next
to that stem in the index's sorted vocabulary (`vocabulary.py`, the list the speller and
the completer read, kept in step with the commits by `lexicon.py`: a bisection, where
the index's own term lists would be merged segment by segment for every word) starting
with the stem less its last letter, so that "dating" meets "date", whose stem is the
same are its other forms:
"dates" also finds "date" and "dated", "date" also finds "dates". They are added to the
query with `STEM_WEIGHT` (the words typed weigh 1), so a page with the exact form ranks
above a page that only has another form, other things equal, and phrases stay exact.

Nothing changes in how documents are indexed, so index throughput is unchanged, and
old indexes gain stemming without a rebuild; the cost is a scan of at most `SCAN`
vocabulary words per query word, cached by the searcher for the vocabulary's life. Words with digits
or underscores (identifiers, versions) and words shorter than `MIN_CHARS` are left alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import cache

import Stemmer

from webcrawler.index.words.query import ParsedQuery
from webcrawler.index.words.vocabulary import Vocabulary

STEM_WEIGHT = 0.1  # another form of a word weighs a tenth of the word typed (bench/quality.py)
SCAN = 150  # vocabulary words read per query word and language
MAX_FORMS = 4  # other forms added per word, the most frequent first
MIN_CHARS = 3

ALGORITHMS = {  # ISO 639-1 code (as text/language.py detects) -> Snowball algorithm
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french",
    "ga": "irish", "hi": "hindi", "hu": "hungarian", "hy": "armenian", "id": "indonesian",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "nl": "dutch", "no": "norwegian",
    "nb": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "sv": "swedish", "ta": "tamil", "tr": "turkish",
}


@cache
def stemmer(language: str) -> Stemmer.Stemmer | None:
    """The Snowball stemmer of an ISO 639-1 language, or None when there is none."""
    algorithm = ALGORITHMS.get(language)
    return Stemmer.Stemmer(algorithm) if algorithm else None


def stemmable(word: str) -> bool:
    return len(word) >= MIN_CHARS and word.isalpha()


def forms(vocabulary: Vocabulary, word: str, languages: Iterable[str]) -> list[str]:
    """The other forms of `word` in the index's vocabulary under the stemmers of
    `languages`, at most `MAX_FORMS`, the most frequent first."""
    if not stemmable(word):
        return []
    found: set[str] = set()
    for language in languages:
        rule = stemmer(language)
        if rule is None:
            continue
        stem = rule.stemWord(word)
        prefix = os.path.commonprefix([stem[:-1] if len(stem) > MIN_CHARS else stem, word])
        if len(prefix) < MIN_CHARS:
            continue
        nearby = vocabulary.words_from(prefix, SCAN)
        found.update(t for t, s in zip(nearby, rule.stemWords(nearby), strict=True)
                     if s == stem and t != word)
    ranked = sorted(found, key=lambda t: (-vocabulary.frequency(t), t))
    return ranked[:MAX_FORMS]


def add_forms(parsed: ParsedQuery, forms_of: Callable[[str], list[str]]) -> None:
    """Add the other forms of each typed word to `parsed.variants` (not words already in it)."""
    present = set(parsed.words) | set(parsed.expansions)
    for word in dict.fromkeys(parsed.words):
        for form in forms_of(word):
            if form not in present:
                parsed.variants.setdefault(form, STEM_WEIGHT)
