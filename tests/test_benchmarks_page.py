"""BENCHMARKS.md cannot drift from its data: the committed bench/results/*.json, rendered by
bench/report.py, must give the page exactly as committed (`make bench-report` rewrites both)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from bench import report
from bench.common import RESULTS, publish


def test_the_page_is_its_data_rendered() -> None:
    page = report.PAGE.read_text(encoding="utf-8")
    assert report.rewrite(page, report.load()) == page, \
        "BENCHMARKS.md differs from bench/results/*.json: run `python -m bench.report`"


def test_every_result_file_is_on_the_page_and_every_area_has_its_heading() -> None:
    page = report.PAGE.read_text(encoding="utf-8")
    names = {m.group("name") for m in report.MARKER.finditer(page)}
    assert names == {path.stem for path in RESULTS.glob("*.json")} | {"contents"}
    headings = set(re.findall(r"^## (.+)$", page, re.M))
    assert {area.title for area in report.AREAS} <= headings
    assert all(area.result in names for area in report.AREAS if area.result)


def test_a_changed_figure_changes_the_page(tmp_path: Path) -> None:
    """The check can fail: a figure edited in the data is no longer what the page shows."""
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)
    data = json.loads((results / "change_threshold.json").read_text(encoding="utf-8"))
    data["body"] = data["body"].replace("|", "| 9", 1)
    data["headline"] = "a figure nobody measured"
    (results / "change_threshold.json").write_text(json.dumps(data), encoding="utf-8")
    page = report.PAGE.read_text(encoding="utf-8")
    rendered = report.rewrite(page, report.load(results))
    assert rendered != page
    assert "a figure nobody measured" in rendered and "| 9" in rendered


def test_a_result_without_a_marker_or_a_marker_without_a_result_is_refused(tmp_path: Path) -> None:
    published = tmp_path / "results" / "newbench.json"
    publish("A new benchmark", "| a | b |\n|---|---|\n| 1 | 2 |", published, headline="1", goal="2")
    with pytest.raises(SystemExit, match="no <!-- bench:NAME --> marker for: newbench"):
        report.rewrite("<!-- bench:contents -->\n<!-- /bench:contents -->\n", report.load(published.parent))
    with pytest.raises(SystemExit, match="bench/results/gone.json is missing"):
        report.rewrite("<!-- bench:contents -->\n<!-- /bench:contents -->\n"
                       "<!-- bench:gone -->\nold\n<!-- /bench:gone -->\n", {})


def test_a_published_result_renders_its_command_machine_and_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one.json"
    printed = publish("One", "| x |\n|---|\n| 42 |", path, headline="42", goal="> 40", met=True)
    result = json.loads(path.read_text(encoding="utf-8"))
    assert printed == report.block("one", result) and printed in capsys.readouterr().out
    assert "CPUs" in result["machine"] and "load" in result["machine"] and result["met"] is True
    page = "<!-- bench:one -->\n<!-- /bench:one -->\n<!-- bench:contents -->\n<!-- /bench:contents -->\n"
    rendered = report.rewrite(page, {"one": result})
    assert "| 42 |" in rendered and f"Command: `{result['command']}`" in rendered


def test_freshness_is_met_only_when_ours_wins_every_run_kept() -> None:
    """Issue 11's verdict on the contents line: buckets below uniform and adaptive over the second
    half in every repeated run (and not behind uniform on the static web), not on average."""
    result = json.loads((RESULTS / "freshness.json").read_text(encoding="utf-8"))
    runs = sorted({row["run"] for row in result["repeats"]})
    won = dict(result, repeats=[
        {"run": run, "policy": policy, "steady_obsolete": value}
        for run in runs for policy, value in (("uniform", 0.41), ("adaptive", 0.40), ("buckets", 0.38))])
    assert report.summary("freshness", won)[2] is True
    lost_one = dict(won, repeats=[dict(row, steady_obsolete=0.405) if row["run"] == runs[0]
                                  and row["policy"] == "buckets" else row for row in won["repeats"]])
    headline, _, met = report.summary("freshness", lost_one)
    assert met is False and f"lowest in {len(runs) - 1} of {len(runs)}" in headline
    behind_on_static = dict(won, results=dict(won["results"], static=[
        {"policy": "uniform", "mean_obsolete": 0.10}, {"policy": "buckets", "mean_obsolete": 0.11}]))
    assert report.summary("freshness", behind_on_static)[2] is False
