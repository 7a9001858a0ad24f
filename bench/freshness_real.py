"""One real incremental crawl of the "flat" changing web: fetches a second, time-averaged freshness
from the server's own request log, and the engine's CPU (bench/freshness_optimum.py's real rows).

The web (tests/support/changes.py's "flat" spread, 3 servers x 150 pages, days of 60 s) is served
by its own process; the crawl is `webcrawler index --incremental --recrawl POLICY --fetch-rate 5
--delay 0 [more options]` for SECONDS; the engine's CPU is its process's utime + stime from /proc,
read every 0.2 s while it runs (the agents and the index writer are other processes).

    python -m bench.freshness_real POLICY SECONDS [more index options...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.freshness_measure import read_log, timeline
from tests.support.changeweb import ChangingWeb
from tests.support.genweb_server import GenWebProcess


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


def crawl(policy: str, seconds: float, extra: list[str], work: Path, seed: int = 7) -> dict[str, object]:
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "requests.log"
    web = ChangingWeb(servers=3, pages_per_server=150, links_per_page=10, page_bytes=3000, seed=seed,
                      spread="flat", day_seconds=60.0, epoch=time.time() + 3.0,
                      first_address="127.0.49.0", log_path=str(log_path))
    with GenWebProcess(web) as served:
        argv = [sys.executable, "-m", "webcrawler.cli", "index", "--incremental",
                "--hours", f"{seconds / 3600:.5f}", "--recrawl", policy, "--fetch-rate", "5",
                "--seed", served.seed_url, "--include", served.include_pattern, "--delay", "0",
                "--data-dir", str(work / "data"), "--no-progress", *extra]
        started = time.time()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cpu = [0.0]
        threading.Thread(target=engine_cpu, args=(proc, cpu), daemon=True).start()
        proc.communicate(timeout=seconds + 300)
        ended = time.time()
    fetches = read_log(log_path)
    times = sorted(t for answers in fetches.by_url.values() for t, _, _ in answers)
    half = started + seconds / 2
    fresh = [1 - s.obsolete for s in timeline(served, fetches, served.epoch, ended, per_day=4)
             if served.clock.real(s.day) >= half]
    return {"policy": " ".join([policy, *extra]), "exit": proc.returncode, "requests": len(times),
            "rate_second_half": sum(t >= half for t in times) / (ended - half),
            "fresh_second_half": sum(fresh) / max(1, len(fresh)), "engine_cpu": cpu[0],
            "engine_ms_per_request": 1000 * cpu[0] / max(1, len(times))}


def main(argv: list[str]) -> int:
    policy, seconds, extra = argv[0], float(argv[1]), argv[2:]
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"freshness-real-{policy}-{int(time.time())}"
    print(json.dumps(crawl(policy, seconds, extra, work)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
