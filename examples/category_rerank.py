"""Category re-ranking of our own search engine's answers (Miller and Bharat 1998, section 4.1).

"querying AltaVista for the term amoeba turns up far more references to the
Amoeba distributed operating system than to the unicellular organism": the
user names a category (here, biology, given by a folder of example texts) and
the crawler re-ranks a search engine's answers by their similarity to it. As
in the paper, it first scores each answer's brief description (the snippet:
"Fast"), shows that ranking at once, then fetches the pages themselves in
that order ("priority-driven crawling") and scores their full text ("Slow").

The search engine is ours: `webcrawler serve`'s result page is the root, read
by a classifier for its markup (as SPHINX's AltaVista classifier read
AltaVista's), so only the classifier knows what a result page looks like.

    python examples/category_rerank.py [SEARCH-URL [CATEGORY-FOLDER]]
    (SEARCH-URL like http://127.0.0.1:5000/search?q=amoeba; without one, the
     bundled loopback web is indexed and served first)
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from webcrawler.toolkit import CategoryClassifier, Classifier, Crawler, Limits, Link, Page, Regexp

BIOLOGY = Path(__file__).parent / "categories" / "biology"


class ResultsClassifier(Classifier):
    """Reads a webcrawler result page: labels each answer's link ``result`` (its rank and
    snippet as attributes) and the next page of answers ``more-results``."""

    hit = Regexp(r'(?s)<li>\s*<span class="score".*?</li>')
    href = re.compile(r'<a class="title" href="([^"]*)"')
    snippet = re.compile(r'(?s)<p class="snippet">(.*?)</p>')
    title = re.compile(r'(?s)<a class="title"[^>]*>(.*?)</a>')

    def classify(self, page: Page) -> None:
        answers: dict[str, tuple[int, str]] = {}
        for rank, region in enumerate(self.hit.find(page), 1):
            item = page.html[region.start:region.end]
            found = self.href.search(item)
            if found:
                text = " ".join(_text(m[1]) for m in (self.title.search(item),
                                                      self.snippet.search(item)) if m)
                answers[_key(found[1])] = (rank, text)
        for link in page.links:
            if _key(link.url) in answers:
                rank, text = answers[_key(link.url)]
                link.labels.add("result")
                link.attributes.update(rank=str(rank), snippet=text)
            elif link.anchor.startswith("Next"):
                link.labels.add("more-results")


class CategoryRerank(Crawler):
    """Fast scores from snippets, then the pages fetched best-first for the slow scores."""

    order = "priority"
    limits = Limits(pages=60, depth=2, seconds=120)

    def __init__(self, category: Path | str = BIOLOGY, answers: int = 50, **options: Any) -> None:
        self.category = CategoryClassifier({"biology": str(category)})
        super().__init__(**options)
        self.classifiers = [*self.classifiers, ResultsClassifier(), self.category]
        self.answers = answers
        self.rank: dict[str, int] = {}
        self.fast: dict[str, float] = {}
        self.slow: dict[str, float] = {}

    def score(self, text: str) -> float:
        """The category similarity of a piece of text (a snippet)."""
        return self.category.scores(text)["biology"]

    def should_visit(self, link: Link) -> bool:
        if "more-results" in link.labels:
            link.priority = float("inf")  # more answers before any answer's page
            return len(self.rank) < self.answers
        if "result" not in link.labels or len(self.rank) >= self.answers:
            return False
        self.rank[link.url] = len(self.rank) + 1
        self.fast[link.url] = link.priority = self.score(link.attributes["snippet"])
        return True

    def visit(self, page: Page) -> None:
        if page.url in self.rank:
            self.slow[page.url] = float(page.attributes.get("category-score", 0.0))

    def table(self) -> list[tuple[int, float, float | None, str]]:
        """(original rank, fast score, slow score, URL), best slow score first."""
        rows = [(rank, self.fast[url], self.slow.get(url), url) for url, rank in self.rank.items()]
        return sorted(rows, key=lambda r: (-(r[2] if r[2] is not None else r[1]), r[0]))


def _key(url: str) -> str:
    return unquote(html.unescape(url))


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", " ", markup))


def main(argv: list[str]) -> None:
    crawler = CategoryRerank(category=argv[1] if len(argv) > 1 else BIOLOGY, roots=argv[:1])
    summary = crawler.run()
    print("rank   fast   slow  url")
    for rank, fast, slow, url in crawler.table():
        print(f"{rank:4d} {fast:6.3f} {'' if slow is None else format(slow, '6.3f'):>6}  {url}")
    print(summary.line(), file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:]:
        main(sys.argv[1:])
    else:
        from webcrawler.testing.toolkitweb import serve_search

        with serve_search("amoeba") as search_url:
            main([search_url])
