"""`webcrawler search`: results stream as they are found, then a summary."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

from click.testing import CliRunner

from webcrawler.cli import main


def run(args: list[str]) -> tuple[int, str]:
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return result.exit_code, result.output


def test_search_streams_results_then_a_summary(indexed: Path) -> None:
    code, out = run(["search", "sailing boats", "--data-dir", str(indexed), "--want", "3",
                     "--threshold", "600", "--agents", "2", "--delay", "0", "--seconds", "30"])
    assert code == 0, out
    lines = out.strip().splitlines()
    results = [line.split() for line in lines[:-1]]
    assert all(r[0].isdigit() and int(r[0]) <= 1000 and r[1] in ("new", "indexed") for r in results)
    assert all(r[-1].startswith("http://127.0.7.") for r in results)
    summary = re.fullmatch(r"fetched (\d+) documents, found (\d+) new in [\d.]+ s \((.+)\)", lines[-1])
    assert summary is not None, lines[-1]
    assert int(summary[2]) == [r[1] for r in results].count("new") >= 3
    assert summary[3] == "enough found"


def test_search_json_lines(indexed: Path) -> None:
    code, out = run(["search", "chess opening", "--data-dir", str(indexed), "--json",
                     "--max-fetches", "3", "--want", "50", "--agents", "1", "--delay", "0"])
    assert code == 0, out
    events = [json.loads(line) for line in out.splitlines()]
    assert events[-1]["type"] == "summary" and events[-1]["fetched"] == 3
    assert {"result", "progress"} <= {e["type"] for e in events}


def test_a_query_of_stop_words_is_a_usage_error(indexed: Path) -> None:
    code, out = run(["search", "the of", "--data-dir", str(indexed)])
    assert code == 2 and "common words" in out
