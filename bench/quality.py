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

from bench import typos  # noqa: E402
from bench.common import save, section  # noqa: E402
from webcrawler.index import IndexedDocument, QueryError, open_searcher, open_writer  # noqa: E402

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
        return IndexedDocument(doc_id, path.as_uri(), parsed.title, parsed.text, f"{site}.docs.test")
    try:
        tree = lxml.html.fromstring(path.read_bytes())
    except (ValueError, lxml.etree.ParserError):
        return None
    for bad in tree.xpath("//script|//style|//noscript"):
        bad.drop_tree()
    title = " ".join((tree.findtext(".//title") or "").split())
    text = " ".join(tree.text_content().split())
    return IndexedDocument(doc_id, path.as_uri(), title, text, f"{site}.docs.test")


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


def save_queries(queries: list[tuple[str, str, set[str]]]) -> None:
    DATA.parent.mkdir(parents=True, exist_ok=True)
    with DATA.open("w", encoding="utf-8") as out:
        out.write("site\tquery\trelevant\n")
        for site, query, links in queries:
            out.write(f"{site}\t{query}\t{' '.join(sorted(links))}\n")


def build(index_dir: Path, docs: list[IndexedDocument], batch: int = 200) -> float:
    """Index `docs` in crawl-sized batches, committing each; returns docs/s."""
    started = time.perf_counter()
    writer = open_writer(index_dir)
    for i in range(0, len(docs), batch):
        writer.add(docs[i : i + batch])
        writer.commit()
    writer.close()
    return len(docs) / (time.perf_counter() - started)


def evaluate(index_dir: Path, queries, **options) -> tuple[float, float]:
    """(MRR@10, success@10)."""
    rr = []
    with open_searcher(index_dir, **options) as searcher:
        for _site, query, links in queries:
            try:
                hits = searcher.search(query, per_page=10).hits
            except QueryError:
                hits = []
            rank = next((h.rank for h in hits if h.url in links), None)
            rr.append(1.0 / rank if rank else 0.0)
    return statistics.mean(rr), sum(1 for r in rr if r > 0) / len(rr)


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
    args = ap.parse_args()
    docs = [d for i, (site, p) in enumerate(pages(), 1) if (d := parse_page(i, site, p, args.text))]
    queries = sample_queries({d.url for d in docs})
    save_queries(queries)
    with tempfile.TemporaryDirectory() as tmp:
        index_dir = Path(tmp) / "index"
        rate = build(index_dir, docs)
        print(f"command: python bench/quality.py {' '.join(sys.argv[1:])}".rstrip())
        print(
            f"\n{len(docs)} documents, {len(queries)} judged queries ({DATA.name}), "
            f"indexed at {rate:.0f} docs/s\n"
        )
        rows = [
            ("peculiarity (ours: MU = average doc length)", {}),
            ("Whoosh BM25F", {"ranking": "bm25f"}),
        ]
        if args.variants:
            rows += variant_rows()
        lines = ["| ranking | MRR@10 | success@10 |", "|---|---|---|"]
        scores = []
        for name, options in rows:
            try:
                mrr, success = evaluate(index_dir, queries, **options)
            except ImportError as exc:
                lines.append(f"| {name} | n/a ({exc}) | |")
                continue
            scores.append((mrr, success))
            lines.append(f"| {name} | {mrr:.3f} | {success:.3f} |")
        print("\n".join(lines))
        typo_lines, typo_ratio = typos.table(index_dir, queries)
        print("\n" + "\n".join(typo_lines))
        if args.json:
            save_result(args.json, len(docs), len(queries), lines, scores)
            save_typos(args.json, typo_lines, typo_ratio)
        if args.scale:
            scale(docs, queries, args.scale, Path(tmp) / "scaled")


def save_result(path: Path, docs: int, queries: int, lines: list[str],
                scores: list[tuple[float, float]]) -> None:
    """The quality table as data for BENCHMARKS.md; the goal: ours at least as good as BM25F."""
    (ours, _), (bm25f, _) = scores[:2]
    body = (f"{docs:,} documents of the test web's documentation sites, {queries} judged queries "
            f"from their back-of-book indexes ({DATA.name}).\n\n" + "\n".join(lines))
    save(path, section("Retrieval quality: our peculiarity ranking against Whoosh's BM25F", body,
                       headline=f"MRR@10 {ours:.3f} against BM25F's {bm25f:.3f}",
                       goal="at least as good as BM25F", met=ours >= bm25f))


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
