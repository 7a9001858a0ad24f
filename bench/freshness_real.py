"""One real incremental crawl of a changing web: fetches a second, time-averaged freshness from
the server's own request log, and the engine's CPU (bench/freshness_optimum.py's real rows,
bench/freshness_crawls.py's runs).

The web is a `WebSpec`: issue 35's "flat" web (tests/support/changes.py's "flat" spread, 3
servers x 150 pages, days of 60 s, `--fetch-rate 5`), or a held-out one of other sizes, rates,
servers and bandwidths (`WEBS`, built by changes.mixed). It is served by its own process on
loopback; the crawl is `webcrawler index --incremental --recrawl POLICY --fetch-rate RATE --delay
0 [more options]` for SECONDS; the engine's CPU is its process's utime + stime from /proc, read
every 0.2 s while it runs (the agents and the index writer are other processes).

    python -m bench.freshness_real POLICY SECONDS [more index options...]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.freshness_measure import Fetches, read_log, sample
from tests.support.changes import Spread, mixed
from tests.support.changeweb import ChangingWeb
from tests.support.genweb_server import GenWebProcess


@dataclass(frozen=True)
class WebSpec:
    """A changing web and the bandwidth it is crawled at."""

    name: str
    servers: int
    pages: int  # per server (those robots.txt shuts out are not in the measure)
    fetch_rate: float  # the crawl's --fetch-rate
    spread: str | Spread  # a name in changes.SPREADS or changes.mixed(...)
    first_address: str  # loopback only (127.0.0.0/8)
    day_seconds: float = 60.0

    def web(self, seed: int, log_path: Path, epoch: float) -> ChangingWeb:
        return ChangingWeb(servers=self.servers, pages_per_server=self.pages, links_per_page=10,
                           page_bytes=3000, seed=seed, spread=self.spread, day_seconds=self.day_seconds,
                           epoch=epoch, first_address=self.first_address, log_path=str(log_path))


FLAT = WebSpec("flat", 3, 150, 5.0, "flat", "127.0.49.0")
WEBS = {web.name: web for web in (
    FLAT,  # the tuning web: a fifth never change, the rest every 20 s to an hour
    # Held out: 300 pages on 2 servers at 3 a second; a third never change (half of those only a
    # clock line), the rest every 10 s to 2 h, a fifth faster than a minute.
    WebSpec("heldout-small", 2, 150, 3.0,
            mixed("heldout-small", never=0.35, timestamp_only=0.175,
                  intervals=((0.2, 10, 60), (0.4, 60, 600), (0.4, 600, 7200)), day_seconds=60.0),
            "127.0.50.0"),
    # Held out: 900 pages on 5 servers at 10 a second; a tenth never change, the rest every 30 s
    # to a day, most between 5 minutes and an hour.
    WebSpec("heldout-large", 5, 180, 10.0,
            mixed("heldout-large", never=0.1, timestamp_only=0.05,
                  intervals=((0.3, 30, 300), (0.5, 300, 3600), (0.2, 3600, 86400)), day_seconds=60.0),
            "127.0.51.0"),
)}
REQUESTS_LINE = re.compile(r"requests\s+(.*per second.*)")


def engine_cpu(proc: subprocess.Popen, seen: list[float]) -> None:
    """Keep the process's CPU seconds in seen[0] until it exits."""
    tick = os.sysconf("SC_CLK_TCK")
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            seen[0] = (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            pass
        time.sleep(0.2)


def fresh_share(web: ChangingWeb, fetches: Fetches, start: float, end: float,
                step: float = 1.0) -> tuple[float, float]:
    """Time-averaged freshness over [start, end): the share of live pages held at their live
    version, sampled every `step` seconds (bench/freshness_measure.py's universe); and the
    share of them never fetched yet, averaged the same way (what the first pass still owes)."""
    samples = [sample(web, fetches, start + i * step) for i in range(int((end - start) / step))]
    n = max(1, len(samples))
    return (sum(1 - s.obsolete for s in samples) / n,
            sum(s.never_fetched / max(1, s.live) for s in samples) / n)


def first_pass(web: ChangingWeb, fetches: Fetches, started: float) -> float | None:
    """Seconds from the crawl's start until every live page a crawler can find (linked through
    pages robots.txt allows: `GenWeb.ground_truth`) had been fetched once (None: never)."""
    found = web.ground_truth().pages
    firsts = [fetches.by_url[url][0][0] if fetches.by_url.get(url) else None
              for url in web.pages_at(started) if url in found]
    return None if None in firsts else max(t for t in firsts if t is not None) - started


def phases(web: ChangingWeb, fetches: Fetches, started: float, ended: float,
           step: float = 30.0) -> list[float]:
    """Fresh share over each `step` seconds of the run: how long the first pass and the learning
    of the change rates weigh on it (docs/freshness.md)."""
    return [round(fresh_share(web, fetches, started + a, min(started + a + step, ended))[0], 3)
            for a in np.arange(0.0, ended - started - step / 2, step)]


def never_share(web: ChangingWeb, fetches: Fetches, since: float) -> float:
    """Of the page requests after `since`, the share to pages that never change for real."""
    counted = never = 0
    for url, answers in fetches.by_url.items():
        host, _, path = url.split("//")[1].partition("/")
        server = web.server_of(host.split(":")[0])
        page = 0 if not path else int(path.removeprefix("page/").removesuffix(".html"))
        n = sum(t >= since for t, _, _ in answers)
        counted += n
        if server is not None and web.changes.interval(server, page) == float("inf"):
            never += n
    return never / max(1, counted)


def crawl(policy: str, seconds: float, extra: list[str], work: Path, seed: int = 7,
          spec: WebSpec = FLAT) -> dict[str, object]:
    """One crawl of `spec`'s web (seed `seed`) with `--recrawl policy` and `extra` options."""
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "requests.log"
    web = spec.web(seed, log_path, time.time() + 3.0)
    data = work / "data"
    with GenWebProcess(web) as served:
        assert isinstance(served, ChangingWeb)
        argv = [sys.executable, "-m", "webcrawler.cli", "index", "--incremental",
                "--hours", f"{seconds / 3600:.5f}", "--recrawl", policy,
                "--fetch-rate", f"{spec.fetch_rate:g}",
                "--seed", served.seed_url, "--include", served.include_pattern, "--delay", "0",
                "--data-dir", str(data), "--no-progress", *extra]
        started = time.time()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cpu = [0.0]
        threading.Thread(target=engine_cpu, args=(proc, cpu), daemon=True).start()
        out, err = proc.communicate(timeout=seconds + 300)
        ended = time.time()
    stats = subprocess.run([sys.executable, "-m", "webcrawler.cli", "stats", "--data-dir", str(data)],
                           capture_output=True, text=True, timeout=120).stdout
    fetches = read_log(log_path)
    times = sorted(t for answers in fetches.by_url.values() for t, _, _ in answers)
    half = started + seconds / 2
    shown = REQUESTS_LINE.search(out + err)
    fresh, unfetched = fresh_share(served, fetches, half, ended)
    return {"crawl": " ".join([policy, *extra]), "exit": proc.returncode, "requests": len(times),
            "rate": len(times) / (ended - started),
            "rate_second_half": sum(t >= half for t in times) / (ended - half),
            "fresh_second_half": fresh, "never_fetched_second_half": unfetched,
            "first_pass_seconds": first_pass(served, fetches, started),
            "fresh_by_30s": phases(served, fetches, started, ended),
            "never_share_second_half": never_share(served, fetches, half),
            "live_pages": len(served.pages_at(ended)), "engine_cpu": cpu[0],
            "engine_ms_per_request": 1000 * cpu[0] / max(1, len(times)),
            "summary_requests": shown.group(1).strip() if shown else "",
            "stats_requests": next((line.strip() for line in stats.splitlines() if "a second" in line), ""),
            "started": started, "ended": ended, "epoch": served.epoch}


def main(argv: list[str]) -> int:
    policy, seconds, extra = argv[0], float(argv[1]), argv[2:]
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"freshness-real-{policy}-{int(time.time())}"
    print(json.dumps(crawl(policy, seconds, extra, work)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
