"""Scale: a crawl of the generated web that discovers a million URLs on ten thousand servers.

    python -m bench.scale [--quick] [--servers 10000] [--urls 1000000] [--minutes 45] [--json FILE]

The generated web (tests/support/genweb.py) is served by one asyncio
process listening on 10,000 loopback addresses; `webcrawler index` (the full
pipeline: agents, store, index) crawls it with --delay 0 until the database
knows `--urls` URLs on `--servers` servers (then SIGINT: a graceful stop), or
until `--minutes`. Reported: the engine process's peak RSS (agents and the
index writer separately), and the crawl rate early (10-30% of the run) against
late (the last 20%): the scheduler's per-pick cost must not grow with the
frontier.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from bench.common import publish, table
from tests.support.genweb import GenWeb
from tests.support.genweb_server import GenWebProcess

WEBCRAWLER = Path(sys.executable).with_name("webcrawler")
LINE = re.compile(r"^\s*([\d.]+)s\s+docs (\d+).*servers (\d+)/(\d+)\s+queue (\d+)")


class Watch:
    """Peak RSS of the engine and of its descendants, sampled every second."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.engine = self.child = self.children = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                self.engine = max(self.engine, self.root.memory_info().rss)
                rss = []
                for child in self.root.children(recursive=True):
                    try:
                        rss.append(child.memory_info().rss)
                    except psutil.Error:
                        pass
            except psutil.Error:
                return
            self.child = max(self.child, max(rss, default=0))
            self.children = max(self.children, sum(rss))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3)


def known(db: Path) -> tuple[int, int]:
    """(URLs, servers) committed in the crawl's database, read-only."""
    if not db.exists():
        return 0, 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            urls = conn.execute("SELECT coalesce(max(id), 0) FROM documents").fetchone()[0]
            servers = conn.execute("SELECT count(*) FROM servers").fetchone()[0]
        return urls, servers
    except sqlite3.Error:
        return 0, 0


def crawl(web: GenWeb, data: Path, urls: int, servers: int, minutes: float, agents: int):
    env = dict(os.environ, WEBCRAWLER_PROGRESS_INTERVAL="5")
    proc = subprocess.Popen([str(WEBCRAWLER), "index", "--hours", str(minutes / 60 + 0.1), "--delay", "0",
                             "--agents", str(agents), "--seed", web.seed_url, "--include",
                             web.include_pattern, "--data-dir", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    watch = Watch(proc.pid)
    series: list[tuple[float, int, int, int]] = []  # (seconds, docs, servers known, queue)
    lines: list[str] = []

    def read_progress() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            match = LINE.match(line)
            if match:
                t, docs, _, servers_known, queue = match.groups()
                series.append((float(t), int(docs), int(servers_known), int(queue)))

    reader = threading.Thread(target=read_progress, daemon=True)
    reader.start()
    started = time.monotonic()
    found = (0, 0)
    while proc.poll() is None:
        time.sleep(5)
        found = known(data / "webcrawler.db")
        print(f"{time.monotonic() - started:7.0f} s  known URLs {found[0]:,}  servers {found[1]:,}  "
              f"{lines[-1].strip() if lines else ''}", file=sys.stderr, flush=True)
        if (found[0] >= urls and found[1] >= servers) or time.monotonic() - started > minutes * 60:
            proc.send_signal(signal.SIGINT)
            break
    try:
        out, _ = proc.communicate(timeout=900)
    except subprocess.TimeoutExpired:  # still waiting for its index writer to catch up
        proc.kill()
        out, _ = proc.communicate(timeout=60)
        out = (out or "") + "\n(killed: no exit within 900 s of SIGINT, waiting for the index writer)"
    reader.join(10)
    watch.stop()
    return out, series, watch, known(data / "webcrawler.db"), time.monotonic() - started


def rate(series: list[tuple[float, int, int, int]], start: float, end: float) -> float:
    window = [s for s in series if start <= s[0] <= end]
    if len(window) < 2:
        return float("nan")
    return (window[-1][1] - window[0][1]) / max(1e-9, window[-1][0] - window[0][0])


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 servers, 100,000 URLs, 6 minutes")
    parser.add_argument("--servers", type=int, default=10_000)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--minutes", type=float, default=45.0)
    parser.add_argument("--agents", type=int, default=15)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args(argv)
    if args.quick:
        args.servers, args.urls, args.minutes = 1_000, 100_000, 6.0
    web = GenWeb(servers=args.servers, pages_per_server=1000, links_per_page=40, cross_share=0.2,
                 page_bytes=6000)
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp, GenWebProcess(web) as served:
        out, series, watch, (urls, servers), seconds = crawl(served, Path(tmp) / "data", args.urls,
                                                            args.servers, args.minutes, args.agents)
    end = series[-1][0] if series else 0.0
    early, late = rate(series, 0.1 * end, 0.3 * end), rate(series, 0.8 * end, end)
    docs = series[-1][1] if series else 0
    mb = 1024 * 1024
    rows = [
        ["URLs discovered (in the database)", f"{urls:,}", f">= {args.urls:,}"],
        ["servers discovered", f"{servers:,}", f">= {args.servers:,}"],
        ["documents retrieved", f"{docs:,}", ""],
        ["crawl time", f"{seconds:,.0f} s", ""],
        ["engine process peak RSS", f"{watch.engine / mb:,.0f} MB", "<= 200 MB"],
        ["largest agent / index writer peak RSS", f"{watch.child / mb:,.0f} MB", "(separately)"],
        ["all agents + index writer, peak sum", f"{watch.children / mb:,.0f} MB", "(separately)"],
        ["rate early (10-30% of the run)", f"{early:.1f} docs/s", ""],
        ["rate late (last 20%)", f"{late:.1f} docs/s", ""],
        ["early / late", f"{early / late:.2f}" if late else "n/a", "<= 1.5"],
    ]
    body = (f"Generated web: {args.servers:,} servers x 1,000 pages, about 40 links a page (20% to "
            f"other servers), text around 6 KB; {args.agents} agents, --delay 0.\n\n"
            + table(["measure", "value", "goal"], rows)
            + "\n\nThe crawl's summary:\n\n```\n" + out.strip() + "\n```")
    ratio = early / late if late else float("inf")
    return publish("Scale: a million URLs on ten thousand servers", body, args.json,
                   headline=f"{urls:,} URLs on {servers:,} servers; engine {watch.engine / mb:,.0f} MB; "
                            f"early / late {ratio:.2f}",
                   goal=f">= {args.urls:,} URLs, >= {args.servers:,} servers, engine <= 200 MB, "
                        "early / late <= 1.5",
                   met=urls >= args.urls and servers >= args.servers and watch.engine <= 200 * mb
                   and ratio <= 1.5)


if __name__ == "__main__":
    main()
