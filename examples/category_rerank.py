"""Category re-ranking of our own search engine's answers (Miller and Bharat 1998, section 4.1).

"querying AltaVista for the term amoeba turns up far more references to the
Amoeba distributed operating system than to the unicellular organism": the
user names a category (here biology, given by a folder of example texts) and
the answers of a search are re-ranked by their similarity to it. As in the
paper, each answer's brief description (its title and snippet) is scored first
("fast") and that ranking shown at once; then the pages themselves are fetched
in that order, best first (the "priority" order), and their full text scored
("slow").

The search engine is ours: the answers come from the index `webcrawler index`
built (read-only, as the query server reads it). Its result pages are not
crawled: the query server's robots.txt keeps robots out of /search, and a
toolkit crawl obeys robots.txt like any other.

    python examples/category_rerank.py [DATA-DIR [QUERY [CATEGORY-FOLDER]]]
    (without a data directory, the bundled loopback web is indexed first)
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

from webcrawler.index import open_searcher
from webcrawler.toolkit import CategoryClassifier, Crawler, Limits, Link, Page

BIOLOGY = Path(__file__).parent / "categories" / "biology"


def answers(data_dir: Path, query: str, count: int = 50) -> list[tuple[int, str, str]]:
    """(rank, URL, title and snippet as text) of the index's best `count` answers."""
    with open_searcher(data_dir / "index") as searcher:
        found = searcher.search(query, per_page=count).hits
    return [(hit.rank, hit.url, hit.title + " " + html.unescape(re.sub(r"<[^>]*>", "", hit.snippet)))
            for hit in found]


class CategoryRerank(Crawler):
    """Fetch the answers best fast score first; score each page's full text (slow)."""

    order = "priority"
    limits = Limits(pages=50, depth=0, seconds=120)  # the answers only: no link is followed

    def __init__(self, found: list[tuple[int, str, str]], category: Path | str = BIOLOGY,
                 **options: Any) -> None:
        self.category = CategoryClassifier({"biology": str(category)})
        self.rank = {url: rank for rank, url, _ in found}
        self.fast = {url: self.category.scores(text)["biology"] for _, url, text in found}
        self.slow: dict[str, float] = {}
        best_first = sorted(self.fast, key=lambda url: (-self.fast[url], self.rank[url]))
        super().__init__(roots=best_first, **options)
        self.classifiers = [*self.classifiers, self.category]

    def should_visit(self, link: Link) -> bool:
        return False  # the answers are the roots; their links are not followed

    def visit(self, page: Page) -> None:
        if page.url in self.rank:
            self.slow[page.url] = float(page.attributes.get("category-score", 0.0))

    def table(self) -> list[tuple[int, float, float | None, str]]:
        """(search engine's rank, fast score, slow score, URL), best slow score first."""
        rows = [(rank, self.fast[url], self.slow.get(url), url) for url, rank in self.rank.items()]
        return sorted(rows, key=lambda r: (-(r[2] if r[2] is not None else r[1]), r[0]))


def main(data_dir: Path, query: str = "amoeba", category: Path | str = BIOLOGY) -> None:
    crawler = CategoryRerank(answers(data_dir, query), category)
    print("fast ranking:", " ".join(crawler.roots), file=sys.stderr)
    summary = crawler.run()
    print("rank   fast   slow  url")
    for rank, fast, slow, url in crawler.table():
        print(f"{rank:4d} {fast:6.3f} {'-' if slow is None else format(slow, '6.3f'):>6}  {url}")
    print(summary.line(), file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:]:
        main(Path(sys.argv[1]), *sys.argv[2:4])
    else:
        from webcrawler.demoweb.toolkitweb import indexed_web

        with indexed_web() as data_dir:
            main(data_dir)
