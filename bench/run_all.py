"""`make bench`: every benchmark, one after the other (never two at once), each appending
its section to BENCHMARKS.md.

    python -m bench.run_all [--quick] [--only throughput,scale,query_latency]

Each also runs alone: `python -m bench.throughput`, `python -m bench.scale`,
`python -m bench.query_latency` (each with --quick). quality.py (ranking quality)
has its own command and needs the documentation packages.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

BENCHMARKS = {
    "throughput": ["--profile"],
    "scale": [],
    "query_latency": [],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the short version of each")
    parser.add_argument("--only", default=",".join(BENCHMARKS), help="comma-separated names")
    args = parser.parse_args(argv)
    failed = []
    for name in args.only.split(","):
        extra = ["--quick"] if args.quick else BENCHMARKS[name]
        command = [sys.executable, "-m", f"bench.{name}", *extra]
        print(f"== {' '.join(command[1:])}", flush=True)
        if subprocess.run(command).returncode:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
