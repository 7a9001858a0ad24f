"""`webcrawler plan-recrawl`: the table, --json, the figures, --from-crawl on a real SQLite file,
and a plan turned into the incremental crawl's inputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, insert, text

from webcrawler.cli import main
from webcrawler.database.schema import connect, documents, servers, sqlite_url
from webcrawler.recrawl.buckets import bucket_of_interval, interval_of_bucket
from webcrawler.recrawl.history import NoHistory, from_database
from webcrawler.recrawl.instances import Scenario
from webcrawler.recrawl.plan_inputs import period_inputs
from webcrawler.recrawl.solve import solve

SMALL = ["--pages", "2000000", "--buckets", "8", "--periods", "5"]
DAY = 86400.0


def test_table_json_and_figures(tmp_path):
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(main, ["plan-recrawl", *SMALL, "--json", str(out), "--figures",
                                       str(tmp_path / "figs")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "objective" in lines[0] and "total pages at end" in lines[0]
    assert [line.split()[:2] for line in lines[1:]] == [["strategy", "1"], ["strategy", "2"],
                                                         ["strategy", "3"]]
    plans = json.loads(out.read_text())
    assert plans["buckets"] == 8 and plans["periods"] == 5
    two = plans["strategies"]["2"]
    assert len(two["obsolete_per_period"]) == 6 and len(two["crawls_per_cycle"]) == 8
    assert two["obsolete_end"] == pytest.approx(two["objective"])  # strategy 2 weighs the end only
    assert float(lines[2].split()[2]) == pytest.approx(two["objective"], rel=1e-3)
    for name in ("recrawl-fig3-crawls-per-cycle.png", "recrawl-fig4-obsolete-per-period.png"):
        assert (tmp_path / "figs" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_json_to_stdout_for_one_strategy():
    result = CliRunner().invoke(main, ["plan-recrawl", *SMALL, "--strategy", "3", "--json", "-"])
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["strategies"]) == ["3"]


def test_solver_failure_is_one_line_and_exit_1():
    result = CliRunner().invoke(main, ["plan-recrawl", *SMALL, "--strategy", "1", "--max-iter", "1"])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1].startswith(
        "Error: Ipopt did not find an optimal plan: Maximum_Iterations_Exceeded")
    assert "Traceback" not in result.output


def test_a_crawl_without_change_history_is_one_line(tmp_path):
    engine = create_engine(sqlite_url(tmp_path))
    with engine.begin() as conn:  # the documents table as it was before incremental crawling
        conn.execute(text("CREATE TABLE documents (id INTEGER PRIMARY KEY, state TEXT, "
                          "times_fetched INTEGER, times_changed INTEGER, last_fetch FLOAT)"))
    engine.dispose()
    with pytest.raises(NoHistory, match="no documents.change_bucket, first_fetch"):
        from_database(sqlite_url(tmp_path), Scenario())
    result = CliRunner().invoke(main, ["plan-recrawl", "--from-crawl", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "keeps no change history" in result.stderr and "Traceback" not in result.output
    empty = CliRunner().invoke(main, ["plan-recrawl", "--from-crawl", "--data-dir",
                                      str(tmp_path / "nothing")])
    assert empty.exit_code == 1 and "no crawl in" in empty.stderr


def stored_crawl(tmp_path, now: float = 1_000_000.0) -> str:
    """A real crawl database: 30 pages seen changing every few hours, 60 stable for weeks,
    10 found but never fetched; fetched every 2 hours over 2 days."""
    url = sqlite_url(tmp_path)
    engine = connect(url)
    fetches, span = 25, 2 * DAY
    rows = []
    for k in range(100):
        fast, fetched = k < 30, k < 90
        changes = 20 if fast else 0
        interval = 2 * 3600 if fast else 40 * DAY
        rows.append(dict(server_id=1, path=f"/p{k}", state="fetched" if fetched else "queued",
                         discovered_at=now - span - 10, times_fetched=fetches if fetched else 0,
                         times_changed=changes if fetched else 0,
                         first_fetch=now - span if fetched else None,
                         last_fetch=now - (k % 5) * 600 if fetched else None,
                         change_bucket=bucket_of_interval(interval) if fetched else 0))
    with engine.begin() as conn:
        conn.execute(insert(servers).values(id=1, scheme="http", host="127.0.0.1", port=80, first_seen=0))
        conn.execute(insert(documents), rows)
    engine.dispose()
    return url


def test_from_crawl_measures_buckets_rates_and_backlog(tmp_path):
    data, source = from_database(stored_crawl(tmp_path), Scenario(periods=4, period_days=0.25))
    assert data.buckets == 2 and data.periods == 4
    slow, fast = np.argsort(source["changes_per_day"])
    assert data.b0[fast] == 30 and data.b0[slow] == 60 and data.n0 == 10
    # each bucket's rate is the one its pages' own estimates put them in (the stored
    # change_bucket: 2 hours, 40 days), not the bucket's recrawls pooled (issue 35)
    for k, interval in ((fast, 2 * 3600), (slow, 40 * DAY)):
        stands_for = interval_of_bucket(bucket_of_interval(interval)) or 0.0
        assert source["changes_per_day"][k] == pytest.approx(DAY / stands_for, rel=1e-4)
    assert data.a[fast, 0] == pytest.approx(1 - math.exp(-source["changes_per_day"][fast] / 4))
    assert data.a[slow, 0] < 0.01 and 0 < data.y0[fast] < data.b0[fast]
    assert data.capacity[0] == pytest.approx(0.25 * DAY)
    plan = solve(data)
    assert plan.crawls_per_cycle()[fast] > plan.crawls_per_cycle()[slow]


def test_from_crawl_on_the_command_line(tmp_path):
    stored_crawl(tmp_path)
    result = CliRunner().invoke(main, ["plan-recrawl", "--from-crawl", "--data-dir", str(tmp_path),
                                       "--periods", "4", "--period-days", "0.25", "--json", "-"])
    assert result.exit_code == 0, result.output
    plans = json.loads(result.stdout)
    assert plans["source"]["kind"] == "crawl" and plans["buckets"] == 2


def test_a_plan_becomes_rates_and_queue_shares():
    data = Scenario(pages=1e6, buckets=6, periods=4, crawls_per_cycle=1.5)
    from webcrawler.recrawl.instances import build

    model = build(data, 1)
    plan = solve(model)
    ids = [250, 240, 230, 220, 210, 200]
    inputs = period_inputs(plan, ids, period_seconds=3600.0)
    assert inputs.new_share + inputs.recrawl_share == pytest.approx(1.0)
    assert inputs.new_share == pytest.approx(plan.z[0] / (plan.x[:, 0].sum() + plan.z[0]))
    for k, bucket in enumerate(ids):
        rate = plan.x[k, 0] / model.b0[k]
        assert inputs.bucket_rates[bucket] == pytest.approx(rate)
        assert inputs.interval(bucket) == (pytest.approx(3600.0 / rate) if rate > 1e-9 else math.inf)
    with pytest.raises(ValueError, match="2 bucket ids for a plan of 6 buckets"):
        period_inputs(plan, ids[:2], 3600.0)


@pytest.mark.parametrize(("flags", "expected"), [
    (["--buckets", "100000", "--periods", "100000"],
     "a model of 100000 buckets x 100000 periods needs about 120000.1 GB of memory to solve"),
    (["--fastest-days", "1000", "--slowest-days", "1"],
     "--fastest-days (1000) must be less than --slowest-days (1)"),
    (["--pages", "1e308", "--crawls-per-cycle", "1e308"],
     "the model's capacity overflows with these values"),
    (["--period-days", "nan"], "'nan' is not a finite number."),
])
def test_a_model_that_cannot_be_solved_here_is_one_line(flags, expected):
    """Refused before anything is built: no memory taken, no numpy or overflow traceback."""
    result = CliRunner().invoke(main, ["plan-recrawl", "--strategy", "1", *flags])
    assert result.exit_code in (1, 2) and expected in result.output, result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: ")
    assert "Traceback" not in result.output and result.exception is None or \
        isinstance(result.exception, SystemExit)
