"""Freshness when WebFountain's model drives the crawl (issue 12): strategies 1-3 against issue 11's policies.

On the changing web of bench/freshness.py (Cho and Garcia-Molina's spread, seed 1994, the
same size and --fetch-rate), each crawl starts empty and runs for the web's whole span:

- buckets, uniform, adaptive: issue 11's policies (buckets with J's Cho optimum, replan.py);
- auto-1, auto-2, auto-3: `--recrawl buckets --plan auto --plan-strategy N`, the model
  re-solved at the start of each of the run's 14 periods from the live history
  (webcrawler/recrawl/model_driver.py).

The measure is bench/freshness_measure.py's obsolete share, sampled twice a simulated day.

    python -m bench.freshness_plans [--quick] [--json out.json] [--publish]

`--publish` writes bench/results/freshness_plans.json and docs/freshness-plans.png, then
renders BENCHMARKS.md from the results (bench/report.py).
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

from bench import freshness
from bench.common import table
from bench.freshness import Size, _obsolete, bench_main, run_policy

log = logging.getLogger("bench.freshness_plans")
RUNS: tuple[tuple[str, str, tuple[str, ...]], ...] = (  # (label, --recrawl, more options)
    *((f"auto-{n}", "buckets", ("--plan", "auto", "--plan-strategy", str(n))) for n in (1, 2, 3)),
    ("buckets", "buckets", ()),
    ("uniform", "uniform", ()),
    ("adaptive", "adaptive", ()),
)
COLORS = {"buckets": "tab:red", "uniform": "tab:blue", "adaptive": "tab:green",
          "auto-1": "tab:purple", "auto-2": "tab:orange", "auto-3": "tab:brown"}
SOLVED = re.compile(r"re-solved over (\d+) periods in ([\d.]+) s")


def solves(result: dict[str, object]) -> tuple[int, int, float | None]:
    """(solves, failed or skipped solves, slowest solve's seconds) from the crawl's log."""
    lines = result.get("plan_log") or []
    times = [float(m.group(2)) for line in lines if (m := SOLVED.search(line))]  # type: ignore[union-attr]
    kept = sum(1 for line in lines if "keeps the" in line)  # type: ignore[union-attr]
    return len(times), kept, max(times) if times else None


def report(results: list[dict[str, object]], size: Size) -> str:
    rows = []
    for r in results:
        n, kept, slowest = solves(r)
        rows.append([r["policy"], *_obsolete(r), sum(r["requests"].values()),  # type: ignore[union-attr]
                     f"{r['changed_seen']} of {r['real_served']}",
                     f"{n} ({kept} kept)" if r["policy"].startswith("auto") else "",  # type: ignore[union-attr]
                     f"{slowest:.2f}" if slowest is not None else ""])
    return "\n".join([
        f"Web: {size.servers} servers x {size.pages} pages at day 0 (plus births), {size.days:g} days "
        f"of {size.day_seconds:g} s, Cho and Garcia-Molina's spread (seed 1994), --fetch-rate "
        f"{size.fetch_rate:g} for every crawl, {size.agents} agents; the model's period is the run "
        "over 14.", "",
        table(["crawl", "mean obsolete", "second half", "final", "page requests",
               "changes seen (of served)", "model solves (failed/no history: plan kept)",
               "slowest solve s"], rows)])


def plot(results: list[dict[str, object]], out: Path) -> None:
    """Obsolete fraction over simulated days, one line per crawl."""
    from webcrawler.plots import pyplot

    plt = pyplot()

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for r in results:
        points = r["timeline"]
        ax.plot([p["day"] for p in points], [100 * p["obsolete"] for p in points],  # type: ignore[union-attr]
                label=r["policy"], color=COLORS[str(r["policy"])],
                linestyle="-" if str(r["policy"]).startswith("auto") else ":")
    ax.set_xlabel("simulated day")
    ax.set_ylabel("obsolete pages (%)")
    ax.set_title("The model's strategies driving the crawl (issue 12)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def render_result(result: dict) -> str:
    """The published run as BENCHMARKS.md shows it (bench/report.py)."""
    return freshness.render_result(result, report)


def summary(result: dict) -> tuple[str, str, None]:
    """BENCHMARKS.md's contents line: the best model strategy against buckets (no target set)."""
    obsolete = {r["policy"]: r["mean_obsolete"] for r in result["results"]}
    best = min((p for p in obsolete if p.startswith("auto")), key=obsolete.__getitem__)
    return (f"mean obsolete: best model strategy ({best}) {obsolete[best]:.1%}, buckets "
            f"{obsolete['buckets']:.1%}", "compare with issue 11's policies (no target set)", None)


def crawls(size: Size, work: Path) -> list[dict[str, object]]:
    """Each of RUNS, one crawl after another, on the same changing web."""
    return [run_policy(size, "cho", 1994, policy, work, extra=extra, label=label)
            for label, policy, extra in RUNS]


if __name__ == "__main__":
    sys.exit(bench_main("freshness_plans", __doc__, crawls, report, plot))
