"""Ranking quality of the index on the test web's documentation sites.

The judged queries come from the sites' own back-of-book indexes (Sphinx
genindex pages, PostgreSQL's bookindex): an index entry names a term and points
at the pages that treat it, so the entry's words are a query and those pages are
the relevant answers. The index pages themselves are indexed like any crawled
page (a real crawl retrieves them; they are the hub pages a ranking must not
prefer) but are never counted as relevant.

    python bench/quality.py                      # quality table (peculiarity vs BM25F)
    python bench/quality.py --variants           # + the weighting variants measured
    python bench/quality.py --scale 50000        # + throughput and latency at 50k docs

The pages' links give each page the anchor texts of links to it (from another
site, or from its own: navigation), as the crawl's links table would; the
"plain" index leaves them and the URL words out, as the index was before them,
and Whoosh's BM25F runs on it (stock Whoosh knows neither).

Needs the documentation packages (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urldefrag

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dataclasses import replace  # noqa: E402

from bench import typos  # noqa: E402
from bench.common import save, section  # noqa: E402
from webcrawler.agents.parse import HEADINGS, MAX_HEADINGS, heading_texts  # noqa: E402
from webcrawler.index import IndexedDocument, QueryError, open_searcher, open_writer  # noqa: E402
from webcrawler.index.format import schema  # noqa: E402

SITES = {
    "python": Path("/usr/share/doc/python3.11/html"),
    "postgresql": Path("/usr/share/doc/postgresql-doc-15/html"),
    "git": Path("/usr/share/doc/git-doc"),
    "flask": Path("/usr/share/doc/python-flask-doc/html"),
    "requests": Path("/usr/share/doc/python-requests-doc/html"),
}
QUOTA = {"python": 140, "postgresql": 110, "flask": 35, "requests": 15}  # judged queries
SKIP_DIRS = {"_sources", "_static", "_images", "_modules", "_downloads"}
DATA = Path(__file__).resolve().parent / "data" / "queries.tsv"
SEED = 1994
PARENS = re.compile(
    r"\((?:in )?(?:module|class|built-in function|function|method|attribute|exception|"
    r"data|statement|keyword|object)?\s*([^)]*)\)"
)


def pages() -> list[tuple[str, Path]]:
    found = []
    for site, root in SITES.items():
        for path in sorted(root.rglob("*.html")):
            if not SKIP_DIRS.intersection(path.relative_to(root).parts):
                found.append((site, path))
    return found


def parse_page(doc_id: int, site: str, path: Path, text_from: str = "lxml") -> IndexedDocument | None:
    """The page as the index gets it: its whole text_content() ("lxml"), or the agent's text,
    all of it ("agent") or its main content ("main", agents/parse.py's main_text)."""
    if text_from != "lxml":
        from webcrawler.agents.charset import decode
        from webcrawler.agents.parse import parse_html

        parsed = parse_html(decode(path.read_bytes(), "text/html")[0], path.as_uri(),
                            main_content=text_from == "main")
        return IndexedDocument(doc_id, path.as_uri(), parsed.title, parsed.text, f"{site}.docs.test",
                               headings=parsed.headings)
    try:
        tree = lxml.html.fromstring(path.read_bytes())
    except (ValueError, lxml.etree.ParserError):
        return None
    for bad in tree.xpath("//script|//style|//noscript"):
        bad.drop_tree()
    title = " ".join((tree.findtext(".//title") or "").split())
    text = " ".join(tree.text_content().split())
    found = heading_texts(list(tree.iter(*HEADINGS))[:MAX_HEADINGS])
    return IndexedDocument(doc_id, path.as_uri(), title, text, f"{site}.docs.test", headings=found)


def page_links(path: Path) -> list[tuple[str, str]]:
    """(target page URI, anchor text) of a page's relative links."""
    try:
        tree = lxml.html.fromstring(path.read_bytes())
    except (ValueError, lxml.etree.ParserError):
        return []
    found = []
    for a in tree.xpath("//a[@href]"):
        targets = _targets(path, [a.get("href")])
        text = " ".join(a.text_content().split())
        found += [(target, text) for target in targets if text]
    return found


def with_anchors(docs: list[IndexedDocument], sites: dict[str, str],
                 paths: dict[str, Path]) -> list[IndexedDocument]:
    """`docs` with the anchor texts of the links to them (other sites', their own site's) and
    their link counts (distinct pages linking to them, pages they link to), as the engine
    reads them from the links table."""
    other: dict[str, list[str]] = {}
    own: dict[str, list[str]] = {}
    inlinks: dict[str, int] = {}
    outlinks: dict[str, int] = {}
    for doc in docs:
        links = [(t, text) for t, text in page_links(paths[doc.url]) if t in sites and t != doc.url]
        for target, text in links:
            (own if sites[target] == sites[doc.url] else other).setdefault(target, []).append(text)
        outlinks[doc.url] = len({t for t, _text in links})
        for target in {t for t, _text in links}:
            inlinks[target] = inlinks.get(target, 0) + 1
    return [replace(d, anchors=tuple(other.get(d.url, ())), site_anchors=tuple(own.get(d.url, ())),
                    inlinks=inlinks.get(d.url, 0), outlinks=outlinks.get(d.url, 0)) for d in docs]


def _clean_term(term: str) -> str:
    term = PARENS.sub(lambda m: " " + m.group(1), term.replace("()", " "))
    return " ".join(re.sub(r"[^\w.\- ]", " ", term).split())


def _targets(base: Path, hrefs: list[str]) -> set[str]:
    out = set()
    for href in hrefs:
        href = urldefrag(href)[0]
        if href and "://" not in href:
            out.add((base.parent / href).resolve().as_uri())
    return out


def judged_entries() -> list[tuple[str, str, set[str]]]:
    """(site, query, relevant page URIs) from the back-of-book index pages."""
    entries = []
    for site in ("python", "flask", "requests"):
        for page in sorted(SITES[site].glob("genindex*.html")):
            tree = lxml.html.fromstring(page.read_bytes())
            for li in tree.xpath("//table[contains(@class,'indextable')]//li"):
                own = li.text or (li[0].text_content() if len(li) and li[0].tag == "a" else "")
                parent = li.xpath("ancestor::li[1]")
                if parent:
                    pl = parent[0]
                    own = (pl.text or (pl[0].text_content() if len(pl) else "")) + " " + own
                links = _targets(page, li.xpath("./a/@href"))
                if own.strip() and links:
                    entries.append((site, _clean_term(own), links))
    page = SITES["postgresql"] / "bookindex.html"
    tree = lxml.html.fromstring(page.read_bytes())
    for dt in tree.xpath("//dt"):
        own = (dt.text or "").rstrip(", ")
        parent = dt.xpath("ancestor::dd[1]/preceding-sibling::dt[1]")
        if parent:
            own = (parent[0].text or "").rstrip(", ") + " " + own
        links = _targets(page, dt.xpath("./a/@href"))
        if own.strip() and links:
            entries.append(("postgresql", _clean_term(own), links))
    return entries


def sample_queries(indexed: set[str]) -> list[tuple[str, str, set[str]]]:
    rng = random.Random(SEED)
    by_site: dict[str, list] = {}
    seen = set()
    for site, query, links in judged_entries():
        links &= indexed
        if query and links and query.lower() not in seen:
            seen.add(query.lower())
            by_site.setdefault(site, []).append((site, query, links))
    chosen = []
    for site, quota in QUOTA.items():
        pool = by_site.get(site, [])
        chosen.extend(rng.sample(pool, min(quota, len(pool))))
    return chosen


TESTWEB_URLS = {"python": "http://127.0.1.1:8080/", "postgresql": "http://127.0.1.2:8080/",
                "flask": "http://127.0.1.4:8080/", "requests": "http://127.0.1.5:8080/"}


def crawled_queries() -> list[tuple[str, str, set[str]]]:
    """The saved judged queries (DATA), each relevant page named by the URL the test web
    serves it at, as a crawl of the test web indexes it."""
    prefixes = {SITES[site].resolve().as_uri() + "/": url for site, url in TESTWEB_URLS.items()}
    queries = []
    for line in DATA.read_text(encoding="utf-8").splitlines()[1:]:
        site, query, relevant = line.split("\t")
        pages = set()
        for uri in relevant.split():
            prefix = next((p for p in prefixes if uri.startswith(p)), "")
            pages.add(prefixes[prefix] + uri[len(prefix):] if prefix else uri)
        queries.append((site, query, pages))
    return queries


def save_queries(queries: list[tuple[str, str, set[str]]]) -> None:
    DATA.parent.mkdir(parents=True, exist_ok=True)
    with DATA.open("w", encoding="utf-8") as out:
        out.write("site\tquery\trelevant\n")
        for site, query, links in queries:
            out.write(f"{site}\t{query}\t{' '.join(sorted(links))}\n")


def build(index_dir: Path, docs: list[IndexedDocument], batch: int = 200, plain: bool = False) -> float:
    """Index `docs` in crawl-sized batches, committing each; returns docs/s. `plain`: without
    URL words and anchor texts (the index as it was before them)."""
    started = time.perf_counter()
    before = schema.extras
    schema.extras = (lambda doc: ()) if plain else before
    try:
        writer = open_writer(index_dir)
        for i in range(0, len(docs), batch):
            writer.add(docs[i : i + batch])
            writer.commit()
        writer.close()
    finally:
        schema.extras = before
    return len(docs) / (time.perf_counter() - started)


def evaluate(index_dir: Path, queries, **options) -> tuple[float, float]:
    """(MRR@10, success@10)."""
    rr = reciprocal_ranks(index_dir, queries, **options)
    return statistics.mean(rr), sum(1 for r in rr if r > 0) / len(rr)


def reciprocal_ranks(index_dir: Path, queries, **options) -> list[float]:
    """Each query's reciprocal rank of its first relevant result in the top 10 (0: none)."""
    rr = []
    with open_searcher(index_dir, **options) as searcher:
        for _site, query, links in queries:
            try:
                hits = searcher.search(query, per_page=10).hits
            except QueryError:
                hits = []
            rank = next((h.rank for h in hits if h.url in links), None)
            rr.append(1.0 / rank if rank else 0.0)
    return rr


BM25F = {"ranking": "bm25f", "stemming": False, "per_site": 0, "spelling": False}


def per_site(index_dir: Path, plain_dir: Path, queries) -> tuple[list[str], bool]:
    """Each site's query set on its own (the goal holds per set): ours against BM25F, clean
    and with one typo per query (bench/typos.py's misspellings); and whether every set
    meets the goals (at least BM25F + 0.05, misspelled at least 0.85 of clean)."""
    pairs = typos.misspelled_queries(queries)
    misspelled = [(site, typo, links) for site, _query, typo, links in pairs]
    clean = [(site, query, links) for site, query, _typo, links in pairs]
    ours, bm25f = reciprocal_ranks(index_dir, queries), reciprocal_ranks(plain_dir, queries, **BM25F)
    ours_clean, ours_typo = reciprocal_ranks(index_dir, clean), reciprocal_ranks(index_dir, misspelled)
    lines = ["| query set | queries | ours MRR@10 | BM25F MRR@10 | ours - BM25F | "
             "misspelled: queries | ours clean | ours misspelled | misspelled / clean |",
             "|---|---|---|---|---|---|---|---|---|"]
    met = True
    for site in QUOTA:
        mine = [i for i, q in enumerate(queries) if q[0] == site]
        typed = [i for i, p in enumerate(pairs) if p[0] == site]
        if not mine or not typed:
            continue
        a, b = (statistics.mean(rr[i] for i in mine) for rr in (ours, bm25f))
        c, t = (statistics.mean(rr[i] for i in typed) for rr in (ours_clean, ours_typo))
        met = met and a >= b + 0.05 and t >= 0.85 * c
        lines.append(f"| {site} | {len(mine)} | {a:.3f} | {b:.3f} | {a - b:+.3f} | {len(typed)} | "
                     f"{c:.3f} | {t:.3f} | {t / c if c else 0.0:.2f} |")
    return lines, met


def english_reference():
    from wordfreq import word_frequency  # optional: only for the reference-domain measurement

    return lambda word: word_frequency(word, "en", minimum=1e-8)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--variants", action="store_true", help="also measure the weighting variants")
    ap.add_argument(
        "--scale", type=int, default=0, help="also time indexing and queries at this many docs"
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the quality table here")
    ap.add_argument("--text", choices=("lxml", "agent", "main"), default="lxml",
                    help="the text indexed: lxml's text_content() (default), the agent's "
                         "visible text, or the agent's main content (boilerplate dropped)")
    ap.add_argument("--crawled", type=Path, default=None, metavar="INDEX_DIR",
                    help="instead, search the index a crawl of the test web left (DATA_DIR/index) "
                         "with the saved judged queries, their pages named by the test web's URLs")
    args = ap.parse_args()
    if args.crawled:
        queries = crawled_queries()
        mrr, success = evaluate(args.crawled, queries)
        print(f"{args.crawled}: {len(queries)} judged queries, MRR@10 {mrr:.4f}, "
              f"success@10 {success:.3f}")
        return
    found = [(site, p, d) for i, (site, p) in enumerate(pages(), 1)
             if (d := parse_page(i, site, p, args.text))]
    plain = [d for _site, _p, d in found]
    docs = with_anchors(plain, {d.url: site for site, _p, d in found}, {d.url: p for _s, p, d in found})
    queries = sample_queries({d.url for d in docs})
    save_queries(queries)
    with tempfile.TemporaryDirectory() as tmp:
        index_dir, plain_dir = Path(tmp) / "index", Path(tmp) / "plain"
        rate = build(index_dir, docs)
        build(plain_dir, plain, plain=True)  # parse_page's documents: no links, no counts
        print(f"command: python bench/quality.py {' '.join(sys.argv[1:])}".rstrip())
        print(
            f"\n{len(docs)} documents, {len(queries)} judged queries ({DATA.name}), "
            f"indexed at {rate:.0f} docs/s\n"
        )
        rows = [
            ("ours: peculiarity, link prior, anchors, URL words, headings, stemming, grouped by site",
             index_dir, {}),
            ("Whoosh BM25F (plain index, no stemming)", plain_dir, BM25F),
            ("ours, results not grouped by site", index_dir, {"per_site": 0}),
            ("ours, plain index, not grouped", plain_dir, {"per_site": 0}),
            ("ours, plain index, no stemming, no proximity, not grouped (before issue 26)",
             plain_dir, {"stemming": False, "per_site": 0, "proximity": False, "spelling": False}),
        ]
        if args.variants:
            rows += [(name, plain_dir, options) for name, options in variant_rows()]
        lines = ["| ranking | MRR@10 | success@10 |", "|---|---|---|"]
        scores = []
        for name, directory, options in rows:
            try:
                mrr, success = evaluate(directory, queries, **options)
            except ImportError as exc:
                lines.append(f"| {name} | n/a ({exc}) | |")
                continue
            scores.append((mrr, success))
            lines.append(f"| {name} | {mrr:.3f} | {success:.3f} |")
        print("\n".join(lines))
        site_lines, sites_met = per_site(index_dir, plain_dir, queries)
        print("\n" + "\n".join(site_lines))
        typo_lines, typo_ratio = typos.table(index_dir, queries)
        print("\n" + "\n".join(typo_lines))
        if args.json:
            save_result(args.json, len(docs), len(queries), lines + ["", *site_lines], scores,
                        sites_met)
            save_typos(args.json, typo_lines, typo_ratio)
        if args.scale:
            scale(docs, queries, args.scale, Path(tmp) / "scaled")


def save_result(path: Path, docs: int, queries: int, lines: list[str],
                scores: list[tuple[float, float]], sites_met: bool) -> None:
    """The quality table as data for BENCHMARKS.md; the goal: ours at least BM25F's + 0.05,
    over all the queries and on each site's set (`per_site`)."""
    (ours, _), (bm25f, _) = scores[:2]
    body = (f"{docs:,} documents of the test web's documentation sites (their links giving anchor "
            f"texts and link counts), {queries} judged queries from their back-of-book indexes "
            f"({DATA.name}).\n\n" + "\n".join(lines))
    save(path, section("Retrieval quality: our peculiarity ranking against Whoosh's BM25F", body,
                       headline=f"MRR@10 {ours:.3f} against BM25F's {bm25f:.3f}",
                       goal="at least BM25F's + 0.05 MRR@10, on each site's set too",
                       met=ours >= bm25f + 0.05 and sites_met))


def save_typos(path: Path, lines: list[str], ratio: float) -> None:
    """The misspelled queries' table beside the quality table (`<name>-typos.json`)."""
    save(path.with_name(path.stem + "-typos.json"),
         section("Retrieval quality with typos: one misspelled word per query", "\n".join(lines),
                 headline=f"misspelled queries reach {ratio:.2f} of the clean queries' MRR@10",
                 goal="at least 0.85", met=ratio >= 0.85))


def variant_rows():
    rows = [
        (
            "literal tf/cf, no length (paper read literally)",
            {"weighting_options": {"mode": "literal"}},
        ),
        ("ratio, no log", {"weighting_options": {"mode": "ratio"}}),
    ]
    rows += [(f"log, MU={mu}", {"weighting_options": {"mu": mu}}) for mu in (0, 120, 1000, 4000)]
    try:
        ref = english_reference()
    except ImportError:
        return rows
    rows += [
        ("reference: English (wordfreq)", {"weighting_options": {"reference": ref}}),
        (
            "reference: 50/50 blend",
            {"weighting_options": {"reference": ref, "reference_share": 0.5}},
        ),
    ]
    return rows


def scale(docs, queries, target: int, index_dir: Path) -> None:
    copies = [
        IndexedDocument(i + 1, d.url, d.title, d.text, d.host)
        for i, d in zip(range(target), (docs[j % len(docs)] for j in range(target)), strict=False)
    ]
    rate = build(index_dir, copies)
    words = [q for _s, q, _l in queries if 1 <= len(q.split()) <= 2]
    times = []
    with open_searcher(index_dir, cache_queries=0) as searcher:
        for query in words:
            try:
                times.append(searcher.search(query).took_ms)
            except QueryError:
                pass
        size = searcher.size_bytes()
    times.sort()
    p50 = times[len(times) // 2]
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(
        f"\n{target} docs (the pages repeated under new ids): indexed at {rate:.0f} docs/s "
        f"(batches of 200, a commit each), {size / 2**20:.0f} MiB"
    )
    print(
        f"{len(times)} one- and two-word queries, uncached, in-process: "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {times[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
