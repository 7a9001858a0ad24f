"""The index's own vocabulary, as the query side reads it: words, their document
frequencies, and the titles people are likely to type.

Spelling correction (`spelling.py`) and autocomplete (`completion.py`) need every word
of the content field with the number of documents holding it. Whoosh's
`iter_field` decodes a full term info object per word; this module reads the
document frequency straight out of each W3 segment's terms table (one struct
field per word) and sums the segments, far faster (docs/search.md).
Segments of another codec go Whoosh's way. Deleted documents still count until
their segment is merged: a frequency is a hint for ranking suggestions, not a count.

Titles are read from the stored fields of at most `MAX_TITLE_DOCS` documents,
lower-cased and reduced to their words: the "likely queries" that complete a
half-typed query, and the words the search box's placeholder is drawn from.
This module never writes to the index.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import islice

from whoosh.index import Index
from whoosh.reading import IndexReader

from webcrawler.index.background import Pacer
from webcrawler.index.format.analysis import STOP_WORDS, WORD
from webcrawler.index.format.blocks import is_w3
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.format.segments import doc_frequency, field_terms

MAX_TITLE_DOCS = 100_000  # documents whose titles are read (each one's stored fields are unpickled)
MAX_TITLE_CHARS = 80  # a longer title is no query anyone types
PLACEHOLDER_WORDS = 3

_SEPARATOR = re.compile(r"\s+[-|\u2013\u2014\u00b7]\s+")  # "page - site", "page | site", en/em dash


@dataclass(frozen=True)
class Vocabulary:
    """Words sorted, with document frequencies; titles sorted, with how many documents
    share each. `generation` is the commit it was read from (-1: an empty index)."""

    generation: int = -1
    words: list[str] = field(default_factory=list)
    frequencies: dict[str, int] = field(default_factory=dict)
    titles: list[str] = field(default_factory=list)
    title_counts: dict[str, int] = field(default_factory=dict)
    title_words: tuple[str, ...] = ()  # the most frequent title words, most frequent first

    def frequency(self, word: str) -> int:
        """Documents holding `word` (0: not in the index)."""
        return self.frequencies.get(word, 0)

    def words_from(self, prefix: str, limit: int | None = None) -> list[str]:
        """The words starting with `prefix`, in sorted order (the first `limit`)."""
        return _starting(self.words, prefix, limit)

    def titles_from(self, prefix: str) -> list[str]:
        """The normalised titles starting with `prefix`, in sorted order."""
        return _starting(self.titles, prefix)


def _starting(items: list[str], prefix: str, limit: int | None = None) -> list[str]:
    low = bisect.bisect_left(items, prefix)
    high = bisect.bisect_left(items, prefix + "\U0010ffff", low, len(items) if limit is None
                              else min(len(items), low + limit))
    return items[low:high]


def normalise_title(title: str) -> str:
    """A title as a query: its words before a site-name separator ("socket - Python 3.11
    documentation" -> "socket"), lower-cased, one space apart ("" when too long)."""
    text = " ".join(WORD.findall(_SEPARATOR.split(title, 1)[0].lower()))
    return text if len(text) <= MAX_TITLE_CHARS else ""


def read_vocabulary(ix: Index, remembered: dict | None = None) -> Vocabulary:
    """The vocabulary of the newest commit of `ix` (opens and closes its own reader, so
    it may run in any thread beside the searcher queries use). It stands aside while
    queries run (`background.py`). With `remembered` (a dict the caller keeps
    between reads), what each segment held is remembered there: segments never change,
    so a read after a commit reads only the segments the commit wrote."""
    remembered = {} if remembered is None else remembered
    seen: set[tuple] = set()
    with ix.searcher() as searcher:
        generation = searcher.reader().generation()
        frequencies: Counter[str] = Counter()
        titles: Counter[str] = Counter()
        budget = MAX_TITLE_DOCS
        for sub, _offset in searcher.leaf_searchers():
            segment = sub.reader()
            name = _segment_name(segment)
            words_key = ("words", name)
            if name is None or words_key not in remembered:
                remembered[words_key] = _frequencies(segment)
            frequencies.update(remembered[words_key])
            titles_key = ("titles", name, segment.doc_count(), min(budget, segment.doc_count()))
            if name is None or titles_key not in remembered:
                remembered[titles_key] = _titles(segment, budget)
            titles.update(remembered[titles_key])
            budget -= min(budget, segment.doc_count())
            seen.update((words_key, titles_key))
    for key in set(remembered) - seen:  # segments merged away
        del remembered[key]
    titles.pop("", None)
    return Vocabulary(
        generation=-1 if generation is None else generation,
        words=sorted(frequencies),
        frequencies=dict(frequencies),
        titles=sorted(titles),
        title_counts=dict(titles),
        title_words=_title_words(titles),
    )


def _segment_name(reader: IndexReader) -> str | None:
    segment = reader.segment() if hasattr(reader, "segment") else None
    return None if segment is None else str(segment.segment_id())


def _frequencies(reader: IndexReader) -> Counter[str]:
    found: Counter[str] = Counter()
    _add_frequencies(reader, found)
    return found


def _titles(reader: IndexReader, budget: int) -> Counter[str]:
    """The normalised titles of a segment's first `budget` live documents."""
    titles: Counter[str] = Counter()
    pacer = Pacer()
    for fields in islice(reader.all_stored_fields(), budget):
        titles[normalise_title(fields.get("title", ""))] += 1
        pacer.step()
    return titles


def _add_frequencies(reader: IndexReader, frequencies: Counter[str]) -> None:
    """Add one segment's document frequencies of the content field to `frequencies`."""
    if not is_w3(reader):
        for term, info in reader.iter_field(CONTENT):
            frequencies[term.decode("utf-8")] += info.doc_frequency()
        return
    pacer = Pacer()
    for word, raw in field_terms(reader, CONTENT):
        frequencies[word] += doc_frequency(raw)
        pacer.step()


def _title_words(titles: Counter[str]) -> tuple[str, ...]:
    """The words found in most titles: letters only, three or more, no stop words."""
    counts: Counter[str] = Counter()
    for title, count in titles.items():
        for word in set(title.split()):
            if len(word) >= 3 and word.isalpha() and word not in STOP_WORDS:
                counts[word] += count
    return tuple(word for word, _count in counts.most_common(PLACEHOLDER_WORDS))
