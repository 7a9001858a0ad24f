"""Language detection on the test web's pages against the language each page declares.

Every HTML page of the test web's documentation sites (bench/quality.py's pages, read
from their files) whose `<html lang>` names a language is parsed as an agent parses it
(agents/parse.py: title and visible text) and detected as the index's writer detects it
(webcrawler/text/language.py). Measured: the share of those pages that come out `unknown`
(a language facet split in two), and the share given a language other than the one
declared (a wrong stemmer).

    python -m bench.languages [--json bench/results/languages.json]

Needs the documentation packages (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

from bench import quality
from bench.common import publish, table
from webcrawler.agents.charset import decode
from webcrawler.agents.parse import parse_html
from webcrawler.text.language import detect

_DECLARED = re.compile(rb"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3})", re.IGNORECASE)


def declared(body: bytes) -> str:
    """The primary language `<html lang>` declares ("" when none)."""
    found = _DECLARED.search(body[:4096])
    return found.group(1).decode().lower() if found else ""


def measure() -> tuple[Counter[str], Counter[tuple[str, str]], float]:
    """(pages per declared language, (declared, detected) pairs, CPU seconds detecting)."""
    pages: Counter[str] = Counter()
    outcomes: Counter[tuple[str, str]] = Counter()
    spent = 0.0
    for _site, path in quality.pages():
        body = path.read_bytes()
        language = declared(body)
        if not language:
            continue
        parsed = parse_html(decode(body, "text/html")[0], path.as_uri())
        started = time.process_time()
        found = detect(parsed.title, parsed.text) or "unknown"
        spent += time.process_time() - started
        pages[language] += 1
        outcomes[(language, found)] += 1
    return pages, outcomes, spent


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    pages, outcomes, spent = measure()
    total = sum(pages.values())
    unknown = sum(n for (_d, found), n in outcomes.items() if found == "unknown")
    wrong = sum(n for (said, found), n in outcomes.items() if found not in ("unknown", said))
    rows = [(said, f"{pages[said]:,}", f"{outcomes[(said, said)]:,}",
             f"{sum(n for (d, f), n in outcomes.items() if d == said and f == 'unknown'):,}",
             ", ".join(f"{f} {n}" for (d, f), n in outcomes.most_common()
                       if d == said and f not in (said, "unknown")) or "none")
            for said in sorted(pages)]
    body = (f"{total:,} pages of the test web declare their language (`<html lang>`); detected from "
            f"the agent's title and text as the index's writer does, {spent * 1000 / max(total, 1):.2f} ms "
            f"of CPU a page.\n\n"
            + table(["declared", "pages", "detected so", "unknown", "other"], rows))
    return publish("Language detection on the test web", body, args.json,
                   headline=f"unknown {unknown / max(total, 1):.1%} of pages that declare a language, "
                            f"another language {wrong / max(total, 1):.1%}",
                   goal="English pages come out en; no page moves to a wrong language")


if __name__ == "__main__":
    main(sys.argv[1:])
