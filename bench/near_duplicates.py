"""Where near-duplicates end: sketch resemblance of copies against that of distinct pages.

Pages come from the running test web (bash shared/testweb/testweb.sh start dev). Copies of a
page, as sites make them: its print view (the main content alone, without the navigation,
sidebar and footer), the page with a "generated at" line and a visit counter added, and the
page with its date line and counter changed and a menu entry (ten words of the navigation)
left out. Distinct pages: every pair of pages within one site whose texts differ (two
reference pages of one API among them; "/" and "/index.html" are one page). Prints the
lowest resemblance of a copy and the highest of distinct pages, per site and overall, and the
threshold chosen between them (docs/near-duplicates.md).

    .venv/bin/python -m bench.near_duplicates [--pages 80]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from pathlib import Path
from urllib.request import urlopen

from webcrawler.agents.parse import _tree, visible_text
from webcrawler.text.shingles import resemblance, sketch

MANIFEST = Path("/tmp/testweb/expected-urls.json")
MAIN = ("//*[@role='main']", "//div[@class='body']", "//main", "//div[@id='content']",
        "//div[contains(@class,'refentry') or contains(@class,'sect1') or @class='chapter']")


def fetch(url: str) -> str:
    with urlopen(url, timeout=10) as response:  # noqa: S310 - loopback test web only
        return response.read().decode("utf-8", errors="replace")


def main_text(html: str) -> str:
    """The print view's text: the main content element alone."""
    root = _tree(html)
    for path in MAIN:
        found = root.xpath(path) if root is not None else []
        if found:
            return visible_text(found[0])
    return visible_text(root) if root is not None else ""


def copies(html: str) -> dict[str, str]:
    text = visible_text(_tree(html))
    words = text.split()
    nav, rest = words[:40], words[40:]
    return {
        "print view": main_text(html),
        "date + counter": "Generated on 12 March 2024 at 10:42. " + text + " Visits: 18234",
        "new date, a menu entry less": "Generated on 3 June 2025 at 08:01. " + " ".join(
            nav[:10] + nav[20:] + rest) + " Visits: 18301",
    }


def pages(site: str, count: int) -> list[tuple[str, str]]:
    urls = [u for u in json.loads(MANIFEST.read_text())[site]["html_urls"]
            if not re.search(r"/(genindex|search|py-modindex)", u)][:count]
    return [(u, fetch(u)) for u in urls]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=80, help="pages per site")
    args = parser.parse_args()
    lowest_copy, highest_distinct = 1.0, 0.0
    all_copies: list[float] = []
    all_pairs: list[float] = []
    for site in ("py311", "pg15", "git", "flask", "requests"):
        fetched = pages(site, args.pages)
        sketches = {u: sketch(visible_text(_tree(h))) for u, h in fetched}
        copy_r = [(kind, resemblance(sketches[u], sketch(text)))
                  for u, h in fetched for kind, text in copies(h).items()]
        pair_r = sorted(((resemblance(sketches[a], sketches[b]), a, b)
                         for a, b in itertools.combinations(sketches, 2)
                         if sketches[a] != sketches[b]), reverse=True)
        low = min(r for _, r in copy_r)
        by_kind = {k: min(r for kind, r in copy_r if kind == k) for k, _ in copy_r}
        print(f"{site}: {len(fetched)} pages; lowest copy {low:.3f} "
              f"({', '.join(f'{k} {v:.3f}' for k, v in by_kind.items())}); "
              f"highest distinct pair {pair_r[0][0]:.3f} ({pair_r[0][1]} ~ {pair_r[0][2]})")
        all_copies += [r for kind, r in copy_r if kind != "print view"]
        all_pairs += [r for r, _, _ in pair_r]
        lowest_copy = min(lowest_copy, min(r for kind, r in copy_r if kind != "print view"))
        highest_distinct = max(highest_distinct, pair_r[0][0])
    print(f"overall: lowest copy (date, counter, navigation) {lowest_copy:.3f}, "
          f"highest distinct pair {highest_distinct:.3f}")
    for threshold in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        caught = sum(r >= threshold for r in all_copies) / len(all_copies)
        merged = sum(r >= threshold for r in all_pairs)
        print(f"threshold {threshold:.2f}: copies caught {caught:.1%} of {len(all_copies)}, "
              f"distinct pairs merged {merged} of {len(all_pairs)}")


if __name__ == "__main__":
    main()
