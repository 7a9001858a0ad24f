"""Where an agent's page goes, step by step: each step's own thread's CPU, without a profiler.

    python -m bench.agent_split [--pages 400] [--passes 3] [--rounds 2] [--before DIR]

`bench.agent_cpu`'s work (`Fetcher.retrieve` over `--pages` HTML pages of the test web's dev
group, in one process, then the answer pickled as the checkout's agent pickles it: `worker.encode`,
or `Connection.send`'s `ForkingPickler` in a checkout without it; the deadlines cut as the
agent cuts them, `Fetcher(alarm=True)` where the checkout has it), with the CPU
clock of the main thread (`time.thread_time_ns`) read around each step: the functions `retrieve`
calls, wrapped, and `parse_html`'s steps, timed by a copy of it that calls the module's own
functions in the same order. cProfile charges every Python call its own overhead, which for the
many small calls of a page weighs more than lxml's C; here a wrapped call costs about a
microsecond (two clock reads), about 0.05 ms over a page's wrapped calls. A step's time
includes its callees' (`retrieve` holds `_document`, which holds `make_document`, ...); `ALL
process` is the whole process's CPU (`time.process_time_ns`: the watchdog's thread too),
`ALL main thread` the main thread's. The first pass warms up; the figures are the mean of the
`--passes` after it, ms a page. `--before DIR` runs DIR's webcrawler package the same way,
alternating with this checkout's in fresh processes for `--rounds` rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from bench.agent_cpu import sample
from bench.common import ROOT, commit, median, table
from bench.throughput import ensure_testweb

_CHILD = r'''
import inspect, json, sys, time
from collections import defaultdict
from multiprocessing.reduction import ForkingPickler
from webcrawler.agents import client, fetch, parse, worker
from webcrawler.protocol.messages import AgentConfig, Retrieve

urls, passes = json.loads(sys.argv[1]), int(sys.argv[2])
T = defaultdict(int)
clock = time.thread_time_ns


def timed(name, function):
    def wrapper(*args, **kwargs):
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            T[name] += clock() - started
    return wrapper


def wrap(owner, attribute, name):
    if hasattr(owner, attribute):
        setattr(owner, attribute, timed(name, getattr(owner, attribute)))


for attribute, name in (("_answer", "_answer"), ("_document", "_document"), ("_get", "GET"),
                        ("_early_answer", "status and headers checked"),
                        ("_make_document", "_make_document"), ("_parse", "_parse"),
                        ("_document_of", "the Document made (checksum included)")):
    wrap(fetch.Fetcher, attribute, name)
for attribute, name in (("read_body", "body read"), ("decode", "decode"),
                        ("utf8_bytes", "utf8_bytes"), ("try_normalize", "final URL normalised")):
    wrap(fetch, attribute, name)
wrap(fetch.filetypes, "unindexable_url", "unindexable_url")
wrap(fetch.filetypes, "mime_type", "mime_type")
wrap(client.Response, "close", "response closed")
for attribute in ("arm", "watch", "disarm"):
    wrap(fetch.Watchdog, attribute, "watchdog " + attribute)
    if hasattr(fetch, "AlarmWatchdog"):  # the agent's, by SIGALRM
        wrap(fetch.AlarmWatchdog, attribute, "watchdog " + attribute)
_blake2b = fetch.hashlib.blake2b
fetch.hashlib = type("Hashlib", (), {"blake2b": staticmethod(timed("checksum (blake2b)", _blake2b))})
for attribute in ("_tree", "_scan", "meta_robots", "_mark_boilerplate", "visible_text",
                  "_base_url", "canonical_url", "heading_texts", "_alt_texts", "extract_links"):
    wrap(parse, attribute, "parse." + attribute)


def main_text(root):
    parse._mark_boilerplate(root)
    started = clock()
    result = parse._stylesheet("main", parse._MAIN_XSLT)(root)
    T["parse.main_text: stylesheet"] += clock() - started
    started = clock()
    text = str(result)
    T["parse.main_text: result as str"] += clock() - started
    del result
    started = clock()
    main = parse.collapse(text)
    T["parse.main_text: white space collapsed"] += clock() - started
    if len(main) >= 200:
        return main
    full = parse.visible_text(root)
    return main if len(main) >= parse.MIN_MAIN_SHARE * len(full) and main else full


parse.main_text = timed("parse.main_text", main_text)


def parse_html(text, url, robots_token="WebCrawler", max_links=5000, max_url_length=2048,
               names=None, main_content=False):
    started = clock()
    root = parse._tree(text)
    found = parse._scan(root)
    noindex, nofollow = parse.meta_robots(found.metas, robots_token)
    step = clock()
    title = "" if found.title is None else parse.collapse(parse.text_of(found.title))
    T["parse: title"] += clock() - step
    body_text = parse.main_text(root) if main_content else parse.visible_text(root)
    base = parse._base_url(found.base, url, max_url_length)
    canonical = parse.canonical_url(found.canonical, base, max_url_length, names)
    headings = parse.heading_texts(found.headings)
    links = ()
    if not nofollow:
        parse._alt_texts(found.images)
        links = parse.extract_links(found.anchors, base, max_links, max_url_length, names)
    parsed = parse.Parsed(title, body_text, links, noindex, nofollow, canonical, headings)
    step = clock()
    del root, found
    T["parse: tree freed"] += clock() - step
    T["parse_html"] += clock() - started
    return parsed


fetch.parse_html = parse_html
encode = getattr(worker, "encode", ForkingPickler.dumps)  # what the checkout's agent sends
agent = {"alarm": True} if "alarm" in inspect.signature(fetch.Fetcher).parameters else {}
with fetch.Fetcher(AgentConfig(), **agent) as fetcher:
    for number in range(passes + 1):
        if number == 1:
            T.clear()
            process, thread = time.process_time_ns(), clock()
        for job, url in enumerate(urls):
            started = clock()
            answer = fetcher.retrieve(Retrieve(job, url))
            T["retrieve"] += clock() - started
            started = clock()
            encode(answer)
            T["answer pickled"] += clock() - started
    T["ALL process"] = time.process_time_ns() - process
    T["ALL main thread"] = clock() - thread
pages = len(urls) * passes
print(json.dumps({name: value / pages / 1e6 for name, value in T.items()}))
'''


def run(checkout: Path, urls: list[str], passes: int) -> dict[str, float]:
    """ms a page of each step, one fresh process running `checkout`'s agent."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(urls), str(passes)],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(f"the agent run failed:\n{done.stderr[-2000:]}")
    return {name: float(value) for name, value in json.loads(done.stdout).items()}


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", type=Path, default=None, help="another checkout to alternate with")
    args = parser.parse_args(argv)
    ensure_testweb()
    urls = sample(args.pages)
    runs = {"this checkout": ROOT.resolve(), **({"before": args.before.resolve()} if args.before else {})}
    found: dict[str, list[dict[str, float]]] = {name: [] for name in runs}
    for number in range(args.rounds):
        for name, checkout in (reversed(runs.items()) if number % 2 else runs.items()):
            found[name].append(run(checkout, urls, args.passes))
            print(f"round {number + 1}, {name}: {found[name][-1]['retrieve']:.3f} ms a retrieve, "
                  f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    steps = sorted({step for rounds in found.values() for result in rounds for step in result},
                   key=lambda step: -median([r.get(step, 0.0) for r in found["this checkout"]]))
    labels = [f"{name} `{commit(checkout) or checkout.name}`" for name, checkout in runs.items()]
    rows = [[step, *(f"{median([r.get(step, 0.0) for r in found[name]]):.3f} ("
                     + ", ".join(f"{r.get(step, 0.0):.3f}" for r in found[name]) + ")"
                     for name in runs)] for step in steps]
    text = (f"{len(urls)} HTML pages of the test web's dev group, {args.passes} passes after one to "
            f"warm up, {args.rounds} rounds alternating; thread CPU ms a page of each step "
            "(median (each round)); a step includes its callees\n\n"
            + table(["step", *labels], rows))
    print(re.sub(r"\n{3,}", "\n\n", text))
    return text


if __name__ == "__main__":
    main()
