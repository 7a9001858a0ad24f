"""What --render costs: the shell heuristic, on the test web and on hostile pages, and a render.

    python -m bench.render [--pages 30] [--before CHECKOUT] [--json bench/results/render.json]

1. `agents/shell.py`'s heuristic on the documentation sites of the test web (real pages:
   Sphinx, DocBook and asciidoc output, every one with text of its own): how many it would
   render under `--render auto` (each one a false positive) and what the check costs a page.
2. The check on hostile pages (`id=root ` repeated, issue 37): CPU seconds of today's
   linear check against the pattern it replaced (`id=...[^<>]*>` searched over the page).
3. An agent's `Fetcher` retrieving script shells from a loopback server (their text comes
   from a script and a JSON fetch), with `--render never` and `always`: wall time and CPU
   a page (the agent's, Playwright's driver's and the browser's processes, the renderers
   they reaped included), and the browser's memory after the run. With `--before`, the same
   measure of another checkout's code (e.g. `git archive main | tar -x -C /tmp/before`) in
   the same run, each in a process of its own.

Needs the documentation packages for part 1 (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, commit, publish, table  # noqa: E402

ADDRESS = "127.0.72.1"
SHELL = ("<!DOCTYPE html><html><head><title>App</title></head><body><div id=\"root\"></div>"
         "<script src=\"/app.js\"></script></body></html>")
APP = ("fetch('/words.json').then(r => r.json()).then(w => {"
       " document.getElementById('root').innerHTML = '<h1>' + w.title + '</h1><p>' + w.text"
       " + '</p>'; });")
# The pattern the linear check replaced (agents/shell.py before issue 37), for part 2.
_OLD_MOUNT = re.compile(r"id=[\"']?(?:root|app|__next|__nuxt|___gatsby|svelte|main-app|application)"
                        r"(?=[\"'\s>/])[^<>]*>\s*</(?:div|main|section|body)\s*>")
HOSTILE_KIB = (16, 64, 128, 1024)  # sizes of the hostile page; the old pattern stops at 128
OLD_UP_TO_KIB = 128


def heuristic() -> tuple[int, int, float, float]:
    """(pages, pages flagged as shells, microseconds a page for the check, and for the check
    with the mount pattern it replaced)."""
    from bench.quality import pages
    from webcrawler.agents import shell
    from webcrawler.agents.charset import decode
    from webcrawler.agents.parse import parse_html

    found = pages()
    documents = []
    for _site, path in found:
        html = decode(path.read_bytes(), "text/html")[0]
        documents.append((html, parse_html(html, path.as_uri()).text))
    flagged = sum(shell.looks_like_shell(html, text) for html, text in documents)  # warms up
    spent, spent_old = 0.0, 0.0
    for _ in range(2):  # each check in passes of its own, in turn
        started = time.process_time()
        for html, text in documents:
            _old_looks_like_shell(html, text)
        spent_old += (time.process_time() - started) / 2
        started = time.process_time()
        for html, text in documents:
            shell.looks_like_shell(html, text)
        spent += (time.process_time() - started) / 2
    return len(found), flagged, spent / len(found) * 1e6, spent_old / len(found) * 1e6


def _old_looks_like_shell(html: str, text: str) -> bool:
    """The check as it was before issue 37 (its mount pattern quadratic), for comparison."""
    from webcrawler.agents import shell

    if "<script" not in html and "<SCRIPT" not in html:
        return False
    if len(text.split(None, shell.MIN_WORDS)) < shell.MIN_WORDS:
        return True
    return any(p.search(html) for p in (_OLD_MOUNT, shell._EMPTY_APP_ROOT,  # noqa: SLF001
                                        shell._ASKS_FOR_SCRIPT))  # noqa: SLF001


def hostile() -> list[tuple[str, str, str]]:
    """(KiB, CPU s of the old pattern or "-", CPU s of today's check) on `id=root ` pages."""
    from webcrawler.agents.shell import looks_like_shell

    rows = []
    words = "word " * 60
    for kib in HOSTILE_KIB:
        html = "<script></script><div " + "id=root " * (kib * 128)
        old = "-"
        if kib <= OLD_UP_TO_KIB:
            started = time.process_time()
            _OLD_MOUNT.search(html)
            old = f"{time.process_time() - started:.3f}"
        started = time.process_time()
        looks_like_shell(html, words)
        rows.append((str(kib), old, f"{time.process_time() - started:.4f}"))
    return rows


def rendering(count: int) -> list[dict[str, object]]:
    """For never and always: ms and CPU ms a page, words of the first page, browser MB."""
    from webcrawler.agents.fetch import Fetcher
    from webcrawler.demoweb.server import LoopbackWeb, Page, Site
    from webcrawler.protocol.messages import AgentConfig, Document, Retrieve

    # What the engine sends with a page to render, where the code knows it (no robots.txt: 404).
    extra = {"robots": (404, "")} if "robots" in Retrieve.__dataclass_fields__ else {}
    words = " ".join(f"word{i}" for i in range(300))
    routes = {"/app.js": Page(APP, content_type="application/javascript"),
              "/words.json": Page(json.dumps({"title": "An app", "text": words}),
                                  content_type="application/json"),
              **{f"/p{i}": Page(SHELL) for i in range(count + 1)}}
    rows: list[dict[str, object]] = []
    with LoopbackWeb([Site(ADDRESS, routes)]) as web:
        for mode in ("never", "always"):
            with Fetcher(AgentConfig(render=mode, total_timeout=30.0)) as fetcher:
                first = fetcher.retrieve(Retrieve(0, web.url(ADDRESS, "/p0"), **extra))
                cpu, started = _cpu(), time.perf_counter()
                for i in range(1, count + 1):
                    fetcher.retrieve(Retrieve(i, web.url(ADDRESS, f"/p{i}"), **extra))
                took = (time.perf_counter() - started) / count * 1000
                spent = (_cpu() - cpu) / count * 1000
                renderer = fetcher.renderer
                resident = renderer.resident_bytes() / 2**20 if renderer else 0.0
                text = first.text if isinstance(first, Document) else ""
                rows.append({"mode": mode, "ms": took, "cpu_ms": spent,
                             "words": len(text.split()), "browser_mb": resident})
    return rows


def _cpu() -> float:
    """CPU seconds of this process and every live descendant, with the children each reaped
    (a renderer's CPU counts once the browser's zygote has reaped it)."""
    total = 0.0
    me = psutil.Process()
    for process in (me, *me.children(recursive=True)):
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + (times.children_user + times.children_system
                                              if process is not me else 0.0)
    return total


def rendering_of(checkout: Path, count: int) -> list[dict[str, object]]:
    """`rendering` of the code in `checkout`, in a process of its own."""
    done = subprocess.run([sys.executable, __file__, "--rows-only", "--pages", str(count)],
                          capture_output=True, text=True, timeout=600, check=True,
                          env={**os.environ, "PYTHONPATH": str(checkout)}, cwd=checkout)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout whose rendering to measure in the same run")
    parser.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.rows_only:  # a checkout's rendering, for --before
        if str(Path.cwd()) in sys.path:
            sys.path.remove(str(Path.cwd()))
        sys.path.insert(0, str(Path.cwd()))
        print(json.dumps(rendering(args.pages)))
        return
    total, flagged, micros, micros_old = heuristic()
    measured = [("after", commit(), rendering_of(ROOT, args.pages))]
    if args.before is not None:
        measured.insert(0, ("before", commit(args.before) if (args.before / ".git").exists()
                            else args.before.name, rendering_of(args.before, args.pages)))
    render_rows = [(when, code, r["mode"], r["ms"], r["cpu_ms"], f"{r['words']} words",
                    r["browser_mb"]) for when, code, rows in measured for r in rows]
    body = (f"The shell heuristic on the test web's {total:,} documentation pages: {flagged} "
            f"flagged as script shells (rendered under `--render auto`), {micros:.0f} µs of CPU "
            f"a page for the check ({micros_old:.0f} µs with the quadratic pattern it replaced, "
            f"in the same run; every page flagged has fewer than 50 words and a script: "
            f"short alias pages, Sphinx's search page, written by its script indeed).\n\n"
            "The check on a hostile page, `<div ` and `id=root ` repeated (CPU seconds; the "
            "pattern it replaced was searched over the page, and tried its `[^<>]*` again "
            "from every `id=root`):\n\n"
            + table(["KiB", "old pattern, CPU s", "linear check, CPU s"], hostile())
            + f"\n\nA script shell (its 300 words written by a script from a JSON fetch), "
            f"retrieved {args.pages} times by one agent from a loopback server, after a first "
            f"page that starts the browser; CPU counts the agent's, Playwright's driver's and "
            f"the browser's processes (the renderers they reaped included); browser MB is its "
            f"processes' proportional set size after the run:\n\n"
            + table(["code", "commit", "--render", "ms a page", "CPU ms a page",
                     "text of the page", "browser MB after"], render_rows))
    after = measured[-1][2]
    never, always = after[0]["ms"], after[1]["ms"]
    publish("Rendering script pages (--render)", body, args.json,
            headline=f"{always:.0f} ms a rendered page against {never:.1f} ms fetched; "
                     f"{flagged} of {total:,} ordinary pages taken for shells",
            goal="auto renders under 1% of ordinary pages", met=flagged * 100 < total)


if __name__ == "__main__":
    main()
