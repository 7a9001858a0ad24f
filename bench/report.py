"""BENCHMARKS.md from bench/results/*.json: the page cannot drift from its data.

    python -m bench.report            # rewrite the generated parts of BENCHMARKS.md
    python -m bench.report --check    # exit 1 if BENCHMARKS.md differs from its data

Each result file bench/results/NAME.json is rendered between `<!-- bench:NAME -->` and
`<!-- /bench:NAME -->`; everything outside the markers is hand-written prose and left
alone. The table of contents (`<!-- bench:contents -->`) is generated too: one row per
area, its headline figure and goal from the area's JSON, or from `AREAS` below for the
figures measured by hand or before their bench wrote JSON. Most files come from
`bench.common.publish`; the freshness benches keep their own schema ({size, results, run}),
rendered by their own `render_result` and `summary` functions.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from bench.common import RESULTS, ROOT, render

PAGE = ROOT / "BENCHMARKS.md"
MARKER = re.compile(r"(<!-- bench:(?P<name>[\w-]+) -->\n)(?P<inner>.*?)(<!-- /bench:(?P=name) -->)", re.S)


@dataclass(frozen=True)
class Area:
    """One row of the table of contents: a section of the page and where its headline comes from."""

    title: str  # the section's heading (## ...), linked from the table
    result: str | None = None  # bench/results/<result>.json gives headline, goal and met
    headline: str = ""  # for figures with no JSON source
    goal: str = ""
    met: bool | None = None


AREAS = [
    Area("Crawl throughput against Scrapy", "throughput"),
    Area("Crawl throughput against Scrapy on a held-out web", "throughput_heldout"),
    Area("A lean page: where a crawl's CPU goes (issue 36)", "crawl_profile"),
    Area("Scale: a million URLs on ten thousand servers", None,
         "1,840,544 URLs on 10,000 servers; engine 90 MB; early / late 0.85",
         ">= 1,000,000 URLs, >= 10,000 servers, engine <= 200 MB, early / late <= 1.5", True),
    Area("Index throughput", "writer_cpu_commit_20k"),
    Area("Query latency", None, "50,000 documents: p50 4.35 ms, p99 7.54 ms (writer committing: "
         "4.53 / 13.5 ms)", "p50 <= 10 ms, p99 <= 50 ms at >= 50,000 documents", True),
    Area("A million documents", "million"),
    Area("Ranking quality", "quality"),
    Area("Typo tolerance", "quality-typos"),
    Area("Language detection", "languages"),
    Area("Autocomplete latency", "suggest_latency"),
    Area("Search latency on the test web", "search_latency"),
    Area("Real-time search", "realtime"),
    Area("URL ordering", None, "backlink ordering: 47% of the hot pages at 10% of the crawl "
         "(breadth-first 22%)", "the paper's orderings compared on our crawl"),
    Area("Freshness: recrawl policies", "freshness"),
    Area("Freshness: real crawls against the optimum, on held-out webs", "freshness_crawls"),
    Area("Freshness at a fixed bandwidth against the optimum", "freshness_optimum"),
    Area("Freshness: the model-driven crawl in the simulator", "freshness_model_sim"),
    Area("The recrawl model at the paper's scale", None, "strategies 1-3 solved in 14-23 CPU s; "
         "objectives 2 < 3 < 1", "within the minute, objectives ordered 2 < 3 < 1", True),
    Area("Toolkit overhead", "toolkit_overhead"),
    Area("Workbench responsiveness", "workbench_graph"),
    Area("Workbench memory", "workbench_memory"),
    Area("Scale-out: agent hosts", "agent_hosts_crawl"),
    Area("Scale-out: agent hosts in network namespaces", None,
         "CPU ms a page, local / 1 / 2 / 4 agent hosts: 8.6 / 10.7 / 12.9 / 17.3; a lost host: 0 failures",
         "pages/s and CPU per role for 1, 2, 4 agent hosts; a lost host loses no page", True),
    Area("Scale-out: Dask against Celery", None, "Dask: 27 ms a round trip, 5.4 ms a task in flight, "
         "a killed worker's task re-run at once; Celery's not within 30 s",
         "measure two engines on dispatch and failure detection, then choose", True),
    Area("Scale-out: index shards", "shards"),
    Area("Scale-out: databases", "databases"),
    Area("Scale-out: 100 million pages a day", None, "one engine carries 270-450 pages/s "
         "(26-39 million a day)", "100 million pages a day (1,157 pages/s)", False),
    Area("Change detection threshold", "change_threshold"),
    Area("Retries on a flaky web", "flaky_web"),
    Area("Politeness that learns: a rate-limited server", "rate_limit"),
    Area("Traps that stop traps: endless calendars", "traps"),
    Area("Main content", "main_content"),
    Area("Rendering script pages", "render"),
    Area("Parsers on hostile input", "parsers"),
    Area("Test suite", None, "make test 233-241 s against 8232520's 363 s, one after the other "
         "(34-36% less); three runs in a row passed", "at least 30% less wall time than 8232520's "
         "suite; three passes in a row", True),
    Area("One URL per document, every format (issue 25)", "crawl_cost_ab"),
]


def load(results: Path = RESULTS) -> dict[str, dict]:
    """Every result file by name (its stem)."""
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(results.glob("*.json"))}


def _bench(name: str) -> ModuleType:
    """A bench that renders its own JSON (the freshness benches: {size, results, run})."""
    return importlib.import_module(f"bench.{name}")


def block(name: str, result: dict) -> str:
    """The generated markdown of one result file."""
    return render(result) if "body" in result else _bench(name).render_result(result)


def summary(name: str, result: dict) -> tuple[str, str, bool | None]:
    """(headline, goal, met) of one result file, for the table of contents."""
    if "body" in result:
        return str(result["headline"]), str(result["goal"]), result["met"]
    return _bench(name).summary(result)


def contents(results: dict[str, dict]) -> str:
    """The table of contents: area, headline figure, goal, met."""
    lines = ["| area | headline figure | goal | met? |", "|---|---|---|---|"]
    for area in AREAS:
        if area.result is not None and area.result in results:
            headline, goal, met = summary(area.result, results[area.result])
        else:
            headline, goal, met = area.headline, area.goal, area.met
        anchor = re.sub(r"[^\w\- ]", "", area.title.lower()).replace(" ", "-")
        mark = {True: "yes", False: "**no**", None: "-"}[met]
        lines.append(f"| [{area.title}](#{anchor}) | {headline} | {goal} | {mark} |")
    return "\n".join(lines) + "\n"


def rewrite(page: str, results: dict[str, dict]) -> str:
    """The page with every marked block replaced by its data's rendering."""
    blocks = {name: block(name, result) for name, result in results.items()}
    blocks["contents"] = contents(results)
    missing = sorted(set(blocks) - set(m.group("name") for m in MARKER.finditer(page)))
    if missing:
        raise SystemExit(f"BENCHMARKS.md has no <!-- bench:NAME --> marker for: {', '.join(missing)}")

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in blocks:
            raise SystemExit(f"BENCHMARKS.md marks bench:{name} but bench/results/{name}.json is missing")
        return match.group(1) + blocks[name] + match.group(4)

    return MARKER.sub(replace, page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the page matches its data")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    results = load()
    new = rewrite(page, results)
    if args.check:
        if new != page:
            print("BENCHMARKS.md differs from bench/results/*.json: run `python -m bench.report`",
                  file=sys.stderr)
            return 1
        print(f"BENCHMARKS.md matches its {len(results)} result files")
        return 0
    PAGE.write_text(new, encoding="utf-8")
    print(f"BENCHMARKS.md rendered from {len(results)} result files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
