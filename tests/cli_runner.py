"""Run one `webcrawler` command in the test's own process, as a user would type it."""

from __future__ import annotations

import signal

from click.testing import CliRunner

from webcrawler.cli import main


def run_cli(*args: str) -> str:
    """The command's output; it must succeed. The signal handlers a crawl installs for
    Ctrl-C are put back afterwards, so they never outlive the command into pytest."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert result.exit_code == 0, result.output
    return result.output
