"""The demo: its web of pydoc pages on 127.0.5.x, its data directory, its port check, and
an end-to-end run (crawl the demo web, then search what was indexed)."""

from __future__ import annotations

import html
import re
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from webcrawler.cli import main
from webcrawler.cli.demo import MARKER, DemoError, check_port_free, prepare_data_dir, run_demo
from webcrawler.database.schema import connect, documents, sqlite_url
from webcrawler.demoweb.stdlib_docs import SECRET_WORD, DemoWeb
from webcrawler.protocol.robots import RobotsRules
from webcrawler.query_server import PortInUseError, create_app

HREF = re.compile(r'href="([^"]*)"')


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        error.close()
        return error.code, ""


def text_of(page: str) -> str:
    """Visible text, roughly: tags dropped, entities (pydoc's &nbsp;) made spaces."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).replace("\xa0", " ").split())


@pytest.fixture(scope="module")
def web():
    with DemoWeb(port=0) as demo_web:
        yield demo_web


@pytest.fixture(scope="module")
def manifest(web):
    return web.manifest()


def test_the_web_is_five_loopback_servers_on_127_0_5(web):
    hosts = [re.match(r"http://([\d.]+):\d+$", origin)[1] for origin in web.servers]
    assert hosts == ["127.0.5.100", "127.0.5.1", "127.0.5.2", "127.0.5.3", "127.0.5.4"]
    assert re.match(web.include_pattern, web.servers[2] + "/json.html")
    assert not re.match(web.include_pattern, "http://127.0.5.9:80/")


def test_the_hub_links_to_every_topic_server(web):
    status, page = get(web.seed_url)
    assert status == 200
    assert {origin + "/" for origin in web.servers[1:]} <= set(HREF.findall(page))


def test_module_pages_are_pydoc_text(manifest):
    status, page = get(manifest.modules["json"])
    assert status == 200
    assert "<title>Python: package json</title>" in page
    assert "<https://json.org> is a subset of JavaScript syntax (ECMA-262" in text_of(page)
    _, page = get(manifest.modules["textwrap"])
    assert "Text wrapping and filling" in text_of(page)


def test_links_cross_servers_and_never_leave_the_web(web, manifest):
    _, page = get(manifest.modules["json"])
    links = HREF.findall(page)
    assert manifest.modules["json.decoder"] in links  # same server, absolute
    assert manifest.modules["builtins"] + "#object" in links  # another server
    assert manifest.modules["builtins"].startswith(web.servers[4])
    for link in links:
        assert link.startswith(("#", "/")) or link.startswith(tuple(web.servers)), link
    assert "file:" not in "".join(links) and "__init__.py" not in page


@pytest.mark.parametrize("module", ["json", "xml.parsers.expat", "http", "email.message"])
def test_every_link_is_in_the_manifest(manifest, module):
    _, page = get(manifest.modules[module])
    known = manifest.allowed | manifest.disallowed | manifest.broken
    base = manifest.modules[module]
    for href in HREF.findall(page):
        url = urllib.request.urljoin(base, href).partition("#")[0]
        assert url == base or url in known, href


def test_every_page_is_linked_from_its_servers_index(web, manifest):
    linked = set()
    for origin in web.servers:
        _, page = get(origin + "/")
        linked |= {urllib.request.urljoin(origin + "/", href) for href in HREF.findall(page)}
    assert manifest.allowed | manifest.disallowed | manifest.broken <= linked | {web.seed_url}
    assert len(manifest.modules) > 150


def test_robots_txt_differs_per_server_and_agrees_with_the_manifest(web, manifest):
    bodies = {}
    for origin in web.servers[1:]:
        status, bodies[origin] = get(origin + "/robots.txt")
        assert status == 200
    assert len(set(bodies.values())) == 4
    assert get(web.servers[0] + "/robots.txt")[0] == 404  # the hub has none: all allowed
    rules = {origin: RobotsRules.from_response(200, body, "WebCrawler")
             for origin, body in bodies.items()}
    for url in manifest.allowed | manifest.disallowed:
        origin = re.match(r"http://[\d.]+:\d+", url)[0]
        if origin in rules:
            assert rules[origin].allowed(url) == (url in manifest.allowed), url
    assert [r.crawl_delay for r in rules.values()] == [None, None, 0.5, None]
    other = RobotsRules.from_response(200, bodies[web.servers[3]], "OtherBot")
    assert not other.allowed(web.servers[3] + "/")


def test_disallowed_pages_exist_and_hold_the_secret_word(manifest):
    assert manifest.modules["pickle"] in manifest.disallowed
    assert manifest.modules["ssl"] in manifest.disallowed
    for url in [u for u in manifest.disallowed if "/private/" in u]:
        status, page = get(url)
        assert status == 200 and SECRET_WORD in page
    changelog = next(u for u in manifest.allowed if u.endswith("/private/changelog.html"))
    status, page = get(changelog)
    assert status == 200 and SECRET_WORD not in page


def test_broken_links_answer_404(web, manifest):
    assert len(manifest.broken) >= 4
    for url in manifest.broken:
        assert get(url)[0] == 404, url
    assert get(web.servers[2] + "/json.html")[0] == 404  # json lives on the text server
    assert get(web.servers[1] + "/nosuchmodule.html")[0] == 404


def test_pages_are_rendered_once_and_deterministic(manifest):
    url = manifest.modules["difflib"]
    first = get(url)
    started = time.monotonic()
    assert get(url) == first
    assert time.monotonic() - started < 0.5


def test_a_fixed_port_serves_every_server_on_it():
    with socket.socket() as probe:
        probe.bind(("127.0.5.1", 0))
        port = probe.getsockname()[1]
    with DemoWeb(port=port) as fixed:
        assert all(origin.endswith(f":{port}") for origin in fixed.servers)
        assert get(fixed.seed_url)[0] == 200


# -- the data directory and the port


def test_a_new_data_dir_is_made_and_marked(tmp_path):
    prepare_data_dir(tmp_path / "demo")
    assert (tmp_path / "demo" / MARKER).is_file()


def test_a_demo_dir_is_wiped_of_its_database_and_index_only(tmp_path):
    prepare_data_dir(tmp_path)
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "_MAIN_1.toc").write_text("x")
    (tmp_path / "webcrawler.db").write_text("x")
    (tmp_path / "notes.txt").write_text("mine")
    prepare_data_dir(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [MARKER, "notes.txt"]


def test_a_dir_the_demo_did_not_make_is_never_wiped(tmp_path):
    (tmp_path / "webcrawler.db").write_text("someone's real crawl")
    with pytest.raises(DemoError, match="not made by the demo"):
        prepare_data_dir(tmp_path)
    assert (tmp_path / "webcrawler.db").read_text() == "someone's real crawl"


@pytest.fixture
def busy_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_a_busy_port_is_refused_before_crawling(tmp_path, busy_port):
    check_port_free("127.0.0.1", 0)
    with pytest.raises(PortInUseError, match=f"port {busy_port} .* already in use"):
        run_demo(tmp_path / "demo", port=busy_port, seconds=5)
    assert not (tmp_path / "demo").exists()


def test_the_cli_says_so_and_exits_1(tmp_path, busy_port):
    result = CliRunner().invoke(main, ["demo", "--port", str(busy_port),
                                       "--data-dir", str(tmp_path / "demo")])
    assert result.exit_code == 1
    assert "already in use" in result.output


# -- end to end


def test_the_demo_crawls_indexes_and_answers_searches(tmp_path: Path, capsys):
    data_dir = tmp_path / "demo"
    started = time.monotonic()
    summary = run_demo(data_dir, seconds=8, agents=4, serve=False, progress=False)
    assert time.monotonic() - started < 40
    out = capsys.readouterr().out
    assert summary in out and "documents retrieved" in summary
    app = create_app(data_dir, testing=True)
    try:
        client = app.test_client()
        answer = client.get("/api/search?q=regular+expression").get_json()
        assert answer["total"] >= 1
        assert any(re.match(r"http://127\.0\.5\.1:\d+/re\.html$", r["url"]) and
                   r["title"] == "Python: package re" for r in answer["results"])
        assert client.get(f"/api/search?q={SECRET_WORD}").get_json()["total"] == 0
        hosts = {re.match(r"http://([\d.]+)", r["url"])[1] for r in
                 client.get("/api/search?q=module&n=100").get_json()["results"]}
        assert len(hosts) >= 3  # documents from several servers
    finally:
        app.extensions["webcrawler.sources"].close()
    fetched = fetched_paths(data_dir)
    assert "/" in fetched and "/re.html" in fetched
    assert not fetched & {"/private/notes.html", "/private/drafts.html", "/pickle.html",
                          "/ssl.html", "/pdb.html"}  # robots.txt obeyed


def fetched_paths(data_dir: Path) -> set[str]:
    engine = connect(sqlite_url(data_dir))
    try:
        with engine.connect() as conn:
            query = select(documents.c.path).where(documents.c.state == "fetched")
            return set(conn.execute(query).scalars())
    finally:
        engine.dispose()
