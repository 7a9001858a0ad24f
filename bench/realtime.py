"""Real-time search: relevant documents found per 100 fetches, anchor-guided vs breadth-first.

    python -m bench.realtime [--pages-per-topic 150] [--index-docs 150] [--fetches 100] [--json FILE]

A generated loopback web (tests/realtime/topicweb.py: 6 topics over 4 servers
on 127.0.7.x, anchors naming their target's topic) is partly indexed by
`webcrawler index` (the first `--index-docs` documents, breadth-first from the
home pages). Then, for one query per topic, two real-time searches start from
copies of that same data directory and the same starting documents (the
query's top results in the index): the anchor-text-guided search, and an
unguided breadth-first expansion of the same documents' links. Each may fetch
`--fetches` documents; a fetched document is relevant when its page belongs to
the query's topic (the web's ground truth).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import publish  # noqa: E402
from tests.realtime.topicweb import TOPICS, TopicWeb  # noqa: E402
from webcrawler.commands.index import run_index  # noqa: E402
from webcrawler.engine.realtime.search import RealtimeOptions, run_realtime  # noqa: E402
from webcrawler.settings import Settings  # noqa: E402


def settings(data_dir: Path, **changes: object) -> Settings:
    base = Settings(data_dir=data_dir, agents=4, delay=0.0, hours=0.2, commit_every=20,
                    progress_interval=60.0, connect_timeout=2.0, read_timeout=2.0,
                    total_timeout=5.0)
    return Settings(**{**base.__dict__, **changes})


def search(web: TopicWeb, base: Path, work: Path, query: str, topic: str, guided: bool,
           fetches: int) -> tuple[int, int, float]:
    """(documents fetched, relevant among them, seconds) of one real-time search."""
    data = work / ("guided" if guided else "bfs") / topic
    shutil.copytree(base, data)
    assert web.web is not None
    mark = len(web.web.log.snapshot())
    started = time.monotonic()
    run_realtime(settings(data, agents=2), RealtimeOptions(
        query, seconds=120.0, want=10**6, threshold=1, max_fetches=fetches, guided=guided))
    seconds = time.monotonic() - started
    urls = [f"http://{h.server}{h.path}" for h in web.web.log.snapshot()[mark:]
            if h.path != "/robots.txt"]
    return len(urls), sum(web.topic_of(u) == topic for u in urls), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages-per-topic", type=int, default=150)
    parser.add_argument("--index-docs", type=int, default=150)
    parser.add_argument("--fetches", type=int, default=100)
    parser.add_argument("--topics", type=int, default=len(TOPICS))
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, TopicWeb(pages_per_topic=args.pages_per_topic) as web:
        work = Path(tmp)
        base = work / "base"
        run_index(settings(base, seeds=tuple(web.homes()), max_docs=args.index_docs),
                  progress=False)
        print(f"web: {len(TOPICS) * args.pages_per_topic} pages, {len(TOPICS)} topics; "
              f"index holds {args.index_docs} documents", file=sys.stderr)
        for topic, words in list(TOPICS.items())[: args.topics]:
            query = " ".join(words[:2])
            g = search(web, base, work, query, topic, True, args.fetches)
            b = search(web, base, work, query, topic, False, args.fetches)
            rows.append((query, g, b))
            print(f"{query}: guided {g}, breadth-first {b}", file=sys.stderr)
    lines = ["| query | guided: relevant / fetched | per 100 | breadth-first: relevant / fetched "
             "| per 100 | ratio |", "|---|---|---|---|---|---|"]
    totals = [0, 0, 0, 0]
    for query, (gf, gr, _), (bf, br, _) in rows:
        totals = [totals[0] + gr, totals[1] + gf, totals[2] + br, totals[3] + bf]
        lines.append(f"| {query} | {gr} / {gf} | {100 * gr / max(gf, 1):.0f} | {br} / {bf} "
                     f"| {100 * br / max(bf, 1):.0f} | {_ratio(gr, gf, br, bf)} |")
    gr, gf, br, bf = totals
    lines.append(f"| **all** | {gr} / {gf} | **{100 * gr / max(gf, 1):.0f}** | {br} / {bf} "
                 f"| **{100 * br / max(bf, 1):.0f}** | **{_ratio(gr, gf, br, bf)}** |")
    body = (f"A generated loopback web of {len(TOPICS) * args.pages_per_topic} pages on "
            f"{len(TOPICS)} topics, {args.index_docs} of them indexed first; per query, "
            f"{args.fetches} fetches guided by anchor text against {args.fetches} breadth-first "
            "from the same documents.\n\n" + "\n".join(lines))
    guided, bfs = gr / max(gf, 1), br / max(bf, 1)
    publish("Real-time search (issue 4): anchor-text guidance against breadth-first", body, args.json,
            headline=f"{100 * guided:.0f} relevant per 100 fetches against {100 * bfs:.0f}: "
                     f"{_ratio(gr, gf, br, bf)}",
            goal="at least twice as many relevant documents per 100 fetches",
            met=bool(bfs) and guided >= 2 * bfs)
    return 0


def _ratio(gr: int, gf: int, br: int, bf: int) -> str:
    guided, bfs = gr / max(gf, 1), br / max(bf, 1)
    return f"{guided / bfs:.1f}x" if bfs else "inf"


if __name__ == "__main__":
    sys.exit(main())
