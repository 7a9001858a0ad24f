"""An incremental crawl of a changing web, read back: history in JSON Lines, the newest body in WARC."""

from __future__ import annotations

import json
import time
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from bench.freshness_measure import read_log
from tests.export.conftest import webcrawler
from tests.support.changeweb import ChangingWeb, PageState
from tests.support.genweb_server import GenWebServer
from webcrawler.commands.index import run_index
from webcrawler.settings import Settings


def test_recrawled_pages_export_their_history_and_their_newest_response(tmp_path: Path):
    data, log_path = tmp_path / "data", tmp_path / "requests.log"
    web = ChangingWeb(servers=2, pages_per_server=8, links_per_page=4, page_bytes=1500, spread="cho",
                      first_address="127.0.44.96", day_seconds=1.0, epoch=time.time(), log_path=str(log_path))
    with GenWebServer(web) as served:
        settings = Settings(data_dir=data, agents=2, delay=0.0, hours=6 / 3600, commit_every=20,
                            progress_interval=60.0, seeds=(served.seed_url,),
                            include=(served.include_pattern,), incremental=True, recrawl="uniform",
                            fetch_rate=10.0, min_revisit=0.0)
        run_index(settings, progress=False)
    lines = webcrawler("export", "--data-dir", str(data)).stdout.splitlines()
    records = {r["url"]: r for r in map(json.loads, lines)}
    assert max(r["times_fetched"] for r in records.values()) >= 2
    recrawl = json.loads(webcrawler("stats", "--json", "--data-dir", str(data)).stdout)["recrawl"]
    assert recrawl["recrawls"] > 0 and recrawl["recrawls"] >= recrawl["changed"] + recrawl["trivial"]
    out = tmp_path / "crawl.warc.gz"
    warc = webcrawler("export", "--format", "warc", "--data-dir", str(data), "--output", str(out))
    assert warc.returncode == 0, warc.stderr
    last_served = {url: answers[-1][2] for url, answers in read_log(log_path).by_url.items()
                   if answers and answers[-1][1] == 200}
    checked = 0
    with open(out, "rb") as stream:
        for record in ArchiveIterator(stream):
            url = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type != "response" or url not in last_served:
                continue
            changes, listed, trivial = last_served[url].split(".")
            server = served.server_of(url.split("//")[1].split(":")[0])
            page = 0 if url.endswith("/") else int(url.rsplit("/", 1)[1].split(".")[0])
            state = PageState(True, f"{changes}.{listed}", int(trivial), 0.0)
            assert record.content_stream().read() == served.render(server, page, state), url
            checked += 1
    assert checked >= len(records) // 2
