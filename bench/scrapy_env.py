"""Scrapy in a virtual environment of its own (never a dependency of webcrawler).

`ensure()` creates /tmp/bench-scrapy-venv (or $BENCH_SCRAPY_VENV) with scrapy,
beautifulsoup4 and lxml when missing, and returns its python. `SPIDER` is the
minimal CrawlSpider the throughput benchmark runs, in three configurations.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

VENV = Path(os.environ.get("BENCH_SCRAPY_VENV", "/tmp/bench-scrapy-venv"))

SPIDER = '''
import json, os, time
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

INCLUDE = os.environ["BENCH_INCLUDE"]
TEXT = os.environ.get("BENCH_TEXT") == "1"
if TEXT:
    from bs4 import BeautifulSoup


class Bench(CrawlSpider):
    name = "bench"
    start_urls = [os.environ["BENCH_SEED"]]
    rules = (Rule(LinkExtractor(allow=INCLUDE), callback="parse_item", follow=True),)
    pages = 0

    def parse_start_url(self, response):
        return self.parse_item(response)

    def parse_item(self, response):
        if not hasattr(response, "text"):
            return None
        self.pages += 1
        item = {"url": response.url, "title": response.css("title::text").get(),
                "length": len(response.text)}
        if TEXT:
            item["text"] = len(BeautifulSoup(response.text, "lxml").get_text(" ", strip=True))
        return item

    def closed(self, reason):
        with open(os.environ["BENCH_OUT"], "w") as out:
            json.dump({"pages": self.pages, "reason": reason}, out)
'''


def ensure() -> Path:
    python = VENV / "bin" / "python"
    probe = [str(python), "-c", "import scrapy, bs4, lxml"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"creating {VENV} with scrapy, beautifulsoup4, lxml ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "scrapy>=2", "beautifulsoup4", "lxml"],
                   check=True)
    return python


def version(python: Path) -> str:
    out = subprocess.run([str(python), "-c", "import scrapy; print(scrapy.__version__)"],
                         capture_output=True, text=True)
    return out.stdout.strip()
