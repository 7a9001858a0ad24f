"""The paper's Figures 3 and 4 from solved plans, as PNG files (matplotlib, no display).

Figure 3: recommended crawls per page per cycle against the bucket's change rate, one line
per strategy. Figure 4: obsolete pages (old and new) at the end of each period, per strategy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from webcrawler.recrawl.model import Solution

FIGURE_3 = "recrawl-fig3-crawls-per-cycle.png"
FIGURE_4 = "recrawl-fig4-obsolete-per-period.png"


def write_figures(plans: dict[int, Solution], changes_per_cycle: np.ndarray, out: Path,
                  prefix: str = "") -> list[Path]:
    """Write both figures into `out` (created); returns their paths."""
    from webcrawler.plots import pyplot

    plt = pyplot()

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / (prefix + FIGURE_3), out / (prefix + FIGURE_4)]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for strategy, plan in sorted(plans.items()):
        ax.plot(changes_per_cycle, plan.crawls_per_cycle(), marker=".", label=f"strategy {strategy}")
    ax.plot(changes_per_cycle, changes_per_cycle, ":", color="grey", label="changes per cycle")
    ax.set(xscale="log", xlabel="expected changes per page per cycle (bucket)",
           ylabel="recommended crawls per page per cycle",
           title="Figure 3: recommended crawls per cycle by change rate")
    ax.set_ylim(bottom=-0.1, top=max(p.crawls_per_cycle().max() for p in plans.values()) + 0.5)
    ax.legend()
    fig.tight_layout()
    fig.savefig(paths[0])
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for strategy, plan in sorted(plans.items()):
        ax.plot(np.arange(len(plan.n)), plan.obsolete() / 1e6, marker="o", label=f"strategy {strategy}")
    ax.set(xlabel="time period (0 = start of the cycle)", ylabel="obsolete pages (millions)",
           title="Figure 4: obsolete pages each period")
    ax.legend()
    fig.tight_layout()
    fig.savefig(paths[1])
    plt.close(fig)
    return paths
