"""Check a crawl of ../shared/testweb from its access logs: server-first order and politeness.

    python -m bench.testweb_order [RUN_DIR]      (default ${TMPDIR:-/tmp}/testweb)

Prints, from the servers' own logs: whether every server's first document
was served before any server's second document, each server's smallest gap
between two requests, and duplicate requests. `testweb.sh report` gives the
robots.txt and coverage figures.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path


def read_log(path: Path) -> list[tuple[float, str]]:
    """(time, path) of every request in one nginx access log."""
    hits = []
    for line in path.read_text().splitlines():
        parts = line.split('"')
        if len(parts) < 2:
            continue
        stamp = float(line.split()[0])
        request = parts[1].split()
        hits.append((stamp, request[1] if len(request) > 1 else ""))
    return hits


def main(run_dir: Path) -> int:
    logs = {p.name.split(".")[0]: read_log(p) for p in sorted((run_dir / "logs").glob("*.access.log"))}
    docs = {name: [h for h in hits if h[1] != "/robots.txt"] for name, hits in logs.items()}
    docs = {name: hits for name, hits in docs.items() if hits}
    last_first = max(hits[0][0] for hits in docs.values())
    seconds = [hits[1][0] for hits in docs.values() if len(hits) > 1]
    ok = not seconds or last_first <= min(seconds)
    print(f"servers with documents: {len(docs)}")
    print(f"first document of every server before any server's second: {'yes' if ok else 'NO'}")
    for name, hits in logs.items():
        gaps = [b[0] - a[0] for a, b in zip(hits, hits[1:], strict=False)]
        dupes = [p for p, n in Counter(p for _, p in hits).items() if n > 1]
        print(f"  {name:10} requests {len(hits):5}  min gap {min(gaps, default=0) * 1000:7.1f} ms"
              f"  duplicates {len(dupes)}")
    return 0 if ok else 1


if __name__ == "__main__":
    default = Path(os.environ.get("TESTWEB_RUN", Path(os.environ.get("TMPDIR", "/tmp")) / "testweb"))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else default))
