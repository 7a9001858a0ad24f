"""matplotlib is an optional extra (`webcrawler-search[plots]`): without it the plotting commands stop
at once with one line saying what to install, and nothing else needs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from webcrawler.cli import main
from webcrawler.plots import INSTALL, PlotsUnavailable, pyplot, require_plots

SMALL = ["--pages", "2000000", "--buckets", "8", "--periods", "5"]


@pytest.fixture
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hide matplotlib as an install without the extra would: importing it fails."""
    for name in [n for n in sys.modules if n == "matplotlib" or n.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_with_matplotlib_the_backend_draws_files_only() -> None:
    require_plots()
    assert pyplot().get_backend().lower() == "agg"


def test_without_matplotlib_the_error_says_what_to_install(no_matplotlib: None) -> None:
    with pytest.raises(PlotsUnavailable, match=INSTALL.replace("[", r"\[").replace("]", r"\]")):
        require_plots()
    with pytest.raises(PlotsUnavailable):
        pyplot()


def test_plan_recrawl_figures_without_matplotlib_is_one_line_before_solving(
        no_matplotlib: None, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["plan-recrawl", *SMALL, "--figures", str(tmp_path / "figs")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [f"Error: {PlotsUnavailable()}"]
    assert result.stdout == "" and not (tmp_path / "figs").exists()


def test_plan_recrawl_without_figures_needs_no_matplotlib(no_matplotlib: None) -> None:
    result = CliRunner().invoke(main, ["plan-recrawl", *SMALL, "--strategy", "2"])
    assert result.exit_code == 0, result.output
    assert "strategy 2" in result.stdout


def test_evaluate_ordering_without_matplotlib_is_one_line(no_matplotlib: None, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["evaluate-ordering", "--data-dir", str(tmp_path / "data"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [f"Error: {PlotsUnavailable()}"]


def test_the_command_line_module_does_not_load_matplotlib() -> None:
    code = "import sys, webcrawler.cli; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
