"""matplotlib for the few commands that draw PNG plots: an optional extra, `webcrawler-search[plots]`.

Only `webcrawler evaluate-ordering` (its curves) and `webcrawler plan-recrawl --figures`
(the paper's Figures 3 and 4) draw; crawling, indexing and serving never do, so a plain
install leaves matplotlib (and its dozen dependencies) out. Those commands call
`require_plots` before their work starts, so a missing extra costs one line, not a run.
"""

from __future__ import annotations

from typing import Any

from webcrawler.errors import ExtraMissing, install_command

INSTALL = install_command("plots")


class PlotsUnavailable(ExtraMissing, ValueError):
    """matplotlib is not installed. A ValueError: the commands already turn those into one line."""

    def __init__(self) -> None:
        super().__init__(f"the plots need matplotlib, which is not installed: {INSTALL}")


def require_plots() -> None:
    """Raise PlotsUnavailable now, before a long computation whose plots could not be drawn."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotsUnavailable() from None


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (files only, no display)."""
    require_plots()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
