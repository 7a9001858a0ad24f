"""Batch crawl CPU per page against an older commit, and what each part of the crawl costs.

    python -m bench.crawl_cost --baseline /work/baseline [--rounds 3] [--json FILE]

`--baseline` is a checkout of the commit to compare with, with its own `.venv`
(`git worktree add DIR COMMIT && make -C DIR install`). Each round runs
`bench.throughput`'s own command (`webcrawler index` on the test web, dev group,
`--delay 0`) once with the baseline's code and once per variant of this checkout's
(defaults, then each part turned off), alternating, so load on the shared machine hits
every run alike. A run's figure is the CPU seconds of its whole process tree (engine,
agents, index writer; sampled as bench.throughput does) per page retrieved; the
table gives the median over the rounds. A part's cost is the defaults' median less
the median of the run with that part off.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import median, publish, table
from bench.throughput import WEBCRAWLER, ensure_testweb, run_ours

DEFAULTS = "this checkout, defaults (every part on)"
PARTS: dict[str, tuple[str, list[str]]] = {  # --off NAME: (what is measured, flags beyond the defaults)
    "near-duplicates": ("near-duplicates off", ["--near-duplicates", "0"]),
    "sitemaps": ("sitemaps off", ["--no-sitemaps"]),
    "params": ("tracking/session parameters kept", ["--strip-param", ""]),
}


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True,
                        help="a checkout of the older commit, with its .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--off", default=",".join(PARTS),
                        help=f"parts to measure by turning each off, comma-separated ({', '.join(PARTS)}; "
                             "'' for none)")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args(argv)
    old = args.baseline / ".venv" / "bin" / "webcrawler"
    if not old.exists():
        raise SystemExit(f"{old} not found: --baseline needs a checkout with its .venv")
    ensure_testweb()
    parts = [PARTS[name] for name in args.off.split(",") if name]
    contenders = [(f"baseline {_commit(args.baseline)}", old, []), (DEFAULTS, WEBCRAWLER, [])] + [
        (name, WEBCRAWLER, flags) for name, flags in parts]
    per_page: dict[str, list[float]] = {name: [] for name, _, _ in contenders}
    pages: dict[str, list[int]] = {name: [] for name, _, _ in contenders}
    with tempfile.TemporaryDirectory(prefix="bench-crawl-cost-") as tmp:
        for number in range(args.rounds):
            for name, binary, flags in contenders:
                retrieved, seconds, cpu = run_ours(Path(tmp), binary, flags)
                used = cpu["engine"] + cpu["all children"]
                per_page[name].append(used / retrieved * 1000)
                pages[name].append(retrieved)
                print(f"round {number + 1}: {name}: {retrieved} pages, {used:.1f} CPU s "
                      f"({per_page[name][-1]:.2f} ms a page; engine {cpu['engine']:.1f} s, index "
                      f"writer {cpu['busiest child']:.1f} s), "
                      f"{seconds:.0f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    return report(contenders, per_page, pages, args)


def report(contenders: list, per_page: dict[str, list[float]], pages: dict[str, list[int]],
           args: argparse.Namespace) -> str:
    base_name, defaults = contenders[0][0], contenders[1][0]
    base = median(per_page[base_name])
    rows = []
    for name, _, flags in contenders:
        ms = median(per_page[name])
        cost = "" if name in (base_name, defaults) else f"{median(per_page[defaults]) - ms:+.2f}"
        rows.append([name, " ".join(repr(f) if not f else f for f in flags) or "-",
                     int(median(pages[name])), ms, ", ".join(f"{v:.2f}" for v in per_page[name]),
                     f"{(ms / base - 1) * 100:+.1f}%", cost])
    ours = median(per_page[defaults])
    change = (ours / base - 1) * 100
    body = (f"{args.rounds} rounds, alternating; CPU seconds of every process of the crawl per page "
            "retrieved, in ms (median of the rounds). The part's cost is the defaults' median less "
            "the run's with that part off.\n\n"
            + table(["run", "flags", "pages", "ms CPU a page (median)", "each round",
                     "against the baseline", "the part's cost (ms a page)"], rows))
    return publish("Batch crawl CPU per page with every part of issue 25 on", body, args.json,
                   headline=f"{change:+.1f}% CPU a page against {base_name.split()[-1]}",
                   goal="within 10% of 8232520's with all of it on", met=change <= 10)


def _commit(checkout: Path) -> str:
    out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True, timeout=10)
    return out.stdout.strip() or checkout.name


if __name__ == "__main__":
    main()
