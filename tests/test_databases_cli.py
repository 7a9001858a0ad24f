"""Every command on both databases (`database_url`: SQLite, and a real PostgreSQL through --db):
`index`, `stats`, `serve` (a real waitress server: search, statistics, a real-time job),
`search`, `index --reindex`, `optimize`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import requests
from click.testing import CliRunner

from tests.cli_runner import run_cli as run
from webcrawler.cli import main
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.query_server import ServerThread, create_app

HOST = "127.0.4.70"
POLLS = 150  # a real-time job is looked at this many times, 0.2 s apart, at most


def garden() -> dict:
    """Home links to three pages; the tomato page links to two tomato pages not yet crawled
    (the index stops after three documents), which a real-time search for tomato finds."""
    return {
        "/": html("Garden index", "plants of the garden",
                  [("/tomato", "growing tomatoes"), ("/rose", "roses"), ("/bean", "beans")]),
        "/tomato": html("Tomato growing", "tomato tomato plants need sun and water",
                        [("/tomato-seeds", "tomato seeds"), ("/tomato-soup", "tomato soup")]),
        "/rose": html("Roses", "a rose garden with one tomato plant nearby"),
        "/bean": html("Beans", "climbing beans on poles"),
        "/tomato-seeds": html("Tomato seeds", "saving tomato seeds from ripe tomato fruit"),
        "/tomato-soup": html("Tomato soup", "a soup of roasted tomato and basil, tomato tomato"),
    }




def test_every_command_on_the_database(tmp_path: Path, database_url: str) -> None:
    data = str(tmp_path / "data")
    where = ["--data-dir", data, "--db", database_url]
    with LoopbackWeb([Site(HOST, garden())]) as web:
        summary = run("index", "--seed", web.url(HOST, "/"), "--max-docs", "3", "--agents", "2",
                      "--delay", "0", "--hours", "0.05", "--no-progress", *where)
        assert "documents retrieved  3" in summary
        assert not (Path(data) / "webcrawler.db").exists()  # --db, not the data dir's SQLite
        stats = json.loads(run("stats", "--json", *where))
        assert stats["documents"]["fetched"] == 3 and stats["index_documents"] == 3

        found = run("search", "tomato", "--want", "1", "--threshold", "1", "--agents", "1",
                    "--delay", "0", "--seconds", "30", "--json", *where)
        events = [json.loads(line) for line in found.splitlines()]
        assert events[-1]["type"] == "summary" and events[-1]["found"] >= 1, events[-1]

        assert "documents" in run("index", "--reindex", "--no-progress", *where)
        run("optimize", "--data-dir", data)
        after = json.loads(run("stats", "--json", *where))
        assert after["index_documents"] == after["documents"]["fetched"] >= 4
        output = run("export", "--format", "jsonl", *where)  # records, and a summary line (stderr)
        exported = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
        fetched = [record for record in exported if record["status"] == 200]
        assert len(fetched) == after["documents"]["fetched"] and all(r["text"] for r in fetched)

        served = serve_and_ask(Path(data), database_url)
    assert served["top"] in (web.url(HOST, "/tomato"), web.url(HOST, "/tomato-soup"))
    assert served["fetched"] == after["documents"]["fetched"]
    assert served["job"]["state"] == "done" and served["job"]["total"] >= 1, served["job"]


def serve_and_ask(data_dir: Path, database_url: str) -> dict:
    """Serve the data directory and database over HTTP: a search, the statistics, and one
    real-time job run to its end."""
    app = create_app(data_dir, db_url=database_url, stats_ttl=0.0, realtime_delay=0.0,
                     realtime_agents=1, realtime_seconds=30.0)
    try:
        with ServerThread(app, host="127.0.0.1", port=0, threads=2) as server, \
                requests.Session() as http:
            results = http.get(server.url + "api/search", params={"q": "tomato"}, timeout=30).json()
            stats = http.get(server.url + "api/stats", timeout=30).json()
            assert http.get(server.url + "stats", timeout=30).status_code == 200
            job = http.post(server.url + "api/realtime", json={"q": "soup basil", "want": 1},
                            timeout=30).json()
            view = {}
            for _ in range(POLLS):
                view = http.get(server.url + f"api/realtime/{job['id']}", timeout=30).json()
                if view["state"] != "running":
                    break
                time.sleep(0.2)
    finally:
        app.extensions["webcrawler.realtime"].close()
        app.extensions["webcrawler.sources"].close()
    return {"top": results["results"][0]["url"], "fetched": stats["documents"]["fetched"],
            "job": view}


def test_a_database_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    """No server on the URL's socket, a URL of no known database: one line naming the URL
    without its password, exit status 1, for every command that opens the database."""
    absent = f"postgresql+psycopg://crawler:s3cret@/crawl?host={tmp_path / 'no-server'}"
    for url, why in ((absent, "cannot be reached"), ("postgres://x@/y", "not a database URL")):
        for args in (["stats"], ["index", "--seed", "http://127.0.4.71/"], ["index", "--reindex"]):
            result = CliRunner().invoke(main, [*args, "--data-dir", str(tmp_path / "data"),
                                               "--db", url])
            assert result.exit_code == 1, (args, result.output)
            assert result.output.startswith("Error: the database ") and why in result.output
            assert "s3cret" not in result.output and "Traceback" not in result.output
