"""Where "changed non-trivially" starts: shingle resemblance of trivial edits and real ones.

Pages are generated-web text (Zipf words, 60 to 1,500 words, as genweb's pages) laid
out as a header line, paragraphs and a footer. Each page is edited five ways and the
MinHash resemblance (webcrawler.recrawl.changes) of old and new text is recorded:

- trivial: the "Updated <date time>" line changes; a visit counter changes; the
  advertisement line (8 words) is replaced by another;
- real: one paragraph of the page is rewritten; a paragraph is added.

The threshold must sit between the lowest trivial resemblance and the highest real
one; it cannot (page length moves both), so the rule is on the estimated number of
differing shingles instead (recrawl/changes.py); the table shows both and how many of
each kind each rule calls a change. `--pages N` (default 300). Results go to stdout and, with --json FILE,
to a file that `make bench-report` renders into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from bench.common import publish, table
from tests.support.genweb import random_text
from webcrawler.recrawl.changes import MIN_CHANGED_SHINGLES
from webcrawler.text.shingles import differing_shingles, resemblance, sketch


def page(rng: random.Random, paragraphs: list[str], day: int, visits: int, ad: str) -> str:
    header = f"Updated 2026-{1 + day % 12:02d}-{1 + day % 28:02d} {day % 24:02d}:{day % 60:02d}"
    footer = f"You are visitor number {visits}. Sponsored: {ad}"
    return "\n".join([header, *paragraphs, footer])


def edits(rng: random.Random) -> dict[str, tuple[str, str]]:
    """(old, new) text of one page under each kind of edit."""
    words = rng.choice((60, 150, 300, 600, 1500))
    count = max(1, words // 60)
    paragraphs = [random_text(rng, 60 * 7) for _ in range(count)]
    ad, other_ad = random_text(rng, 8 * 7), random_text(rng, 8 * 7)
    old = page(rng, paragraphs, 3, 1234, ad)
    edited = list(paragraphs)
    edited[rng.randrange(count)] = random_text(rng, 60 * 7)
    return {
        "trivial: date line": (old, page(rng, paragraphs, 17, 1234, ad)),
        "trivial: counter": (old, page(rng, paragraphs, 3, 1299, ad)),
        "trivial: ad line": (old, page(rng, paragraphs, 3, 1234, other_ad)),
        "real: paragraph rewritten": (old, page(rng, edited, 3, 1234, ad)),
        "real: paragraph added": (old, page(rng, paragraphs + [random_text(rng, 60 * 7)], 3, 1234, ad)),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    rng = random.Random(11)
    found: dict[str, list[float]] = {}
    differ: dict[str, list[float]] = {}
    started, sketches = time.perf_counter(), 0
    for _ in range(args.pages):
        for kind, (old, new) in edits(rng).items():
            a, b = sketch(old), sketch(new)
            found.setdefault(kind, []).append(resemblance(a, b))
            differ.setdefault(kind, []).append(differing_shingles(a, b))
            sketches += 2
    per_sketch = (time.perf_counter() - started) / sketches * 1000
    rows = [(kind, min(v), percentile(v, 0.5), max(v), f"{sum(r < 0.9 for r in v)}/{len(v)}",
             percentile(differ[kind], 0.05), percentile(differ[kind], 0.5),
             max(differ[kind]),
             f"{sum(d >= MIN_CHANGED_SHINGLES for d in differ[kind])}/{len(v)}")
            for kind, v in found.items()]
    body = (table(["edit", "resemblance min", "median", "max", "changed if r < 0.9",
                   "differing shingles p5", "median", "max",
                   f"changed if >= {MIN_CHANGED_SHINGLES} differ (ours)"], rows)
            + f"\n\n{args.pages} pages of 60-1,500 words; 4-word shingles, digits as '#', "
              f"bottom-256 32-bit sketch + count (at most 1,028 bytes a page); {per_sketch:.2f} ms a sketch "
              "(sketch + compare, one core).\n")
    flagged = {kind: sum(d >= MIN_CHANGED_SHINGLES for d in v) for kind, v in differ.items()}
    trivial = sum(n for kind, n in flagged.items() if kind.startswith("trivial"))
    real = sum(n for kind, n in flagged.items() if kind.startswith("real"))
    real_all = sum(len(v) for kind, v in differ.items() if kind.startswith("real"))
    trivial_all = sum(len(v) for kind, v in differ.items() if kind.startswith("trivial"))
    publish("Change detection threshold (issue 11): shingle resemblance of trivial and real edits",
            body, args.json,
            headline=f"{MIN_CHANGED_SHINGLES} differing shingles: trivial edits changed "
                     f"{trivial}/{trivial_all}, real edits {real}/{real_all}",
            goal="a timestamp-only change is unchanged, an edited paragraph is changed",
            met=trivial == 0 and real >= 0.99 * real_all)


if __name__ == "__main__":
    main()
