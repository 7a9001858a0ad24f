"""What a hostile file costs the agent that parses it: CPU and peak memory against input size.

Every parser should cost in proportion to its input (issue 37). Measured on the worst inputs
of each kind that still fit its size caps, built here:

- DOCX and ODT with paragraphs nested as deep as libxml2 allows without huge-tree mode
  (`w:p` in `w:p`; `text:p > text:span > text:p`), either one nest whose deepest paragraph
  holds the text (the extraction stops at the character cap, the crawl's `max_bytes`), or
  the nest repeated until the inflated part nears its cap (32 MiB: all of it is read);
- sitemaps, gzipped, of one URL repeated (plain text), or whose entries are padded with
  elements that are not entries (`<urlset>` of `<x/>`), up to the protocol's 50 MB inflated;
- on main before issue 37 (af28249's agents/extract.py and agents/sitemap.py, loaded from git) too, on
  the smaller inputs only, in a child limited to `--old-limit-mb` of address space.

Each case runs in its own child process: CPU is the child's process time over the parse,
memory the growth of its peak resident set (VmHWM) over the parse, and that peak.

    python -m bench.parsers [--json bench/results/parsers.json]
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
import types
import zipfile
import zlib
from pathlib import Path

from bench.common import ROOT, publish, table
from tests.support.documents import W_NS
from webcrawler.agents import extract, sitemap

OLD_COMMIT = "af28249"
MAX_CHARS = 1 << 20  # the crawl's default max_bytes, which is also the text's cap
TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE_NS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
DEPTH = 250  # elements; libxml2 refuses more than 256 levels without huge-tree mode


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, content in files.items():
            method = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            archive.writestr(name, content, compress_type=method)
    return out.getvalue()


def nest(kind: str, text_bytes: int, words: bool = True) -> bytes:
    """One nest DEPTH elements deep, each level with a word (unless not `words`), the deepest
    with `text_bytes`."""
    if kind == "docx":
        levels = DEPTH - 4
        open_ = "".join(f"<w:p><w:r><w:t>w{i} </w:t></w:r>" if words else "<w:p>"
                        for i in range(levels))
        return (open_ + f"<w:r><w:t>{'deep ' * (text_bytes // 5)}</w:t></w:r>"
                + "</w:p>" * levels).encode()
    levels = (DEPTH - 4) // 2
    open_ = "".join(f"<text:p>w{i} <text:span>" if words else "<text:p><text:span>"
                    for i in range(levels))
    return (open_ + "deep " * (text_bytes // 5) + "</text:span></text:p>" * levels).encode()


def document(kind: str, body: bytes) -> bytes:
    """The DOCX or ODT file whose main part's body is `body`."""
    if kind == "docx":
        part = (b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="' + W_NS.encode()
                + b'"><w:body>' + body + b"</w:body></w:document>")
        return _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": part})
    part = (b'<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="'
            + OFFICE_NS.encode() + b'" xmlns:text="' + TEXT_NS.encode()
            + b'"><office:body><office:text>' + body
            + b"</office:text></office:body></office:document-content>")
    return _zip({"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": part})


def office_cases() -> list[tuple[str, str, bytes, bool]]:
    """(label, kind, file, also on the old code) for DOCX and ODT."""
    cases = []
    for kind in ("docx", "odt"):
        for size, label in ((2000, "2 KB"), (64_000, "64 KB"), (1 << 20, "1 MiB")):
            cases.append((f"{kind}: one nest, {label} of deep text", kind,
                          document(kind, nest(kind, size)), True))
        cases.append((f"{kind}: one nest, 30 MB of deep text", kind,
                      document(kind, nest(kind, 30 << 20)), False))
        block = nest(kind, 5, words=False)
        for mib in (1, 8, 31):
            cases.append((f"{kind}: nests repeated to {mib} MiB", kind,
                          document(kind, block * ((mib << 20) // len(block))), False))
    return cases


def sitemap_cases() -> list[tuple[str, str, bytes, bool]]:
    """(label, "sitemap", gzipped file, also on the old code): repeated URLs, padded XML."""
    cases = []
    line = b"http://a.test/the-same-page\n"
    for mib, old in ((1, True), (8, False), (49, False)):
        cases.append((f"text sitemap, one URL repeated, {mib} MiB", "sitemap",
                      gzip_(line * ((mib << 20) // len(line))), old))
    pad = b"<x/>"
    head = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/'
    for mib, old in ((1, True), (8, True), (49, False)):
        filler = pad * ((mib << 20) // len(pad) // 2)
        cases.append((f"XML sitemap padded with <x/>, {mib} MiB", "sitemap",
                      gzip_(head + b"</loc></url>" + filler + b"<url>" + filler
                            + b"<loc>http://a.test/b</loc></url></urlset>"), old))
    return cases


def gzip_(data: bytes) -> bytes:
    out = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return out.compress(data) + out.flush()


def old_module(name: str) -> types.ModuleType:
    """agents/<name>.py as it was before issue 37, as a module of its own."""
    source = subprocess.run(["git", "show", f"{OLD_COMMIT}:webcrawler/agents/{name}.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    module = types.ModuleType(f"old_{name}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"old_{name}.py", "exec"), module.__dict__)  # noqa: S102 - our own file
    return module


def child(kind: str, path: str, old: bool, limit_mb: int) -> dict[str, object]:
    """Run one extraction here; its CPU seconds, peak RSS growth and outcome."""
    body = Path(path).read_bytes()
    module = (old_module("sitemap" if kind == "sitemap" else "extract") if old
              else sitemap if kind == "sitemap" else extract)
    if limit_mb:
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
    before = peak_rss_kib()  # imports and the file
    started = time.process_time()
    try:
        if kind == "sitemap":
            listed = module.parse(body, "http://a.test/sitemap.gz")
            outcome = f"{len(listed.urls):,} URLs, {listed.dropped:,} dropped"
        else:
            found = module.extract(kind, body, float("inf"), MAX_CHARS)
            outcome = f"{len(found.text):,} characters"
    except MemoryError:
        outcome = f"MemoryError (limit {limit_mb:,} MB)"
    except Exception as exc:  # noqa: BLE001 - the outcome is the figure
        outcome = f"{type(exc).__name__}: {str(exc)[:60]}"
    cpu = time.process_time() - started
    peak = peak_rss_kib() - before
    return {"cpu": cpu, "peak_mb": peak / 1024, "outcome": outcome,
            "rss_mb": peak_rss_kib() / 1024}


def peak_rss_kib() -> int:
    """This process's peak resident set (VmHWM). Not ru_maxrss: Linux carries the parent's
    high-water mark over fork and exec, so a child would report the bench's own."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def run_case(kind: str, data: bytes, old: bool, limit_mb: int) -> dict[str, object]:
    with tempfile.NamedTemporaryFile(suffix=f".{kind}") as file:
        file.write(data)
        file.flush()
        out = subprocess.run([sys.executable, "-m", "bench.parsers", "--child", kind, file.name,
                              *(["--old"] if old else []), "--old-limit-mb", str(limit_mb)],
                             cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def inflated(kind: str, data: bytes) -> int:
    if kind == "sitemap":
        return len(sitemap.inflate(data))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.getinfo("word/document.xml" if kind == "docx" else "content.xml").file_size


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--old-limit-mb", type=int, default=2048,
                        help="address space of a child running the old code")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--old", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child, args.old, args.old_limit_mb if args.old else 0)))
        return ""
    rows = []
    for label, kind, data, also_old in office_cases() + sitemap_cases():
        for old in (True, False) if also_old else (False,):
            got = run_case(kind, data, old, args.old_limit_mb)
            rows.append((label, "before (af28249)" if old else "now", f"{len(data):,}",
                         f"{inflated(kind, data):,}", f"{got['cpu']:.3f}",
                         f"{got['peak_mb']:,.1f}", f"{got['rss_mb']:,.0f}", got["outcome"]))
            print(rows[-1], file=sys.stderr)
    body = ("DOCX/ODT text capped at 1 MiB (the default `max_bytes`), main parts nested "
            f"{DEPTH} elements deep; one child process per row: its CPU over the parse, its "
            "peak RSS's growth over the parse (0: below the peak of its imports and the file), "
            "and its peak RSS.\n\n"
            + table(["input", "code", "file bytes", "inflated bytes", "CPU s",
                     "peak growth MB", "child's peak RSS MB", "outcome"], rows))
    def worst(prefix: str) -> float:
        return max(float(r[6].replace(",", "")) for r in rows
                   if r[1] == "now" and r[0].startswith(prefix))

    return publish("Parsers on hostile input", body, args.json,
                   headline=f"child's peak RSS at the size caps: DOCX/ODT nested {worst('docx'):,.0f}"
                            f" / {worst('odt'):,.0f} MB, sitemaps repeated or padded "
                            f"{worst('text'):,.0f} / {worst('XML'):,.0f} MB",
                   goal="each parser in proportion to its input: CPU and memory linear in size")


if __name__ == "__main__":
    main(sys.argv[1:])
