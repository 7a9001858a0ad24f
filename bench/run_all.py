"""`make bench-report`: re-run the quick benchmarks into bench/results/, then render BENCHMARKS.md.

    python -m bench.run_all [--only throughput,shards] [--skip workbench_graph] [--no-run]

Each quick benchmark (a few minutes at most; together 12 minutes on 2 cores at load 4-7)
runs alone, one after the other, with `--json bench/results/<name>.json`; a benchmark
that fails leaves its previous file in place and is named at the end. The long ones
(scale, query latency at 50,000 documents, freshness, the recrawl model, agent hosts
in network namespaces; Dask against Celery, which needs celery and redis-server) are
not re-run: their committed JSON, or their prose, stays as
published, with the command that produced it. Then bench/report.py rewrites the
generated parts of BENCHMARKS.md from every file in bench/results/.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from bench import report
from bench.common import RESULTS, ROOT

QUICK: dict[str, tuple[str, list[str]]] = {  # result file -> (bench module, its arguments)
    "change_threshold": ("change_threshold", ["--pages", "300"]),
    "toolkit_overhead": ("toolkit_overhead", ["--rounds", "3"]),
    "databases": ("databases", ["--docs", "1000", "--rounds", "2", "--postgres"]),
    "throughput": ("throughput", ["--quick"]),
    "throughput_heldout": ("throughput", ["--web", "heldout", "--quick"]),
    "query_latency_quick": ("query_latency", ["--quick", "--queries", "80"]),
    "shards": ("shards", ["--docs", "6000", "--queries", "400"]),
    "agent_hosts_crawl": ("agent_hosts_crawl", ["--servers", "24", "--pages", "25"]),
    "realtime": ("realtime", []),
    "quality": ("quality", []),
    "workbench_graph": ("workbench_graph", []),
    "workbench_memory": ("workbench_memory", []),
}


def run(name: str) -> tuple[bool, float]:
    """Run one benchmark into its result file; (succeeded, seconds)."""
    module, args = QUICK[name]
    result = (RESULTS / f"{name}.json").relative_to(ROOT)  # as the page shows it: from the checkout
    command = [sys.executable, "-m", f"bench.{module}", *args, "--json", str(result)]
    print(f"== {' '.join(command[1:])} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    started = time.monotonic()
    try:
        code = subprocess.run(command, cwd=ROOT, timeout=1200).returncode
    except subprocess.TimeoutExpired:
        code = -1
    return code == 0, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(QUICK), help="comma-separated names")
    parser.add_argument("--skip", default="", help="comma-separated names not to run")
    parser.add_argument("--no-run", action="store_true", help="only render BENCHMARKS.md")
    args = parser.parse_args(argv)
    names = [] if args.no_run else [n for n in args.only.split(",") if n and n not in args.skip.split(",")]
    unknown = [n for n in names if n not in QUICK]
    if unknown:
        print(f"not a quick benchmark: {', '.join(unknown)} (quick: {', '.join(QUICK)})", file=sys.stderr)
        return 2
    failed, took = [], []
    for name in names:
        ok, seconds = run(name)
        took.append(f"{name} {seconds:.0f} s")
        if not ok:
            failed.append(name)
    if names:
        print(f"ran {len(names)} benchmarks ({', '.join(took)}); load now {os.getloadavg()[0]:.1f}",
              file=sys.stderr)
    code = report.main([])
    if failed:
        print(f"failed (their previous figures kept): {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else code


if __name__ == "__main__":
    sys.exit(main())
