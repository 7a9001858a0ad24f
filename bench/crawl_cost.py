"""Batch crawl CPU per page against an older commit, and what each part of the crawl costs.

    python -m bench.crawl_cost --baseline /work/baseline [--rounds 3] [--json FILE]
    python -m bench.crawl_cost --parts [--json FILE]

`--baseline` is a checkout of the commit to compare with, with its own `.venv`
(`git worktree add DIR COMMIT && make -C DIR install`). Each round runs
`bench.throughput`'s own command (`webcrawler index` on the test web, dev group,
`--delay 0`) once with the baseline's code and once per variant of this checkout's
(defaults, then each part turned off), alternating, so load on the shared machine hits
every run alike. A run's figure is the CPU seconds of its whole process tree (engine,
agents, index writer; sampled as bench.throughput does) per page retrieved; the
table gives the median over the rounds. A part's cost is the defaults' median less
the median of the run with that part off. A second table splits each run's CPU seconds by
process (engine, index writer, agents and the rest), which moves much less than the whole
from round to round.

`--parts` measures instead, in this process, what each part's own code costs a page on
the test web's pages as one agent answers them (CPU time, best of five passes): the
shingle sketch and the near-duplicate index's lookup (engine), the tracking-parameter
strip and the `--types` check of every link (agent and scope), the sitemap test of every
request (engine), the canonical link's judgement (engine). A shared machine moves whole
crawls by 10% between identical runs; these figures are steadier.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.common import commit, median, publish, table
from bench.throughput import WEBCRAWLER, ensure_testweb, run_ours
from webcrawler.agents.fetch import Fetcher
from webcrawler.engine.loop.near_duplicates import BAND_KEYS, NearDuplicates
from webcrawler.engine.loop.policies import Scope
from webcrawler.protocol.filetypes import looks_like_sitemap, unindexable_url
from webcrawler.protocol.messages import DOCUMENT_TYPES, AgentConfig, Document, Retrieve
from webcrawler.protocol.urls import ParamNames, strip_params
from webcrawler.text.shingles import sketch

DEFAULTS = "this checkout, defaults (every part on)"
PARTS: dict[str, tuple[str, list[str]]] = {  # --off NAME: (what is measured, flags beyond the defaults)
    "near-duplicates": ("near-duplicates off", ["--near-duplicates", "0"]),
    "sitemaps": ("sitemaps off", ["--no-sitemaps"]),
    "params": ("tracking/session parameters kept", ["--strip-param", ""]),
    "link-refresh": ("link refresh off", ["--link-refresh", "0"]),
    "main-content": ("whole text indexed", ["--all-text"]),
}


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path,
                        help="a checkout of the older commit, with its .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--off", default=",".join(PARTS),
                        help=f"parts to measure by turning each off, comma-separated ({', '.join(PARTS)}; "
                             "'' for none)")
    parser.add_argument("--parts", action="store_true",
                        help="the cost of each part's own code, in this process (no crawl)")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args(argv)
    if args.parts:
        return part_costs(args)
    if args.baseline is None:
        parser.error("--baseline is needed (or --parts)")
    old = args.baseline / ".venv" / "bin" / "webcrawler"
    if not old.exists():
        raise SystemExit(f"{old} not found: --baseline needs a checkout with its .venv")
    ensure_testweb()
    unknown = [name for name in args.off.split(",") if name and name not in PARTS]
    if unknown:
        parser.error(f"--off: unknown part {unknown[0]!r} (choose from {', '.join(PARTS)})")
    parts = [PARTS[name] for name in args.off.split(",") if name]
    contenders: list[tuple[str, Path, list[str]]] = [
        (f"baseline {commit(args.baseline)}", old, []), (DEFAULTS, WEBCRAWLER, []),
        *((name, WEBCRAWLER, flags) for name, flags in parts)]
    per_page: dict[str, list[float]] = {name: [] for name, _, _ in contenders}
    pages: dict[str, list[int]] = {name: [] for name, _, _ in contenders}
    roles: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in contenders}
    with tempfile.TemporaryDirectory(prefix="bench-crawl-cost-") as tmp:
        for number in range(args.rounds):
            for name, binary, flags in contenders:
                retrieved, seconds, cpu = run_ours(Path(tmp), binary, flags)
                used = cpu["engine"] + cpu["all children"]
                per_page[name].append(used / retrieved * 1000)
                pages[name].append(retrieved)
                roles[name].append(by_role(cpu))
                print(f"round {number + 1}: {name}: {retrieved} pages, {used:.1f} CPU s "
                      f"({per_page[name][-1]:.2f} ms a page; engine {cpu['engine']:.1f} s, index "
                      f"writer {cpu['busiest child']:.1f} s), "
                      f"{seconds:.0f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    return report(contenders, per_page, pages, args, roles)


def by_role(cpu: dict[str, float]) -> dict[str, float]:
    """A crawl's CPU seconds by process: the engine, the index writer (the busiest child), and
    the agents with the forkserver and its resource tracker (the rest)."""
    return {"engine": cpu["engine"], "index writer": cpu["busiest child"],
            "agents and the rest": cpu["all children"] - cpu["busiest child"]}


def report(contenders: list, per_page: dict[str, list[float]], pages: dict[str, list[int]],
           args: argparse.Namespace, roles: dict[str, list[dict[str, float]]] | None = None) -> str:
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
                     "against the baseline", "the part's cost (ms a page)"], rows)
            + (_roles_table(contenders, roles) if roles else ""))
    return publish("Batch crawl CPU per page with every part of issue 25 on", body, args.json,
                   headline=f"{change:+.1f}% CPU a page against {base_name.split()[-1]}",
                   goal="within 10% of 8232520's with all of it on", met=change <= 10)


def _roles_table(contenders: list, roles: dict[str, list[dict[str, float]]]) -> str:
    """CPU seconds a crawl by process, medians of the rounds: where a difference comes from."""
    names = ["engine", "index writer", "agents and the rest"]
    rows = [[name, *(median([r[role] for r in roles[name]]) for role in names)]
            for name, _, _ in contenders]
    return ("\n\nCPU seconds a crawl by process (medians of the rounds; the index writer is the "
            "busiest child process):\n\n" + table(["run", *names], rows))


def part_costs(args: argparse.Namespace, pages: int = 300) -> str:
    """Each part's own code, timed on the test web's pages (bench.throughput's sample)."""
    ensure_testweb()
    docs = _answers(pages)
    links = [link.url for doc in docs for link in doc.links]
    names, types, scope = ParamNames(), DOCUMENT_TYPES, Scope()
    index = NearDuplicates.__new__(NearDuplicates)  # the banding index alone: no database rows
    index.threshold, index._buckets, index.found = 0.8, {}, 0
    sketches = [sketch(doc.text) for doc in docs]

    def banding() -> None:
        for doc_id, signature in enumerate(sketches):
            keys = _keys(signature)
            index._file(doc_id, keys)
            shared: dict[int, int] = {}
            for key in keys:
                for other in index._buckets.get(key, ()):
                    shared[other] = shared.get(other, 0) + 1

    timed = {
        "near-duplicates: the sketch (engine)": lambda: [sketch(doc.text) for doc in docs],
        "near-duplicates: the banding index, candidates counted (engine)": banding,
        "tracking parameters: every link stripped (agent)": lambda: [
            strip_params(u, names) for u in links],
        "--types: every link's extension (scope)": lambda: [unindexable_url(u, types) for u in links],
        "sitemaps: is the request a sitemap? (engine)": lambda: [
            looks_like_sitemap(doc.url) for doc in docs],
        "canonical: the declared URL judged by the scope (engine)": lambda: [
            scope.why_not(doc.canonical, 1) for doc in docs if doc.canonical],
    }
    rows = [[name, f"{_best(run) / len(docs) * 1000:.3f}"] for name, run in timed.items()]
    body = (f"{len(docs)} test-web pages ({len(links) / len(docs):.0f} links a page; "
            f"{sum(bool(d.canonical) for d in docs)} name a canonical URL), CPU ms a page, best of "
            "five passes in one process.\n\n" + table(["part", "ms CPU a page"], rows))
    return publish("What each part of issue 25 costs a page", body, args.json)


def _answers(count: int) -> list[Document]:
    manifest = json.loads(Path(os.environ.get("TESTWEB_RUN", "/tmp/testweb"), "expected-urls.json")
                          .read_text())
    urls = [u for site in manifest.values() for u in site["html_urls"]]
    urls = urls[:: max(1, len(urls) // count)][:count]
    with Fetcher(AgentConfig()) as fetcher:
        answers = [fetcher.retrieve(Retrieve(n, url)) for n, url in enumerate(urls)]
    return [a for a in answers if isinstance(a, Document)]


def _keys(signature: bytes) -> list[int]:
    return [int(h) for h in np.frombuffer(signature, dtype="<u4")[1:1 + BAND_KEYS]]


def _best(run: Callable[[], object], passes: int = 5) -> float:
    times = []
    for _ in range(passes):
        started = time.process_time()
        run()
        times.append(time.process_time() - started)
    return min(times)


if __name__ == "__main__":
    main()
