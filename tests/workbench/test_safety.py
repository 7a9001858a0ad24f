"""The workbench is not an open proxy: private addresses are refused unless the operator names
them, the data directory's crawl settings reach its crawls, and a token guards every call.

A "private service" here is a real loopback server (127.0.8.6) holding a secret; the
workbench's operator names only the test webs (conftest.ALLOW_TEST_WEBS), so a visitor's
definition rooted at the secret must not fetch it, whatever its action."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.workbench.conftest import Workbench, docs_pages
from webcrawler.demoweb.server import LoopbackWeb, Page, Site

SECRET = "TOP-SECRET-7f3a9c"
PRIVATE = "127.0.8.6"


@pytest.fixture(scope="module")
def private_service() -> Iterator[LoopbackWeb]:
    pages = {"/admin/secret": Page(f"<html><title>admin</title><body>{SECRET} "
                                   '<a href="/admin/more">more</a></body></html>'),
             "/admin/more": Page(f"<html><body>{SECRET}-more</body></html>")}
    with LoopbackWeb([Site(PRIVATE, pages)]) as web:
        yield web


def secret_definition(web: LoopbackWeb, action: dict) -> dict:
    return {"roots": [web.url(PRIVATE, "/admin/secret")], "limits": {"seconds": 20},
            "action": action}


ACTIONS = [{"type": "extract", "pattern": {"regexp": r"TOP-SECRET-\w+"}, "format": "jsonl"},
           {"type": "save"}, {"type": "concatenate"}]


@pytest.mark.parametrize("action", ACTIONS, ids=[a["type"] for a in ACTIONS])
def test_a_private_root_is_refused_and_its_secret_never_fetched(
        workbench: Workbench, private_service: LoopbackWeb, action: dict) -> None:
    status, started = workbench.call("POST", "/api/crawls", secret_definition(private_service, action))
    assert status == 202, started
    view = workbench.wait(started["id"])
    assert view["state"] == "done" and view["summary"]["pages"] == 0
    private_service.log.settle()
    assert private_service.log.paths() == []  # not one request reached the private service
    status, result = workbench.call("GET", started["result_url"])
    body = result if isinstance(result, bytes) else str(result).encode()
    assert SECRET.encode() not in body


def test_the_workbench_does_not_crawl_itself(workbench: Workbench) -> None:
    _, started = workbench.call("POST", "/api/crawls", {"roots": [workbench.url],
                                                        "limits": {"seconds": 10},
                                                        "action": {"type": "concatenate"}})
    view = workbench.wait(started["id"])
    assert view["summary"]["pages"] == 0 and view["counters"]["skipped"] >= 1


def test_the_operator_may_name_a_private_host(
        make_workbench: Callable[..., Workbench], private_service: LoopbackWeb) -> None:
    bench = make_workbench("127.0.0.1", allow=("--allow-private-host", PRIVATE))
    _, started = bench.call("POST", "/api/crawls", secret_definition(private_service, ACTIONS[0]))
    view = bench.wait(started["id"])
    assert view["summary"]["pages"] == 2
    assert SECRET.encode() in bench.call("GET", started["result_url"])[1]


def test_the_data_directorys_crawl_settings_reach_its_crawls(
        make_workbench: Callable[..., Workbench], tmp_path: Path) -> None:
    data = tmp_path / "wb"
    data.mkdir()
    (data / "webcrawler.toml").write_text('[crawl]\nuser_agent = "ConfiguredBot/2.0"\n',
                                          encoding="utf-8")
    with LoopbackWeb([Site("127.0.8.1", docs_pages())]) as web:
        bench = make_workbench("127.0.0.1")
        _, started = bench.call("POST", "/api/crawls", {"roots": [web.url("127.0.8.1", "/docs/")],
                                                        "limits": {"seconds": 20}})
        view = bench.wait(started["id"])
        web.log.settle()
        agents = {hit.user_agent for hit in web.log.snapshot()}
    assert agents == {"ConfiguredBot/2.0"} and view["summary"]["pages"] == 7


def test_a_bad_config_file_stops_the_workbench_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "webcrawler.toml").write_text("[crawl]\ndelay = nan\n", encoding="utf-8")
    ran = subprocess.run([sys.executable, "-m", "webcrawler.cli", "workbench", "--data-dir",
                          str(tmp_path), "--port", "0"], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines() == [
        f"Error: {tmp_path / 'webcrawler.toml'}: [crawl] delay must be a finite number, not nan"]


def test_with_a_token_every_call_needs_it(make_workbench: Callable[..., Workbench],
                                          tmp_path: Path) -> None:
    bench = make_workbench("127.0.0.1", "--token", "s3cret-token")
    refused = bench.call("GET", "/api/crawls")
    assert refused[0] == 401 and "token" in refused[1]["error"]
    assert bench.call("GET", "/api/crawls", headers={"Authorization": "Bearer wrong"})[0] == 401
    assert bench.call("GET", "/")[0] == 401
    assert bench.call("POST", "/api/crawls", {"roots": ["http://127.0.8.1/"]})[0] == 401
    good = {"Authorization": "Bearer s3cret-token"}
    assert bench.call("GET", "/api/crawls", headers=good) == (200, {"crawls": []})
    # a browser: the printed address sets a cookie the page's calls then carry
    import http.cookiejar
    import urllib.request

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(bench.url + "?token=s3cret-token", timeout=10) as page:
        assert page.status == 200 and b"Crawler Workbench" in page.read()
        assert page.url == bench.url  # the token left the address bar
    with opener.open(bench.url + "api/crawls", timeout=10) as answer:
        assert answer.status == 200
    # the relocation client sends it too
    definition = tmp_path / "d.json"
    definition.write_text('{"roots": ["http://127.0.9.250:9/"], "limits": {"seconds": 5}}')
    ran = subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", str(definition), "--on",
                          bench.url, "--out", str(tmp_path / "out")], capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 1 and len(ran.stderr.strip().splitlines()) == 1
    assert "(401)" in ran.stderr
    ran = subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", str(definition), "--on",
                          bench.url, "--out", str(tmp_path / "out")], capture_output=True,
                         text=True, timeout=60, env={**__import__("os").environ,
                                                     "WEBCRAWLER_WORKBENCH_TOKEN": "s3cret-token"})
    assert ran.returncode == 0, ran.stderr


def test_bound_beyond_loopback_a_token_is_generated_and_printed(tmp_path: Path) -> None:
    """127.1 is loopback, but not a spelling the exposure check trusts: it gets the treatment
    of a public address (a warning and a generated token), without leaving this machine."""
    import tempfile

    from tests.support.waiting import wait_until
    from webcrawler.web import processes

    command = [sys.executable, "-m", "webcrawler.cli", "workbench", "--data-dir", str(tmp_path),
               "--host", "127.1", "--port", "0", "--insecure"]
    with tempfile.TemporaryFile("w+") as errors:
        process = processes.start(command, errors)
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip().removeprefix("Workbench at ")
            bench = Workbench(url, process, tmp_path)

            def printed() -> str:
                errors.seek(0)
                return errors.read()

            wait_until(lambda: "Token: " in printed(), 30, "no token printed")
            token = printed().split("Token: ", 1)[1].split()[0]
            assert "warning: listening on 127.1" in printed() and len(token) >= 32
            assert "can use the workbench, which makes this machine fetch URLs" in printed()
            assert bench.call("GET", "/api/crawls")[0] == 401
            assert bench.call("GET", "/api/crawls", headers={"Authorization": f"Bearer {token}"}) \
                == (200, {"crawls": []})
        finally:
            processes.end_group(process, 5)
            if process.stdout is not None:
                process.stdout.close()
