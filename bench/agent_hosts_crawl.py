"""A crawl with local agents against one and two agent hosts (issue 15), on loopback.

    python -m bench.agent_hosts_crawl [--servers 24] [--pages 25] [--latency 0.1] [--netns] [--json FILE]

The web runs in its own process (`--serve-web`: `LoopbackWeb`, every answer
`--latency` seconds late, so fetching is network-bound as on the real Web);
the engine is `webcrawler index` in its own process, with 16 agents: local
subprocesses (today's pool), or 16 threads on one agent host, or 8 on each of
two, or 4 on each of four (`webcrawler agent-scheduler` / `agent-host`).
Reported: pages/s over the crawl's time and CPU seconds per role. By default
the roles are processes on loopback addresses of one machine; with `--netns`
(root) the web, the engine (with the scheduler) and each agent host run in a
network namespace of their own, joined by veth links (bench/netns.py). Either
way every role shares this machine's cores.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from bench.common import publish, table
from bench.netns import Namespaces, namespaces
from tests.support.cluster import agent_cluster
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html

AGENTS = 16


def serve_web(servers: int, pages: int, latency: float, base: str) -> None:
    """Serve the web until stdin closes; print the seed URLs as one JSON line first."""
    def site(number: int) -> dict[str, Page]:
        links = [(f"/p{i}", f"page {i}") for i in range(1, pages)]
        routes = {"/": html(f"server {number}", "home page", links)}
        routes |= {f"/p{i}": html(f"page {i} of {number}", f"words of page {i}", [("/", "home")])
                   for i in range(1, pages)}
        return {path: Page(page.body, delay=latency) for path, page in routes.items()}

    sites = [Site(f"{base}.{n + 1}", site(n)) for n in range(servers)]
    with LoopbackWeb(sites) as web:
        print(json.dumps([web.url(s.address, "/") for s in sites]), flush=True)
        sys.stdin.read()


def crawl(seeds: list[str], data: Path, agents_at: str | None, prefix: list[str]
          ) -> tuple[float, int, float, int]:
    """Run `webcrawler index`; (crawl seconds, pages retrieved, CPU seconds of its process tree,
    failures).

    The seconds are the summary's (the crawl loop, agents' start included, not
    Python's start-up); the CPU is sampled every 0.2 s over the whole tree.
    """
    args = [*prefix, sys.executable, "-m", "webcrawler.cli", "index", "--no-progress", "--delay", "0",
            "--agents", str(AGENTS), "--data-dir", str(data), *[f"--seed={s}" for s in seeds]]
    if agents_at:
        args.append(f"--agents-at={agents_at}")
    seen: dict[int, float] = {}
    with (data.parent / f"{data.name}-engine.log").open("w") as log, \
            subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, text=True) as engine:
        root = psutil.Process(engine.pid)
        while engine.poll() is None:
            _sample(root, seen)
            time.sleep(0.2)
        out = engine.communicate(timeout=60)[0]
    found = re.search(r"after ([\d.,]+) s", out)
    if found is None:
        raise SystemExit("the crawl failed: " + (data.parent / f"{data.name}-engine.log").read_text()[-1500:])
    wall = float(found.group(1).replace(",", ""))
    pages = int(re.search(r"documents retrieved\s+([\d,]+)", out).group(1).replace(",", ""))
    failures = int(re.search(r"failures\s+([\d,]+)", out).group(1).replace(",", ""))
    return wall, pages, sum(seen.values()), failures


def _sample(root: psutil.Process, seen: dict[int, float]) -> None:
    try:
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return
    for process in tree:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        seen[process.pid] = times.user + times.system


def _cpu(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def run_mode(name: str, hosts: int, seeds: list[str], tmp: Path, netns: bool) -> list[object]:
    engine = Namespaces.run("engine") if netns else []
    if hosts == 0:
        wall, pages, cpu, _ = crawl(seeds, tmp / name, None, engine)
        return [name, pages, pages / wall, cpu, "-", "-", 1000 * cpu / pages]
    base = "127.0.14" if netns else "127.0.9"
    per_host = {f"{base}.{2 + n}": AGENTS // hosts for n in range(hosts)}
    prefixes = {f"{base}.1": engine} | ({a: Namespaces.run(f"h{n + 1}") for n, a in enumerate(per_host)}
                                        if netns else {})
    with agent_cluster(tmp / f"{name}-logs", per_host, f"{base}.1", prefixes) as cluster:
        roles = [cluster.scheduler, *cluster.hosts]
        start = [_cpu(r.process.pid) for r in roles]
        wall, pages, cpu, _ = crawl(seeds, tmp / name, cluster.scheduler.address, engine)
        used = [_cpu(r.process.pid) - s for r, s in zip(roles, start, strict=True)]
    total = cpu + sum(used)
    return [name, pages, pages / wall, cpu, used[0], " + ".join(f"{u:.1f}" for u in used[1:]),
            1000 * total / pages]


def run_killed(seeds: list[str], tmp: Path, netns: Namespaces | None, after: float,
               cut: bool = False) -> list[object]:
    """Two agent hosts, the first killed (its process group, SIGKILL) `after` seconds in,
    or with `cut` its network link taken down (namespaces only)."""
    engine = Namespaces.run("engine") if netns else []
    base = "127.0.14" if netns else "127.0.9"
    per_host = {f"{base}.{2 + n}": AGENTS // 2 for n in range(2)}
    prefixes = {f"{base}.1": engine} | ({a: Namespaces.run(f"h{n + 1}") for n, a in enumerate(per_host)}
                                        if netns else {})
    with agent_cluster(tmp / "killed-logs", per_host, f"{base}.1", prefixes) as cluster:
        victim = (lambda: netns.cut("h1")) if cut and netns else cluster.hosts[0].kill
        timer = threading.Timer(after, victim)
        timer.start()
        wall, pages, _, failures = crawl(seeds, tmp / "killed", cluster.scheduler.address, engine)
        timer.cancel()
    what = "cut off the network" if cut else "killed"
    return [f"2 agent hosts, one {what} after {after:.0f} s", pages, wall, pages / wall, failures]


def with_web(args: argparse.Namespace, netns: bool, run: Callable[[list[str], Path], list[object]]
             ) -> list[object]:
    """`run(seeds, tmp)` against a fresh web process (in the web's namespace with `netns`)."""
    base = "127.0.13" if netns else "127.0.10"
    web_prefix = Namespaces.run("web") if netns else []
    with tempfile.TemporaryDirectory(prefix="bench-agent-crawl-") as tmp, subprocess.Popen(
            [*web_prefix, sys.executable, "-m", "bench.agent_hosts_crawl", "--serve-web",
             f"--servers={args.servers}", f"--pages={args.pages}", f"--latency={args.latency}",
             f"--web-base={base}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as web:
        assert web.stdin is not None and web.stdout is not None
        seeds = json.loads(web.stdout.readline())
        row = run(seeds, Path(tmp))
        web.stdin.close()
        web.wait(timeout=30)
        web.stdout.close()
    return row


def measure(args: argparse.Namespace, ns: Namespaces | None
            ) -> tuple[list[list[object]], list[list[object]]]:
    """One crawl per configuration, each on a fresh web process; then with a host killed (and,
    in namespaces, one cut off the network)."""
    netns = ns is not None
    rows = [with_web(args, netns, lambda seeds, tmp, n=name, h=hosts: run_mode(n, h, seeds, tmp, netns))
            for name, hosts in (("local pool", 0), ("1 agent host", 1), ("2 agent hosts", 2),
                                ("4 agent hosts", 4))]
    killed = [with_web(args, netns, lambda seeds, tmp: run_killed(seeds, tmp, ns, args.kill_after))]
    if ns is not None:
        killed.append(with_web(args, netns, lambda seeds, tmp: run_killed(seeds, tmp, ns, args.kill_after,
                                                                          cut=True)))
    return rows, killed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=24)
    parser.add_argument("--pages", type=int, default=25)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--kill-after", type=float, default=5.0,
                        help="seconds into the last crawl when one of two agent hosts is killed")
    parser.add_argument("--netns", action="store_true", help="one network namespace per role (root)")
    parser.add_argument("--serve-web", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--web-base", default="127.0.10", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    if args.serve_web:
        serve_web(args.servers, args.pages, args.latency, args.web_base)
        return
    if args.netns:
        roles = {"web": [f"127.0.13.{n + 1}" for n in range(args.servers)], "engine": ["127.0.14.1"]}
        roles |= {f"h{n + 1}": [f"127.0.14.{2 + n}"] for n in range(4)}
        with namespaces(roles) as ns:
            rows, killed = measure(args, ns)
    else:
        rows, killed = measure(args, None)
    where = ("each role in its own network namespace, veth links to one bridge" if args.netns else
             "processes on loopback addresses of this one machine (no network namespaces)")
    body = table(["agents", "pages", "pages/s", "engine CPU s (with index writer, local agents)",
                  "scheduler CPU s", "agent hosts CPU s", "CPU ms per page, all roles"], rows)
    body += (f"\n\n{args.servers} servers x {args.pages} pages, every answer {args.latency} s late, "
             f"{AGENTS} agents in all, --delay 0; {where}; 2 cores shared by every role.\n\n")
    body += table(["a host lost mid-crawl", "pages", "crawl s", "pages/s", "failures"], killed)
    title = "a crawl with local agents and 1, 2, 4 agent hosts"
    by_name = {str(row[0]): row for row in rows}
    publish(f"Agent hosts{' in network namespaces' if args.netns else ''}: {title}", body, args.json,
            headline="CPU ms a page, local / 1 / 2 / 4 agent hosts: "
                     + " / ".join(f"{float(row[-1]):.1f}" for row in rows)
                     + f"; a killed host: {killed[0][-1]} failures",
            goal="pages/s and CPU per role for 1, 2, 4 agent hosts; a lost host loses no page",
            met=all(row[-1] == 0 for row in killed) and len(by_name) == 4)


if __name__ == "__main__":
    main()
