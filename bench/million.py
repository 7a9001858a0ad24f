"""A generated index of a million documents: build time, peak memory, query latency with facets.

    python -m bench.million [--docs 1000000] [--batch 2000] [--queries 300] [--json FILE]
    python -m bench.million --keep DIR --build-until 11:15 ...   # resumable, bounded build

The documents are generated-web pages (tests/support/genweb.py: Zipf vocabulary,
log-normal sizes around 2.5 KB with a long tail, 1,000 servers), written by the real writer
(`open_writer`, a commit every `--batch`, its tiered merges), the language of each
detected as the engine's writer does. genweb's vocabulary is 20,000 words whatever the
number of pages; a real collection's keeps growing (Heaps' law: names, numbers, typos,
about the square root of its words), and the speller, the completer and stemming read the
whole vocabulary, so each page here also gets `TAIL_WORDS` words of a long tail
(`tail_words`): about 100,000 distinct words at 30,000 pages, 600,000 at a million. Peak
memory is the building process's anonymous memory (RssAnon in /proc/self/status, sampled
twice a second by a thread, commits and merges included: the memory-mapped segment files
are not counted, the page cache holds them). Then `webcrawler serve` answers /api/search,
whose answers carry the site, type and language facets counted over every match, one query
at a time from one client (the query stream of bench/query_latency.py), in three slices of
the stream, each its own row: the fresh server's first `--cold` queries ("cold start": it
opens its segments, reads the vocabulary, and each word met first in a segment reads its
list from the page cache), the next `--queries` alone ("no writer", the steady state), then
while a writer process adds 200 documents and commits, over and over, as fast as it can
(a commit every 0.7 s or so), then while one writes as a crawl's index writer does
(`CRAWL_WRITER`: at its niceness, committing at most every `COMMIT_PACE` seconds;
engine/pipeline/index_sink.py). Goal: p50 <= 10 ms and p99 <= 20 ms in each. Then the CPU
each query of the same stream costs in-process (bench/query_cpu.py), which a loaded machine
does not inflate as it does the wall time; and the wall time in-process of the stream's
queries alone and then while the vocabulary and speller are rebuilt in a thread beside
them, as the server rebuilds them after commits (`during_rebuild`).

The measured copy leaves out the kept index's window-bounds files (`boundfile.py`), so that
an index kept from before the writer wrote them is measured as the writer now leaves one:
they are written on the copy before the server starts (the time it took is reported).

Nothing is kept unless `--keep DIR` is given: then the index is built there, the build's
progress (documents, seconds, CPU seconds, peak memory) is saved after every commit in
DIR/build.json, a later run with the same DIR goes on where it stopped, and
`--build-until HH:MM` (UTC) stops the build at that time and measures the index as it is
(the result says how many documents it held).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import itertools
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import query_cpu, query_latency
from bench.common import ROOT, publish, table
from bench.query_latency import (
    WEBCRAWLER,
    free_port,
    measure,
    percentile,
    query_stream,
    wait_for,
)
from webcrawler.engine.pipeline.index_sink import COMMIT_PACE, WRITER_NICENESS
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format.opening import open_index
from webcrawler.index.search import boundfile

TAIL_WORDS = 24  # long-tail words a page
CRAWL_WRITER = "a crawl's writer committing"
ALONE, REBUILDING = "in-process, alone", "in-process, the word tools rebuilding"
TAIL_SCALE = 5_000  # the tail's rank is TAIL_SCALE / uniform(0, 1]: P(rank >= r) ~ 1 / r
_ONSETS = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr sl st tr ch sh th".split()
_VOWELS = "a e i o u ai ea ee oo ou".split()
_CODAS = ["", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "x"]


def tail_word(rank: int) -> str:
    """A pronounceable word for each rank (syllables are the rank's digits)."""
    syllables = []
    while True:
        rank, digit = divmod(rank, len(_ONSETS) * len(_VOWELS) * len(_CODAS))
        onset, rest = divmod(digit, len(_VOWELS) * len(_CODAS))
        vowel, coda = divmod(rest, len(_CODAS))
        syllables.append(_ONSETS[onset] + _VOWELS[vowel] + _CODAS[coda])
        if not rank:
            return "".join(syllables) + "q"  # a letter genweb's words never end with


def tail_words(number: int) -> list[str]:
    """Page `number`'s long-tail words: ranks from a power law with exponent 2, so the
    distinct words of N pages grow about as the square root of N (Heaps' law)."""
    rng = random.Random(number)
    return [tail_word(int(TAIL_SCALE / (1.0 - rng.random())) - TAIL_SCALE) for _ in range(TAIL_WORDS)]


def document(number: int) -> IndexedDocument:
    """Generated-web page `number` with its long-tail words spread through its text."""
    doc = query_latency.document(number)
    words = doc.text.split(" ")
    for i, word in enumerate(tail_words(number)):
        words.insert((i * 7919) % (len(words) + 1), word)
    return dataclasses.replace(doc, text=" ".join(words))


def anonymous_kib(pid: str = "self") -> int:
    """A process's anonymous resident memory (RssAnon), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    return 0


class PeakMemory:
    """The highest RssAnon of this process, sampled every `every` seconds by a thread
    (a commit's sort and a merge's peak happen between commits' ends)."""

    def __init__(self, every: float = 0.5) -> None:
        self.peak = anonymous_kib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(every,), daemon=True)

    def _sample(self, every: float) -> None:
        while not self._stop.wait(every):
            self.peak = max(self.peak, anonymous_kib())

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, anonymous_kib())


def deadline(until: str | None) -> float:
    """Seconds from now to `until` (HH:MM UTC, today or tomorrow); infinity for None."""
    if not until:
        return float("inf")
    now = datetime.datetime.now(datetime.UTC)
    hour, minute = (int(x) for x in until.split(":"))
    end = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if end <= now - datetime.timedelta(hours=12):
        end += datetime.timedelta(days=1)
    return (end - now).total_seconds()


def build(data: Path, docs: int, batch: int, until: str | None = None) -> dict:
    """Write documents 0 .. docs-1 into data/index, from where data/build.json says an
    earlier build stopped, until `until`. Returns the build's progress: documents,
    seconds, cpu (seconds), peak (KiB), summed over every run that built it."""
    saved = data / "build.json"
    progress = (json.loads(saved.read_text()) if saved.exists()
                else {"docs": 0, "seconds": 0.0, "cpu": 0.0, "peak": 0, "batch": batch})
    stop_at = time.monotonic() + deadline(until)
    first = progress["docs"]
    if first >= docs or time.monotonic() >= stop_at:
        return progress
    started, cpu = time.monotonic(), time.process_time()
    base = dict(progress)
    with PeakMemory() as memory, open_writer(data / "index") as writer:
        while first < docs and time.monotonic() < stop_at:
            last = min(docs, first + batch)
            writer.add([document(n) for n in range(first, last)])
            writer.commit()
            first = last
            progress.update(docs=first, seconds=base["seconds"] + time.monotonic() - started,
                            cpu=base["cpu"] + time.process_time() - cpu,
                            peak=max(base["peak"], memory.peak))
            saved.write_text(json.dumps(progress))
            print(f"{datetime.datetime.now(datetime.UTC):%H:%M:%S} indexed {first:,} of "
                  f"{docs:,}: {progress['seconds']:,.0f} s, {progress['cpu']:,.0f} CPU s, "
                  f"{first / max(progress['cpu'], 1e-9):,.0f} documents per CPU second, "
                  f"peak {memory.peak / 1024:,.0f} MiB", file=sys.stderr, flush=True)
    progress.update(seconds=base["seconds"] + time.monotonic() - started,
                    cpu=base["cpu"] + time.process_time() - cpu, peak=max(base["peak"], memory.peak))
    saved.write_text(json.dumps(progress))
    return progress


def latency(data: Path, docs: int, queries: int, writer_seconds: float,
            cold: int) -> tuple[dict, int, float]:
    """({condition: [ms, ...]}, the server's anonymous KiB after, documents/s the writer added).
    Measured on a copy when the index is kept (the writer's documents stay out of it)."""
    port = free_port()
    log = (data / "serve.log").open("w")
    server = subprocess.Popen([str(WEBCRAWLER), "serve", "--data-dir", str(data), "--port", str(port),
                               "--threads", "8"], stdout=subprocess.DEVNULL, stderr=log)
    stream = query_stream()
    results: dict[str, list[float]] = {}
    try:
        wait_for(port, timeout=300)
        results["cold start"] = measure(port, itertools.islice(stream, cold), "cold start")
        results["no writer"] = measure(port, itertools.islice(stream, queries), "no writer")
        rate = 0.0
        for condition, first, flags in (("writer committing", docs + 1_000_000, []),
                                        (CRAWL_WRITER, docs + 2_000_000, ["--as-crawl"])):
            writer = subprocess.Popen([sys.executable, "-m", "bench.query_latency", "--writer", str(data),
                                       str(first), *flags], stdout=subprocess.PIPE, text=True)
            assert writer.stdout is not None
            before = int(writer.stdout.readline())
            started = time.monotonic()
            until = started + writer_seconds
            busy = itertools.takewhile(lambda _q, until=until: time.monotonic() < until, stream)
            results[condition] = measure(
                port, itertools.chain(itertools.islice(stream, queries), busy), condition)
            elapsed = time.monotonic() - started
            writer.terminate()
            out, _ = writer.communicate(timeout=600)
            counts = [int(x) for x in out.split()]
            if not flags:
                rate = ((counts[-1] if counts else before) - before) / elapsed
        memory = anonymous_kib(str(server.pid))
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    return results, memory, rate


def during_rebuild(data: Path, queries: int) -> dict[str, list[float]]:
    """Wall ms of each query of the stream in-process (`Searcher.search`, facets, one at a
    time): alone, then while the word tools - vocabulary and speller - are rebuilt back to
    back in a thread, as the query server rebuilds them after commits (`lexicon.py`: at
    most every 30 s and 5% of the time), its worst case."""
    from webcrawler.index.search.searcher import Searcher
    from webcrawler.index.words import lexicon

    stream = query_stream()
    out: dict[str, list[float]] = {}
    ix = open_index(data / "index", create=False)
    with Searcher(data / "index") as searcher:
        for query in itertools.islice(stream, 300):  # the first build, warm lists
            searcher.search(query)
        out[ALONE] = _timed(searcher, itertools.islice(stream, queries))
        stop = threading.Event()
        remembered: dict = {}

        def rebuild() -> None:
            while not stop.is_set():
                lexicon.build(ix, remembered).speller  # noqa: B018 - the speller is the build

        thread = threading.Thread(target=rebuild, daemon=True)
        thread.start()
        try:
            time.sleep(1.0)  # into the build's long part
            out[REBUILDING] = _timed(searcher, itertools.islice(stream, queries))
        finally:
            stop.set()
            thread.join(600)
            ix.close()
    return out


def _timed(searcher, queries) -> list[float]:
    times = []
    for query in queries:
        started = time.perf_counter()
        searcher.search(query)
        times.append((time.perf_counter() - started) * 1000)
    return times


def measured_copy(data: Path, tmp: Path) -> Path:
    """A copy of a kept index to measure (hard links: Whoosh never rewrites a segment
    file, and the writer's new files land beside them), so the kept one stays as built."""
    copy = tmp / "measured"
    shutil.copytree(data / "index", copy / "index", copy_function=_link,
                    ignore=shutil.ignore_patterns("*" + boundfile.SUFFIX))
    return copy


def write_bounds(data: Path) -> tuple[int, float]:
    """(bounds files written, CPU seconds) for the segments of `data`'s index without one."""
    started = time.process_time()
    ix = open_index(data / "index", create=False)
    try:
        return boundfile.write_missing(ix), time.process_time() - started
    finally:
        ix.close()


def _link(source: str, target: str) -> None:
    Path(target).hardlink_to(source)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=2_000,
                        help="documents per commit (more spill the writer's pool, POOL_MB, to disk)")
    parser.add_argument("--queries", type=int, default=300, help="queries per condition (at least)")
    parser.add_argument("--cold", type=int, default=300,
                        help="the fresh server's first queries, reported apart as the cold start")
    parser.add_argument("--writer-seconds", type=float, default=30.0)
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the index here, keep it, and go on where an earlier build stopped")
    parser.add_argument("--build-until", default=None, metavar="HH:MM",
                        help="stop building at this time (UTC) and measure the index as it is")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data = args.keep or Path(tmp)
        built = build(data, args.docs, args.batch, args.build_until)
        segments = len(list((data / "index").glob("*.seg")))
        size = sum(p.stat().st_size for p in (data / "index").iterdir())
        measured = measured_copy(data, Path(tmp)) if args.keep else data
        bounds_written, bounds_cpu = write_bounds(measured)
        results, served, rate = latency(measured, built["docs"], args.queries, args.writer_seconds,
                                        args.cold)
        query_ms = query_cpu.measure(measured, [ROOT], args.queries, 1)[str(ROOT)]
        rebuild = during_rebuild(measured, args.queries)
    count, seconds, cpu, peak = built["docs"], built["seconds"], built["cpu"], built["peak"]
    short = (f" (of the {args.docs:,} asked: the build was stopped at {args.build_until} UTC; at "
             f"the rate measured, the other {args.docs - count:,} would take about "
             f"{(args.docs - count) * cpu / max(count, 1) / 60:,.0f} CPU minutes more, merges growing "
             "by a tier each time the index grows eightfold, up to 150,000-document segments)"
             if count < args.docs else "")
    rows = [[name, len(t), statistics.median(t), percentile(t, 99), max(t)] for name, t in results.items()]
    body = (f"Index: {count:,} generated-web documents{short} written by open_writer in {seconds:,.0f} s "
            f"({cpu:,.0f} CPU s, {count / max(cpu, 1e-9):,.0f} documents per CPU second; "
            f"commits of {built['batch']:,}), {segments} segments, {size / 2**30:.2f} GiB "
            f"(the segments' window bounds written again on the measured copy before the queries, "
            f"as the writer writes them after its commits: {bounds_written} segments, "
            f"{bounds_cpu:,.1f} CPU s); the builder's "
            f"peak anonymous memory {peak / 1024:,.0f} MiB (RssAnon, mapped segments apart); the "
            f"server's after the queries {served / 1024:,.0f} MiB. `webcrawler serve` (waitress, 8 "
            f"threads), one client, one query at a time, answers with facets; the writer added "
            f"about {rate:,.0f} documents/s in commits of 200; a crawl's writer commits at most every "
            f"{COMMIT_PACE:g} s, at niceness {WRITER_NICENESS}. The cold start is the fresh server's "
            f"first {args.cold} queries; the other rows follow it, on the next queries of the same "
            f"stream. CPU a query in-process, the same "
            f"stream (`bench.query_cpu`: Flask's test client, `time.thread_time`, no writer): p50 "
            f"{statistics.median(query_ms):.2f} ms, p99 {percentile(query_ms, 99):.2f} ms. The "
            f"last two rows are wall time in-process (`Searcher.search`, no HTTP): the same "
            f"stream alone, then while the vocabulary and the speller are rebuilt back to back "
            f"in a thread of the same process, as the query server rebuilds them after commits "
            f"(at most every 30 s).\n\n"
            + table(["condition", "queries", "p50 ms", "p99 ms", "max ms"],
                    rows + [[name, len(t), statistics.median(t), percentile(t, 99), max(t)]
                            for name, t in rebuild.items()]))
    quiet, busy, cold = results["no writer"], results["writer committing"], results["cold start"]
    crawl = results[CRAWL_WRITER]
    worst = max(percentile(quiet, 99), percentile(busy, 99), percentile(crawl, 99),
                percentile(rebuild[REBUILDING], 99))
    return publish(f"A million documents (run at {count:,})", body, args.json,
                   headline=f"{count:,} documents: built in {seconds:,.0f} s, peak "
                            f"{peak / 1024:,.0f} MiB anonymous; p50 {statistics.median(quiet):.1f} ms, "
                            f"p99 {percentile(quiet, 99):.1f} ms (writer committing: "
                            f"{statistics.median(busy):.1f} / {percentile(busy, 99):.1f} ms; a crawl's "
                            f"writer: {statistics.median(crawl):.1f} / {percentile(crawl, 99):.1f} ms; "
                            f"in-process while the word tools rebuild: "
                            f"{statistics.median(rebuild[REBUILDING]):.1f} / "
                            f"{percentile(rebuild[REBUILDING], 99):.1f} ms; "
                            f"the first "
                            f"{len(cold)} queries of a fresh server: {statistics.median(cold):.1f} / "
                            f"{percentile(cold, 99):.1f} ms)",
                   goal="1,000,000 documents; p50 <= 10 ms, p99 <= 20 ms over HTTP with facets "
                        "(after the cold start, which is reported apart), and in-process while "
                        "the word tools rebuild",
                   met=count >= 1_000_000 and max(statistics.median(quiet), statistics.median(busy),
                                                  statistics.median(crawl)) <= 10 and worst <= 20)


if __name__ == "__main__":
    main()
