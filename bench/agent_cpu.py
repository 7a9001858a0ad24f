"""An agent's CPU a page, in one process: this checkout's `Fetcher` against another checkout's.

    python -m bench.agent_cpu [--pages 400] [--rounds 5] [--before DIR] [--unseen] [--json FILE]
    python -m bench.agent_cpu --profile FILE [--pages 400]
    python -m bench.agent_cpu --same-answers --before DIR

What an agent of a batch crawl does for a page, without the crawl around it: `Fetcher.retrieve`
(GET on a kept-alive loopback connection, body, charset, parse, links, main content) and the
answer pickled as the checkout's agent pickles it for the pipe to the engine (`worker.encode`, or
`Connection.send`'s `ForkingPickler` in a checkout without it), with the agent's deadline cut
(`Fetcher(alarm=True)` where the checkout has it), over `--pages` HTML pages of the test
web's dev group spread over its servers. A whole crawl's rounds move by up to 10% (its engine
and writer share the two CPUs), more than most single changes to the agent save; here each
round is a fresh process per checkout, alternating, that reads the pages once to warm up
(connections, caches, lxml's parser and stylesheets) and then times three passes by its own
CPU clock (`time.process_time`: the watchdog thread counted too). The figure is the median
pass of the median round; `--before DIR` runs DIR's webcrawler package in the same way.
With `--unseen` each pass reads `--pages` pages that no earlier pass read, as a crawl's agent
does (its caches warm only through other pages of the same sites, never the same page twice);
without it every pass reads the same pages, and per-process caches are as warm as they get.
`--profile FILE` instead runs this checkout once under cProfile with the CPU clock and writes
its profile of the timed passes to FILE, sorted by own time and then by cumulative time
(docs/profiles/agent-cpu.txt).
`--same-answers --before DIR` instead has each checkout's `Fetcher` retrieve every HTML page of
the test web's dev group once, in page order, and says whether the answers are the same (title,
text, links with their anchors, headings, checksum, every field but the time taken): a change
to the agent's speed must not change what it extracts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import ROOT, commit, median, publish, table
from bench.throughput import ensure_testweb

MANIFEST = Path(os.environ.get("TESTWEB_RUN", "/tmp/testweb"), "expected-urls.json")
PASSES = 3
# What the pages may be answered with: a document, or (the one page over the default byte cap,
# which `--unseen` reads) a refusal from its Content-Length, as a crawl refuses it.
ALLOWED = {"Document:", "Failure:too-large"}

# Run with the checkout's package first on sys.path: only the standard library and the
# checkout's webcrawler are imported.
_CHILD = """
import inspect, json, sys, time
from multiprocessing.reduction import ForkingPickler
from webcrawler.agents import worker
from webcrawler.agents.fetch import Fetcher
from webcrawler.protocol.messages import AgentConfig, Document, Retrieve

encode = getattr(worker, "encode", ForkingPickler.dumps)  # what the checkout's agent sends
# The agent's own deadline cut (SIGALRM, no thread) where the checkout's Fetcher has it.
agent = {"alarm": True} if "alarm" in inspect.signature(Fetcher).parameters else {}

batches, passes, profile = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
times, kinds = [], set()
if profile:
    import cProfile, io, pstats
    profiler = cProfile.Profile(time.process_time)
with Fetcher(AgentConfig(), **agent) as fetcher:
    for number in range(passes + 1):
        if profile and number == 1:
            profiler.enable()
        urls = batches[number % len(batches)]
        started = time.process_time()
        for job, url in enumerate(urls):
            answer = fetcher.retrieve(Retrieve(job, url))
            encode(answer)
            kinds.add(type(answer).__name__ + ":" + getattr(answer, "reason", ""))
        times.append((time.process_time() - started) / len(urls) * 1000)
if profile:
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(60)
    stats.sort_stats("cumulative").print_stats(40)
    with open(profile, "w") as file:
        file.write(out.getvalue())
print(json.dumps({"ms": times[1:], "answers": sorted(kinds)}))
"""


# Every answer's fields but `elapsed`, one repr a page, in the manifest's order.
_ANSWERS = """
import dataclasses, json, sys
from webcrawler.agents.fetch import Fetcher
from webcrawler.protocol.messages import AgentConfig, Retrieve

with Fetcher(AgentConfig()) as fetcher, open(sys.argv[2], "w") as out:
    for job, url in enumerate(json.loads(sys.argv[1])):
        answer = fetcher.retrieve(Retrieve(job, url))
        out.write(json.dumps(repr(dataclasses.replace(answer, elapsed=0.0))) + "\\n")
"""


def same_answers(before: Path) -> str:
    """How many of the test web's HTML pages this checkout's agent and `before`'s answer alike;
    SystemExit when any differ."""
    urls = _html_urls()
    answers = []
    with tempfile.TemporaryDirectory() as scratch:
        for number, checkout in enumerate((ROOT.resolve(), before.resolve())):
            path = Path(scratch, f"{number}.jsonl")
            env = dict(os.environ, PYTHONPATH=str(checkout))
            done = subprocess.run([sys.executable, "-c", _ANSWERS, json.dumps(urls), str(path)],
                                  cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
            if done.returncode:
                raise RuntimeError(f"the agent run failed:\n{done.stderr[-2000:]}")
            answers.append(path.read_text().splitlines())
    differ = [url for url, ours, theirs in zip(urls, *answers, strict=True) if ours != theirs]
    line = (f"{len(urls)} test-web pages, answers of this checkout `{commit(ROOT.resolve())}` and "
            f"`{commit(before.resolve())}`: {len(differ)} differ")
    if differ:
        raise SystemExit(line + ": " + ", ".join(differ[:10]))
    return line


def sample(pages: int) -> list[str]:
    """`pages` HTML URLs of the test web, every n-th of each server's in turn."""
    urls = _html_urls()
    return urls[:: max(1, len(urls) // pages)][:pages]


def batches(pages: int, unseen: bool) -> list[list[str]]:
    """The pages of each pass, the warm-up's first: the same `sample` for all, or (`unseen`)
    PASSES + 1 disjoint ones, every n-th URL in turn so that each spreads over all servers."""
    if not unseen:
        return [sample(pages)]
    urls = _html_urls()
    count = PASSES + 1
    if len(urls) < count * pages:
        raise SystemExit(f"--unseen needs {count * pages} pages, the test web has {len(urls)}")
    spread = urls[:: max(1, len(urls) // (count * pages))][: count * pages]
    return [spread[start::count] for start in range(count)]


def _html_urls() -> list[str]:
    manifest = json.loads(MANIFEST.read_text())
    return [u for site in manifest.values() for u in site["html_urls"]]


def run(checkout: Path, urls: list[list[str]], profile: Path | None = None) -> list[float]:
    """CPU ms a page of each timed pass of one fresh process running `checkout`'s agent over
    `urls` (the pages of each pass in turn; profiled into `profile` when given)."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(urls), str(PASSES),
                           str(profile.resolve()) if profile else ""],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(f"the agent run failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    if set(result["answers"]) - ALLOWED:
        raise RuntimeError(f"not every page was a document: {result['answers']}")
    return [float(v) for v in result["ms"]]


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--unseen", action="store_true",
                        help="each pass reads pages no earlier pass read, as a crawl's agent does")
    parser.add_argument("--before", type=Path, default=None, help="another checkout to alternate with")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    parser.add_argument("--profile", type=Path, default=None,
                        help="profile one run of this checkout into this file instead")
    parser.add_argument("--same-answers", action="store_true",
                        help="check that --before's agent answers every page as this one does")
    args = parser.parse_args(argv)
    ensure_testweb()
    if args.same_answers:
        if args.before is None:
            parser.error("--same-answers needs --before")
        line = same_answers(args.before)
        print(line)
        return line
    urls = batches(args.pages, args.unseen)
    if args.profile:
        passes = run(ROOT.resolve(), urls, args.profile)
        header = (f"# bench.agent_cpu: cProfile (CPU clock) of {PASSES} passes over {len(urls[-1])} "
                  f"test-web pages in one process, commit {commit(ROOT.resolve())}; unprofiled "
                  "figures are lower: the profiler weighs Python calls more than lxml's C\n"
                  f"# python -m bench.agent_cpu --profile {args.profile} --pages {args.pages}"
                  + (" --unseen" if args.unseen else "") + "\n")
        args.profile.write_text(header + args.profile.read_text())
        return ", ".join(f"{v:.3f}" for v in passes) + " ms a page, profiled"
    runs = {"this checkout": ROOT.resolve(), **({"before": args.before.resolve()} if args.before else {})}
    rounds: dict[str, list[float]] = {name: [] for name in runs}
    for number in range(args.rounds):
        for name, checkout in (reversed(runs.items()) if number % 2 else runs.items()):
            passes = run(checkout, urls)
            rounds[name].append(median(passes))
            print(f"round {number + 1}, {name}: " + ", ".join(f"{v:.3f}" for v in passes)
                  + f" ms a page, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    return report(args, runs, rounds, len(urls[-1]))


def report(args: argparse.Namespace, runs: dict[str, Path], rounds: dict[str, list[float]],
           pages: int) -> str:
    labels = {name: f"{name} `{commit(checkout) or checkout.name}`" for name, checkout in runs.items()}
    ours = median(rounds["this checkout"])
    rows = [[labels[name], f"{median(values):.3f}", ", ".join(f"{v:.3f}" for v in values),
             f"{median(values) / ours:.2f}"] for name, values in rounds.items()]
    body = (f"{pages} HTML pages of the test web's dev group, {args.rounds} rounds alternating, "
            f"each a fresh process timing {PASSES} passes after one to warm up"
            + (", each pass over pages no earlier one read (`--unseen`)" if args.unseen else
               ", all over the same pages") + "; CPU ms a page "
            "(`Fetcher.retrieve` and the answer pickled): the median pass of each round.\n\n"
            + table(["agent", "ms a page (median)", "each round", "against this checkout"], rows))
    before = f", before {median(rounds['before']):.3f}" if "before" in rounds else ""
    return publish("An agent's CPU a page, in one process", body, args.json,
                   headline=f"{ours:.3f} ms CPU a page{before}")


if __name__ == "__main__":
    main()
