"""Freshness at equal bandwidth: recrawl policies on a changing web (issue 11, WebFountain section 3).

For each policy (none = batch, uniform, adaptive = Nutch's interval, buckets =
ours) the real crawler runs as a subprocess,

    webcrawler index --incremental --hours H --recrawl P --fetch-rate N ...

against a fresh copy of the same changing web (`tests/support/changeweb.py`,
served by its own process, day 0 when the crawl starts) for `--days` simulated
days of `--day-seconds` real seconds each. The server logs every answer; the
fraction of obsolete pages is sampled twice a simulated day from that log and
the web's truth (`bench/freshness_measure.py`). Three experiments:

1. the changing web (Cho and Garcia-Molina's spread): all four policies;
2. the same web frozen (spread "static"): buckets must not fall behind uniform;
3. a held-out web (another seed, the "heldout" spread): incremental (buckets)
   against batch (none), each crawl read back with `webcrawler export --format
   jsonl` at its end: the share of exported pages whose text is the live version.

    python -m bench.freshness [--quick] [--json out.json] [--publish] [--repeats N]

`--repeats N` crawls the changing web N times in all with uniform, adaptive and buckets
(the same web; the machine's timing differs), and keeps every run's figures with the result.

`--publish` writes bench/results/freshness.json and docs/freshness.png, then renders
BENCHMARKS.md from the results (bench/report.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.common import ROOT, command_line, commit, machine, table
from bench.freshness_measure import live_share, read_log, timeline
from tests.support.changeweb import ChangingWeb
from tests.support.genweb_server import GenWebProcess

log = logging.getLogger("bench.freshness")
POLICIES = ("none", "uniform", "adaptive", "buckets")
COLORS = {"none": "tab:gray", "uniform": "tab:blue", "adaptive": "tab:green", "buckets": "tab:red"}
STARTUP = 3.0  # real seconds from building the web to its day 0: the server starts, then the crawl


@dataclass(frozen=True)
class Size:
    servers: int
    pages: int  # per server at day 0
    days: float
    day_seconds: float
    fetch_rate: float  # fetches per second, every policy alike
    agents: int


# Sized for ~22 minutes on 2 cores: 8 crawls of 32 days x 4.5 s. At 15 fetches/s the first crawl of the
# ~300 pages takes ~4.5 days and a uniform cycle as long: bandwidth is scarce, as on the real Web.
FULL = Size(servers=6, pages=50, days=32, day_seconds=4.5, fetch_rate=15.0, agents=4)
QUICK = Size(servers=4, pages=25, days=30, day_seconds=1.0, fetch_rate=20.0, agents=3)


def make_web(size: Size, spread: str, seed: int, log_path: Path, epoch: float) -> ChangingWeb:
    return ChangingWeb(servers=size.servers, pages_per_server=size.pages, links_per_page=10,
                       page_bytes=3000, seed=seed, spread=spread, day_seconds=size.day_seconds,
                       epoch=epoch, first_address="127.0.48.0", log_path=str(log_path))


def run_policy(size: Size, spread: str, seed: int, policy: str, work: Path,
               export: bool = False, extra: tuple[str, ...] = (), label: str = "") -> dict[str, object]:
    """One crawl from an empty data dir; its figures, the obsolete timeline, and the export's.
    `extra`: more `index` options (such as --plan auto), named by `label`."""
    name = label or policy
    data, log_path = work / f"{spread}-{name}", work / f"{spread}-{name}.log"
    web = make_web(size, spread, seed, log_path, epoch=time.time() + STARTUP)
    with GenWebProcess(web) as served:
        crawl = _crawl(served, size, policy, data, until=served.clock.real(size.days), extra=extra)
        crawl_end = min(time.time(), served.clock.real(size.days))
    fetches = read_log(log_path)
    samples = timeline(served, fetches, served.epoch, crawl_end)
    figures = _stats(data)
    result: dict[str, object] = {
        "spread": spread, "policy": name, "crawl_exit": crawl.returncode,
        "mean_obsolete": _mean([s.obsolete for s in samples]),
        "steady_obsolete": _mean([s.obsolete for s in samples if s.day >= size.days / 2]),
        "final_obsolete": samples[-1].obsolete if samples else None,
        "requests": dict(fetches.statuses), "not_modified": fetches.statuses.get(304, 0),
        "trivial_served": fetches.trivial_served, "real_served": fetches.real_served,
        "trivial_ignored": figures.get("trivial"), "changed_seen": figures.get("changed"),
        "timeline": [asdict(s) | {"obsolete": s.obsolete} for s in samples],
        "plan_log": [line for line in crawl.stderr.splitlines() if "--plan auto" in line],
    }
    if export:
        result["export"] = live_share(served, _export(data), crawl_end)
    return result


def _crawl(web: ChangingWeb, size: Size, policy: str, data: Path, until: float,
           extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    hours = (until - time.time()) / 3600
    verbose = ["-v"] if extra else []  # the model's solve lines, for a reader of the log
    argv = [sys.executable, "-m", "webcrawler.cli", *verbose, "index", "--incremental",
            "--hours", f"{hours:.5f}",
            "--recrawl", policy, "--fetch-rate", str(size.fetch_rate), "--seed", web.seed_url,
            "--include", web.include_pattern, "--delay", "0", "--agents", str(size.agents),
            "--min-revisit", "0",  # days last seconds here: the policies alone set revisits
            "--data-dir", str(data), "--no-progress", *extra]
    log.info("crawling: %s", " ".join(argv[3 + len(verbose):]))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=hours * 3600 + 300)
    if result.returncode:
        log.warning("crawl %s exited %d: %s", policy, result.returncode, result.stderr.strip()[-500:])
    return result


def _stats(data: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "webcrawler.cli", "stats", "--json", "--data-dir", str(data)],
                         capture_output=True, text=True, timeout=120)
    try:
        return json.loads(out.stdout).get("recrawl", {})
    except json.JSONDecodeError:
        return {}


def _export(data: Path) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "webcrawler.cli", "export", "--format", "jsonl",
                          "--data-dir", str(data)], capture_output=True, text=True, timeout=300)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def experiments(size: Size, work: Path) -> dict[str, list[dict[str, object]]]:
    """The three experiments of the module docstring, one crawl after another."""
    return {
        "changing": [run_policy(size, "cho", 1994, p, work) for p in POLICIES],
        "static": [run_policy(size, "static", 1994, p, work) for p in ("uniform", "buckets")],
        "heldout": [run_policy(size, "heldout", 2001, p, work, export=True) for p in ("none", "buckets")],
    }


COMPARED = ("uniform", "adaptive", "buckets")  # the policies issue 11 compares run after run
REPEATED_FIGURES = ("policy", "mean_obsolete", "steady_obsolete", "final_obsolete", "requests")


def repeated(size: Size, work: Path, count: int, results: dict[str, list[dict]]) -> list[dict]:
    """The changing web's compared policies over `count` runs in all: the first is the run just
    made, the others crawl again from empty data dirs (the web and its seed are the same; what
    differs is the machine's timing, which is what a single run's difference must beat)."""
    def kept(result: dict, run: int) -> dict:
        return {k: result[k] for k in REPEATED_FIGURES} | {"run": str(run)}

    rows = [kept(r, 1) for r in results["changing"] if r["policy"] in COMPARED]
    for run in range(2, count + 1):
        (work / f"repeat-{run}").mkdir()
        rows += [kept(run_policy(size, "cho", 1994, p, work / f"repeat-{run}"), run) for p in COMPARED]
    return rows


def report(results: dict[str, list[dict[str, object]]], size: Size) -> str:
    """The Markdown tables of one run."""
    rows = [[r["policy"], *_obsolete(r),
             sum(r["requests"].values()), r["not_modified"],
             f"{r['trivial_ignored']} of {r['trivial_served']}",
             f"{r['changed_seen']} of {r['real_served']}"] for r in results["changing"]]
    text = [f"Web: {size.servers} servers x {size.pages} pages at day 0 (plus births), "
            f"{size.days:g} days of {size.day_seconds:g} s, --fetch-rate {size.fetch_rate:g} "
            f"for every policy, {size.agents} agents.",
            "", "Changing web (Cho and Garcia-Molina's spread):", "",
            table(["policy", "mean obsolete", "second half", "final", "page requests", "304s",
                   "trivial changes ignored (of served)", "changes seen (of served)"], rows),
            "", "Static web (nothing changes):", "",
            table(["policy", "mean obsolete", "second half", "final", "page requests"],
                  [[r["policy"], *_obsolete(r), sum(r["requests"].values())] for r in results["static"]]),
            "", "Held-out changing web (seed 2001, \"heldout\" spread), read back with "
            "`webcrawler export`:", "",
            table(["crawl", "mean obsolete", "exported pages", "live text at the end", "share"],
                  [["batch (none)" if r["policy"] == "none" else f"incremental ({r['policy']})",
                    _pct(r["mean_obsolete"]), r["export"]["exported"], r["export"]["current"],
                    _pct(r["export"]["share"])] for r in results["heldout"]])]
    return "\n".join(text)


def render_result(result: dict, render: Callable[[object, Size], str] = report) -> str:
    """A published run (bench/results/*.json) as BENCHMARKS.md shows it: when, where and by which
    command it was measured, its report, and the repeated runs kept with it."""
    run = result.get("run")
    text = (f"{run['date']}, commit `{run['commit']}`, {run['machine']}, {run['minutes']:.0f} "
            f"minutes.\n\nCommand: `{run['command']}`\n\n") if run else ""
    text += render(result["results"], Size(**result["size"])).rstrip()
    if result.get("repeats"):
        text += "\n\n" + _repeats(result["repeats"])
    return text.rstrip() + "\n"


def _repeats(rows: list[dict]) -> str:
    """Obsolete pages over the second half in every full-size run kept with the result: the
    run-to-run spread a single run's differences must beat."""
    runs, policies, cell = _by_run(rows)
    lines = ["Repeated full-size runs, obsolete over the second half:", "",
             "| run | " + " | ".join(policies) + " |", "|---|" + "---|" * len(policies)]
    for run in runs:
        lines.append(f"| {run} | " + " | ".join(_pct(cell.get((run, p))) for p in policies) + " |")
    means = [_mean([cell[r, p] for r in runs if (r, p) in cell]) for p in policies]
    lines.append("| mean | " + " | ".join(_pct(m) for m in means) + " |")
    return "\n".join(lines) + "\n"


def _by_run(rows: list[dict]) -> tuple[list[str], list[str], dict[tuple[str, str], float]]:
    """The runs, the policies and each (run, policy)'s obsolete share over the second half."""
    runs = list(dict.fromkeys(row["run"] for row in rows))
    policies = list(dict.fromkeys(row["policy"] for row in rows))
    return runs, policies, {(row["run"], row["policy"]): row["steady_obsolete"] for row in rows}


def summary(result: dict) -> tuple[str, str, bool]:
    """Issue 11's test, for BENCHMARKS.md's contents: over the second half (the first goes to
    discovering the web, alike for every policy), ours below uniform and adaptive in every run
    kept, and on the static web never behind uniform."""
    rows = result.get("repeats") or [dict(r, run="") for r in result["results"]["changing"]]
    runs, _, cell = _by_run(rows)
    won = [r for r in runs if cell[r, "buckets"] < min(cell[r, "uniform"], cell[r, "adaptive"])]
    means = {p: _mean([cell[r, p] for r in runs]) for p in ("buckets", "uniform", "adaptive")}
    static = {r["policy"]: r["mean_obsolete"] for r in result["results"]["static"]}
    headline = (f"second half, mean of {len(runs)} run(s): buckets {_pct(means['buckets'])}, uniform "
                f"{_pct(means['uniform'])}, adaptive {_pct(means['adaptive'])}; buckets lowest in "
                f"{len(won)} of {len(runs)}")
    return (headline, "fewer obsolete than uniform and adaptive; never behind uniform on a static web",
            len(won) == len(runs) and static["buckets"] <= static["uniform"])


def _obsolete(result: dict[str, object]) -> list[str]:
    return [_pct(result[k]) for k in ("mean_obsolete", "steady_obsolete", "final_obsolete")]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _pct(value: object) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"  # type: ignore[arg-type]


def plot(results: dict[str, list[dict[str, object]]], out: Path) -> None:
    """Obsolete fraction over simulated days, one line per policy, changing and static webs."""
    from webcrawler.plots import pyplot

    plt = pyplot()

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, name in zip(axes, ("changing", "static"), strict=True):
        for r in results[name]:
            points = r["timeline"]
            ax.plot([p["day"] for p in points], [100 * p["obsolete"] for p in points], label=r["policy"],
                    color=COLORS[r["policy"]])
        ax.set_title(f"{name} web")
        ax.set_xlabel("simulated day")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("obsolete pages (%)")
    for ax in axes:
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def publish(name: str, result: dict[str, object], minutes: float, where: str) -> None:
    """Write the run to bench/results/NAME.json, with when, where and how it was measured, and
    render BENCHMARKS.md from the results (bench/report.py): the page is its data, nothing
    appends. Call it before writing the plot, so the commit it names is not "+dirty" by it."""
    from bench.report import RESULTS
    from bench.report import main as render

    result = dict(result, run={"date": time.strftime("%Y-%m-%d"), "commit": commit(),
                               "machine": where, "minutes": round(minutes, 1),
                               "command": command_line()})
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    render([])


def bench_main(name: str, doc: str, run: Callable[[Size, Path], object],
               render: Callable[[object, Size], str], draw: Callable[[object, Path], None],
               repeat: Callable[[Size, Path, int, dict], list[dict]] | None = None) -> int:
    """The command line both freshness benches share: run at full or quick size, print the
    report, keep the JSON, and with --publish write bench/results/NAME.json, the plot
    docs/NAME.png (underscores as dashes) and render BENCHMARKS.md."""
    png = ROOT / "docs" / f"{name.replace('_', '-')}.png"
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="A small web and short days (a few minutes).")
    parser.add_argument("--json", type=Path, default=None, help="Write every figure and timeline here.")
    parser.add_argument("--publish", action="store_true",
                        help=f"Write bench/results/{name}.json and {png.relative_to(ROOT)}, then render "
                        "BENCHMARKS.md from the results.")
    if repeat is not None:
        parser.add_argument("--repeats", type=int, default=1, metavar="N",
                            help="Crawl the changing web N times in all and keep every run's figures "
                            "(the run-to-run spread).")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s")
    size = QUICK if args.quick else FULL
    started, where = time.time(), machine()
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as work:
        results = run(size, Path(work))
        repeats = repeat(size, Path(work), args.repeats, results) if repeat and args.repeats > 1 else None
    minutes = (time.time() - started) / 60
    data = {"size": asdict(size), "results": results} | ({"repeats": repeats} if repeats else {})
    if args.json:
        args.json.write_text(json.dumps(data, indent=1))
    print(render(results, size))
    if repeats:
        print("\n" + _repeats(repeats))
    print(f"\n{minutes:.1f} minutes")
    if args.publish:
        publish(name, data, minutes, where)
        draw(results, png)
    return 0


if __name__ == "__main__":
    sys.exit(bench_main("freshness", __doc__, experiments, report, plot, repeated))
