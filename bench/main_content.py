"""Main content against boilerplate: extractors measured on speed and on known-item quality.

    python -m bench.main_content [--json bench/results/main_content.json] [--libraries]

The test web's 2,036 documentation pages and bench.quality's 300 judged queries (held out
from the heuristic's design: back-of-book index entries), indexed as the crawl indexes them
(the agent's parse, the links' anchor texts and counts), once per way of telling a page's
main content from its boilerplate:

- all text: no telling (the index before main content);
- the agent's heuristic (`agents/parse.py`'s `main_text`): navigation, banners, sidebars and
  footers dropped, the page's own outline among them kept;
- blocks repeated across a site: a block of text (the text between two block elements)
  found on at least 5% of its site's pages, and at least 3, is boilerplate;
- with `--libraries`: trafilatura and readability-lxml (installed by hand: not dependencies).

Speed is the extraction's CPU milliseconds a page, the agent's parse included (the parse
alone is the "all text" row), best of three rounds over every seventh page; the repeated
blocks' time is one pass over all pages, the site-wide count included. Quality is MRR@10
and success@10; "won / lost" counts the queries whose first relevant result ranks higher /
lower than with all text.

Needs the documentation packages (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import publish, table  # noqa: E402
from bench.quality import build, pages, sample_queries, with_anchors  # noqa: E402
from webcrawler.agents.charset import decode  # noqa: E402
from webcrawler.agents.parse import parse_html  # noqa: E402
from webcrawler.index import IndexedDocument, QueryError, open_searcher  # noqa: E402

REPEATED_SHARE, REPEATED_PAGES = 0.05, 3  # a block on this share of a site's pages, and this many
HOW: dict[str, Callable[[str, str], object]] = {}  # variant -> its extraction, timed apart


def extract_all(found: list[tuple[str, Path]], how: Callable[[str, str], tuple[str, str]]
                ) -> tuple[list[tuple[str, str]], float]:
    """(title, text) of every page by `how`, and its milliseconds a page."""
    out, spent = [], 0.0
    for _site, path in found:
        html = decode(path.read_bytes(), "text/html")[0]
        started = time.perf_counter()
        out.append(how(html, path.as_uri()))
        spent += time.perf_counter() - started
    return out, spent / len(found) * 1000


def speed(found: list[tuple[str, Path]], how: Callable[[str, str], object]) -> float:
    """CPU milliseconds a page of `how`, best of three rounds over every seventh page (so
    that a loaded machine's pauses fall on some rounds only)."""
    sample = [(decode(path.read_bytes(), "text/html")[0], path.as_uri()) for _s, path in found[::7]]
    rounds = []
    for _round in range(3):
        started = time.process_time()
        for html, url in sample:
            how(html, url)
        rounds.append(time.process_time() - started)
    return min(rounds) / len(sample) * 1000


def all_text(html: str, url: str) -> tuple[str, str]:
    parsed = parse_html(html, url, main_content=False)
    return parsed.title, parsed.text


def heuristic(html: str, url: str) -> tuple[str, str]:
    parsed = parse_html(html, url, main_content=True)
    return parsed.title, parsed.text


def trafilatura_text(html: str, url: str) -> tuple[str, str]:
    import trafilatura

    parsed = parse_html(html, url)
    main = trafilatura.extract(html, include_comments=False, include_tables=True,
                               favor_recall=True, deduplicate=False) or ""
    return parsed.title, " ".join(main.split()) or parsed.text


def readability_text(html: str, url: str) -> tuple[str, str]:
    from lxml import etree
    from readability import Document

    parsed = parse_html(html, url)
    try:
        summary = Document(html).summary(html_partial=True)
        main = " ".join(" ".join(etree.HTML(summary).itertext()).split()) if summary else ""
    except Exception:  # noqa: BLE001 - a page it cannot read keeps all its text
        main = ""
    return parsed.title, main or parsed.text


def repeated_blocks(found: list[tuple[str, Path]]) -> tuple[list[tuple[str, str]], float]:
    """Blocks repeated across a site's pages as its boilerplate (two passes over the site)."""
    from lxml import etree

    from webcrawler.agents import parse

    lines_xslt = etree.XSLT(etree.XML(parse._TEXT_XSLT.replace(  # noqa: SLF001 - a bench variant
        "<xsl:text> </xsl:text><xsl:apply-templates/><xsl:text> </xsl:text>",
        "<xsl:text>&#10;</xsl:text><xsl:apply-templates/><xsl:text>&#10;</xsl:text>")))

    def blocks(html: str, url: str) -> tuple[str, str]:
        parsed = parse_html(html, url, main_content=False)
        root = parse._tree(html)  # noqa: SLF001
        lines = [" ".join(line.split()) for line in str(lines_xslt(root)).split("\n")]
        return parsed.title, "\n".join(line for line in lines if line)

    pages_blocks, ms = extract_all(found, blocks)
    started = time.perf_counter()
    seen: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for (site, _path), (_title, text) in zip(found, pages_blocks, strict=True):
        seen[site].update(set(text.split("\n")))
    size = collections.Counter(site for site, _path in found)
    out = []
    for (site, _path), (title, text) in zip(found, pages_blocks, strict=True):
        cut = max(REPEATED_PAGES, REPEATED_SHARE * size[site])
        out.append((title, " ".join(line for line in text.split("\n") if seen[site][line] < cut)))
    return out, ms + (time.perf_counter() - started) / len(found) * 1000


def ranks(index_dir: Path, queries: list) -> list[int]:
    """The rank of each query's first relevant result (0: not in the top 10)."""
    found = []
    with open_searcher(index_dir) as searcher:
        for _site, query, links in queries:
            try:
                hits = searcher.search(query, per_page=10).hits
            except QueryError:
                hits = []
            found.append(next((h.rank for h in hits if h.url in links), 0))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--libraries", action="store_true",
                        help="also trafilatura and readability-lxml (installed by hand)")
    args = parser.parse_args()
    found = pages()
    base_rows, base_ms = extract_all(found, all_text)
    docs = [IndexedDocument(i, path.as_uri(), title, text, f"{site}.docs.test")
            for i, ((site, path), (title, text)) in enumerate(zip(found, base_rows, strict=True), 1)]
    docs = with_anchors(docs, {d.url: site for (site, _p), d in zip(found, docs, strict=True)},
                        {d.url: path for (_s, path), d in zip(found, docs, strict=True)})
    queries = sample_queries({d.url for d in docs})
    heuristic_rows, heuristic_ms = extract_all(found, heuristic)
    repeated_rows, repeated_ms = repeated_blocks(found)
    HOW.update({"all text (--all-text)": all_text,
                "heuristic: boilerplate dropped, outline kept (default)": heuristic,
                "trafilatura 2.3": trafilatura_text, "readability-lxml 0.9": readability_text})
    variants = [
        ("all text (--all-text)", base_rows, base_ms),
        ("heuristic: boilerplate dropped, outline kept (default)", heuristic_rows, heuristic_ms),
        ("blocks repeated across a site dropped", repeated_rows, repeated_ms),
    ]
    if args.libraries:
        for name, how in (("trafilatura 2.3", trafilatura_text), ("readability-lxml 0.9",
                                                                  readability_text)):
            rows, ms = extract_all(found, how)
            variants.append((name, rows, ms))
    results: list[tuple[str, float, float, float, str]] = []
    baseline: list[int] = []
    for name, rows, ms in variants:
        ms = speed(found, HOW[name]) if name in HOW else ms
        indexed = [replace(d, title=title, text=text)
                   for d, (title, text) in zip(docs, rows, strict=True)]
        with tempfile.TemporaryDirectory() as tmp:
            build(Path(tmp) / "index", indexed)
            got = ranks(Path(tmp) / "index", queries)
        baseline = baseline or got
        won = sum(1 for a, b in zip(got, baseline, strict=True) if a and (not b or a < b))
        lost = sum(1 for a, b in zip(got, baseline, strict=True) if b and (not a or a > b))
        mrr = sum(1 / r for r in got if r) / len(got)
        results.append((name, ms, mrr, sum(1 for r in got if r) / len(got), f"{won} / {lost}"))
        print(results[-1], flush=True)
    body = (f"{len(docs):,} pages, {len(queries)} judged queries (bench.quality's).\n\n"
            + table(["main content", "ms a page", "MRR@10", "success@10", "won / lost"],
                    [(n, ms, f"{mrr:.3f}", f"{s:.3f}", wl) for n, ms, mrr, s, wl in results]))
    default = results[1]
    publish("Main content: extractors on speed and known-item quality", body, args.json,
            headline=f"MRR@10 {default[2]:.3f} with main content (all text {results[0][2]:.3f}), "
                     f"{default[1] - results[0][1]:+.2f} ms a page",
            goal="known-item quality does not drop (within one query)",
            met=default[2] >= results[0][2] - 1 / len(queries))


if __name__ == "__main__":
    main()
