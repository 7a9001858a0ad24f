"""CategoryClassifier: how alike a page is to categories given by example documents.

SPHINX section 2.1: "CategoryClassifier scores a page according to its
similarity to various categories ... A category is represented by a collection
of documents ... The match between a page and a category is computed using a
Vector Space document/collection similarity metric [Salton88]."

The vectors use the WebCrawler's own weighting (webcrawler/index/search/weighting.py,
through its plain function `word_weight`, and the index's `words`): a word's
weight is its peculiarity, its frequency in the text over its frequency in a
reference domain - here all the example documents together. A page's score for
a category is the cosine of the two weight vectors. Examples are folders of
files (.html, .htm, .txt, ...) or lists of URLs, which are retrieved by a small
toolkit crawl (agents, robots.txt, politeness, like any other fetch).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from webcrawler.errors import ToolkitError
from webcrawler.index.format.analysis import TITLE_WEIGHT, words
from webcrawler.index.search.weighting import word_weight
from webcrawler.toolkit.classifiers import Classifier
from webcrawler.toolkit.markup import text_between
from webcrawler.toolkit.model import Page

Examples = str | Path | Iterable[str]
TEXT_SUFFIXES = (".html", ".htm", ".txt", ".text", ".md", "")


class CategoryClassifier(Classifier):
    """Sets `attributes["category"]` (the best category) and `["category-score"]` (0..1) on
    each page; `scores(text, title)` gives every category's score."""

    def __init__(self, categories: Mapping[str, Examples], **crawl: Any) -> None:
        if not categories:
            raise ToolkitError("CategoryClassifier needs at least one category")
        counts = {name: _counts(_texts(examples, crawl)) for name, examples in categories.items()}
        self.reference: Counter[str] = Counter()
        for count in counts.values():
            self.reference.update(count)
        self.total = float(sum(self.reference.values()))
        self.mu = self.total / max(1, len(counts))
        self.vectors = {name: self._vector(count) for name, count in counts.items()}

    def classify(self, page: Page) -> None:
        scores = self.scores(page.text, page.title)
        best = max(scores, key=lambda name: scores[name])
        page.attributes["category"] = best
        page.attributes["category-score"] = f"{scores[best]:.4f}"

    def scores(self, text: str, title: str = "") -> dict[str, float]:
        """Category name -> cosine similarity of `text` (and its title) to the category."""
        count = dict[str, float](Counter(words(text)))
        for word in words(title):
            count[word] = count.get(word, 0.0) + TITLE_WEIGHT
        page = self._vector(count)
        return {name: _cosine(page, vector) for name, vector in self.vectors.items()}

    def _vector(self, count: Mapping[str, float]) -> dict[str, float]:
        length = float(sum(count.values()))
        return {word: word_weight(tf, length, self.reference.get(word, 0.0), self.total, self.mu)
                for word, tf in count.items()}


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    dot = sum(weight * b.get(word, 0.0) for word, weight in a.items())
    norm = math.sqrt(sum(w * w for w in a.values())) * math.sqrt(sum(w * w for w in b.values()))
    return dot / norm if norm else 0.0


def _counts(texts: Iterable[str]) -> Counter[str]:
    count: Counter[str] = Counter()
    for text in texts:
        count.update(words(text))
    return count


def _texts(examples: Examples, crawl: dict[str, Any]) -> list[str]:
    """The example documents' text: a folder's files, or the pages at a list of URLs."""
    if isinstance(examples, (str, Path)) and Path(examples).is_dir():
        return [_file_text(path) for path in sorted(Path(examples).rglob("*"))
                if path.is_file() and path.suffix.lower() in TEXT_SUFFIXES]
    if isinstance(examples, (str, Path)):
        raise ToolkitError(f"category examples {str(examples)!r}: not a folder (give a folder of "
                         "files or a list of URLs)")
    return _fetch(list(examples), crawl)


def _file_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() in (".html", ".htm"):
        return text_between(text, 0, len(text))
    return text


def _fetch(urls: list[str], crawl: dict[str, Any]) -> list[str]:
    """Retrieve `urls` (no links followed) with a toolkit crawl; their titles and texts."""
    from webcrawler.toolkit.crawler import Crawler
    from webcrawler.toolkit.model import Limits

    texts: list[str] = []
    fetcher = Crawler(roots=urls, limits=Limits(depth=0, pages=len(urls), seconds=120),
                      classifiers=[], **crawl)
    fetcher.on("page-visited", lambda page: texts.append(f"{page.title} {page.text}"))
    fetcher.run()
    return texts
