"""Workbench and toolkit crawls send the data directory's [[credentials]] only when their
operator says so (issue 37): `--use-credentials` for the workbench, `Crawler.use_credentials`
(or `webcrawler crawl --use-credentials`) for the toolkit. Without it anyone who may start a
crawl would read the pages the credentials open. Real servers demanding HTTP Basic; a real
workbench process; real toolkit agents."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable
from pathlib import Path

from tests.workbench.conftest import Workbench
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler

SECRET = "w0rkbench-Pa55word"
BASIC = "Basic " + base64.b64encode(f"crawler:{SECRET}".encode()).decode()
HOST = "127.0.8.4"


def protected() -> LoopbackWeb:
    return LoopbackWeb([Site(HOST, {"/": html("protected", "behind basic", [("/p", "p")]),
                                    "/p": html("p", "also protected")},
                             auth=("Authorization", BASIC))])


def with_credentials(data: Path, server: str) -> None:
    data.mkdir(parents=True, exist_ok=True)
    (data / "webcrawler.toml").write_text(
        f'[[credentials]]\nhost = "{server}"\nscheme = "http"\nusername = "crawler"\n'
        f'password = "{SECRET}"\n')


def sent(web: LoopbackWeb) -> list[bool]:
    web.log.settle()
    return [dict(h.headers).get("Authorization") == BASIC for h in web.log.snapshot()]


def test_a_toolkit_crawl_sends_credentials_only_when_told(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, total_timeout=5.0,
                        progress_interval=60.0, deny_private=False)
    for told in (False, True):
        with protected() as web:
            with_credentials(settings.data_dir, web.name(HOST))
            crawler = Crawler([web.url(HOST)], settings=settings, use_credentials=told)
            crawler.run()
            carried = sent(web)
        assert carried and all(carried) if told else not any(carried), told
        assert len(carried) >= (3 if told else 2)  # robots.txt, /, and /p once let in


def test_a_workbench_crawl_sends_credentials_only_with_use_credentials(
        make_workbench: Callable[..., Workbench], tmp_path: Path) -> None:
    for name, flags in (("plain", ()), ("told", ("--use-credentials",))):
        with protected() as web:
            with_credentials(tmp_path / name, web.name(HOST))
            bench = make_workbench("127.0.0.1", *flags, name=name)
            status, started = bench.call("POST", "/api/crawls", {
                "roots": [web.url(HOST)], "limits": {"seconds": 20, "pages": 5}})
            assert status == 202, started
            bench.wait(started["id"])
            carried = sent(web)
        assert carried, name
        assert (all(carried) and len(carried) >= 3) if flags else not any(carried), name


def test_settings_stay_plain_data() -> None:
    """The choice is the operator's, not a crawl setting a file or variable could flip."""
    assert "use_credentials" not in {f.name for f in dataclasses.fields(Settings)}
