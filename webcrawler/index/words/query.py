"""The query language: keywords by default, plus a few operators beyond 1994.

    words            documents with some or all of the words (OR), ranked by relevance
    "two words"      the words next to each other, in this order (required)
    -word, -"a b"    leave out documents with the word / phrase
    site:host        only documents from this host (or a sub-domain of it)
    type:html        only documents of this type (html, pdf, text, ...: the `type` facet)
    lang:en          only documents in this language (an ISO 639-1 code: the `language` facet)

Anything else is a word. Filters alone (`type:pdf`, `site:host`) list the documents
they let through (`filtered.py`). A query that cannot run - empty, too long, only stop
words, only exclusions - raises `QueryError` with a message for the user; an
unclosed quote closes at the end of the query. Control characters are spaces.
This module never touches the index: it turns text into a Whoosh query and the
query weights the relevance formula needs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from whoosh import query as wq

from webcrawler.index.format.analysis import WORD, words
from webcrawler.index.format.matching import Require
from webcrawler.index.format.schema import CONTENT, host_terms
from webcrawler.index.models import QueryError

MAX_QUERY_CHARS = 1000
MAX_QUERY_WORDS = 32
EXPANSION_WEIGHT = 0.5  # a thesaurus word weighs half a word the user typed
EXPANSIONS_PER_WORD = 3

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_PART = re.compile(r'(-?)"([^"]*)(?:"|$)|(\S+)')


@dataclass
class ParsedQuery:
    """A query, analysed: positive words (in order, repeated as typed), phrases, exclusions."""

    words: list[str] = field(default_factory=list)
    phrases: list[list[str]] = field(default_factory=list)
    excluded: list[list[str]] = field(default_factory=list)  # each: one word or a phrase
    site: str | None = None
    expansions: dict[str, float] = field(default_factory=dict)
    filters: dict[str, str] = field(default_factory=dict)  # index field (kind, lang) -> value
    variants: dict[str, float] = field(default_factory=dict)  # other forms of a word (stemming.py)
    corrections: dict[str, list[str]] = field(default_factory=dict)  # word -> near spellings added
    suggestion: str | None = None  # the query with its typos corrected (spelling.py)

    @property
    def highlight_words(self) -> set[str]:
        return set(self.words) | set(self.expansions) | set(self.variants)

    def terms(self) -> list[str]:
        """Every word that scores: typed, then thesaurus words, then other forms; once each."""
        return list(dict.fromkeys([*self.words, *self.expansions, *self.variants]))

    @property
    def thesaurus_words(self) -> list[str]:
        """The words the thesaurus added (not the near spellings of typos)."""
        near = {w for spellings in self.corrections.values() for w in spellings}
        return [w for w in self.expansions if w not in near]

    def weights(self) -> tuple[dict[str, float], int]:
        """(query weight of each word, number of words in the query) for the relevance."""
        counts: dict[str, float] = dict(Counter(self.words))
        for word, weight in [*self.expansions.items(), *self.variants.items()]:
            counts.setdefault(word, weight)
        return counts, len(self.words)


WORDS_NEEDED = "A real-time search needs at least one word: it follows the links whose text holds them."


def parse_with_words(text: str) -> ParsedQuery:
    """`parse(text)` for a search that must have words (real-time search follows the links
    whose anchor text holds them: filters alone give it nothing to follow)."""
    parsed = parse(text)
    if not parsed.words:
        raise QueryError(WORDS_NEEDED)
    return parsed


def clean(text: str) -> str:
    """The query as it will be run and echoed: control characters as spaces, trimmed."""
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"The query is too long: at most {MAX_QUERY_CHARS} characters, please.")
    return " ".join(_CONTROL.sub(" ", text).split())


def parse(text: str, site: str | None = None) -> ParsedQuery:
    """Analyse the user's query `text` (see the module docstring); `site` adds a site: filter."""
    text = clean(text)
    parsed = ParsedQuery()
    stopped = False
    for match in _PART.finditer(text):
        minus, phrase, token = match.groups()
        if token is not None and token.lower().startswith("site:"):
            parsed.site = _site(token[5:])
            continue
        if token is not None and token.lower().startswith(tuple(FILTERS)):
            name, _, value = token.partition(":")
            parsed.filters[FILTERS[name.lower() + ":"]] = _filter_value(name.lower(), value)
            continue
        if token is not None and token.startswith("-") and len(token) > 1:
            minus, token = "-", token[1:]
        found = list(words(phrase if token is None else token))
        raw = WORD.findall(phrase if token is None else token)
        stopped = stopped or bool(raw and not found)
        if not found:
            continue
        if minus:
            parsed.excluded.append(found)
        elif token is None and len(found) > 1:
            parsed.phrases.append(found)
            parsed.words.extend(found)
        else:
            parsed.words.extend(found)
    if site:
        parsed.site = _site(site)
    if len(parsed.words) > MAX_QUERY_WORDS:
        raise QueryError(f"The query has too many words: at most {MAX_QUERY_WORDS}, please.")
    if not parsed.words and not parsed.filters and not parsed.site:  # filters alone list
        if stopped:  # their documents (filtered.py)
            raise QueryError("The query has only very common words, which are not indexed.")
        if parsed.excluded:
            raise QueryError("Give at least one word to look for, not only -excluded words.")
        raise QueryError("Type one or more words to search for.")
    return parsed


FILTERS = {"type:": "kind", "lang:": "lang"}  # operator -> the index field it filters on
_VALUE = re.compile(r"[a-z0-9][a-z0-9.+-]{0,31}")


def _filter_value(name: str, value: str) -> str:
    value = value.strip().lower()
    if not _VALUE.fullmatch(value):
        raise QueryError(f"{name}: needs a value, for example {name}:{'pdf' if name == 'type' else 'en'}")
    return value


def _site(host: str) -> str:
    terms = host_terms(host.strip().strip("/"))
    if not terms or not all(WORD.search(t) for t in terms):
        raise QueryError("site: needs a host name, for example site:example.org")
    return terms[0]


def expand(parsed: ParsedQuery, synonyms: Callable[[str], list[str]]) -> None:
    """Add thesaurus words for each plain query word, weighted `EXPANSION_WEIGHT`."""
    typed = set(parsed.words)
    for word in dict.fromkeys(parsed.words):
        added = 0
        for synonym in synonyms(word):
            for extra in words(synonym):
                if (
                    added < EXPANSIONS_PER_WORD
                    and extra not in typed
                    and extra not in parsed.expansions
                ):
                    parsed.expansions[extra] = EXPANSION_WEIGHT
                    added += 1


def to_whoosh(parsed: ParsedQuery) -> wq.Query:
    """The Whoosh query: OR over the words (the relevance sums them), phrases and site
    required, exclusions masked out. Only the word terms score."""
    terms = [wq.Term(CONTENT, w) for w in parsed.terms()]
    # A tree of unions on every segment (Whoosh's automatic choice preloads every match
    # of three or more words on small segments: no block skipping).
    q: wq.Query = terms[0] if len(terms) == 1 else wq.compound.DefaultOr(terms)
    needed = required(parsed)
    if needed:
        q = Require(q, needed[0] if len(needed) == 1 else wq.And(needed))
    return without_excluded(q, parsed)


def required(parsed: ParsedQuery) -> list[wq.Query]:
    """What a match must have besides a word: the phrases, the site, the filters."""
    needed: list[wq.Query] = [wq.Phrase(CONTENT, p) for p in parsed.phrases]
    if parsed.site:
        needed.append(wq.Term("host", parsed.site))
    return needed + [wq.Term(name, value) for name, value in sorted(parsed.filters.items())]


def without_excluded(q: wq.Query, parsed: ParsedQuery) -> wq.Query:
    """`q` with the query's -excluded words and phrases masked out."""
    if not parsed.excluded:
        return q
    ex = [wq.Term(CONTENT, e[0]) if len(e) == 1 else wq.Phrase(CONTENT, e) for e in parsed.excluded]
    return wq.AndNot(q, ex[0] if len(ex) == 1 else wq.Or(ex))
