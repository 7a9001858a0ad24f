"""The harness's output: a CSV of the curves, one PNG per measure, a table for the terminal."""

from __future__ import annotations

import csv
from pathlib import Path

from webcrawler.evaluate.harness import Evaluation

TABLE_AT = (0.1, 0.2, 0.4, 0.6)
TITLES = {
    "pst": "Crawl & Stop with Threshold: PST (% of hot pages visited)",
    "pcs": "Crawl & Stop: PCS (% of visited pages among the top K)",
    "pbc": "Limited Buffer: PBC (% of the buffer's pages that are hot)",
}
X_LABELS = {"pst": "pages crawled (%)", "pcs": "pages crawled (%)",
            "pbc": "buffer size B (% of pages); the whole crawl is visited"}


def write_csv(evaluation: Evaluation, path: Path) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["measure", "crawler", "fraction", "value"])
        for measure, curves in evaluation.curves.items():
            for crawler, values in curves.items():
                for fraction, value in zip(evaluation.fractions[measure], values, strict=True):
                    writer.writerow([measure, crawler, f"{fraction:.4f}", f"{value:.3f}"])


def write_plots(evaluation: Evaluation, out_dir: Path, prefix: str = "ordering") -> list[Path]:
    from webcrawler.plots import pyplot

    plt = pyplot()

    paths = []
    for measure, curves in evaluation.curves.items():
        fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
        xs = [100 * f for f in evaluation.fractions[measure]]
        for crawler, values in curves.items():
            style = {"ideal": ":", "random (expected)": "--"}.get(crawler, "-")
            ax.plot(xs, values, style, label=crawler, linewidth=1.6)
        ax.set_xlabel(X_LABELS[measure])
        ax.set_ylabel(measure.upper() + " (%)")
        ax.set_title(f"{TITLES[measure]}\nI(P) = {evaluation.spec}; {evaluation.describe()}",
                     fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 102)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        path = out_dir / f"{prefix}-{measure}.png"
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths


def table(evaluation: Evaluation) -> str:
    """PST, PCS and PBC at 10/20/40/60 % for each crawler, as fixed-width text."""
    lines = [f"I(P) = {evaluation.spec}; {evaluation.describe()}"]
    for measure in ("pst", "pcs", "pbc"):
        header = f"{measure.upper():<20}" + "".join(f"{int(100 * f):>7}%" for f in TABLE_AT)
        lines += ["", header]
        for crawler in evaluation.curves[measure]:
            lines.append(f"{crawler:<20}" + "".join(
                f"{evaluation.value_at(measure, crawler, f):>8.1f}" for f in TABLE_AT))
    return "\n".join(lines)
