"""What every benchmark shares: the machine, the commit, medians, tables, its result as JSON.

A benchmark prints its section and, with `--json PATH`, writes it as data (bench/results/
<name>.json is the published figures' source); bench/report.py renders BENCHMARKS.md from
those files. No benchmark writes BENCHMARKS.md itself, so the page cannot drift from its data.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def commit(checkout: Path = ROOT) -> str:
    """The short commit of `checkout` (this one by default), "+dirty" when its code has
    uncommitted changes."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True,
                             text=True, timeout=10)
        # The results a run writes (bench/results/) are not a change of the code measured.
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":(exclude)bench/results"], cwd=checkout,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def byte_compiled(checkout: Path = ROOT) -> None:
    """Compile `checkout`'s package to .pyc files, as installing webcrawler does (pip compiles
    what it installs), so that a crawl's processes start as an installed webcrawler's do. An
    editable install under PYTHONDONTWRITEBYTECODE (this project's machines set it) never
    writes them: every process of every crawl compiled each module it imported again, about
    0.2 s of CPU in each of the engine and the index writer."""
    for package in ("webcrawler", "bench"):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / package)],
                       check=True, capture_output=True, timeout=600)


def machine() -> str:
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) // 1024
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return (f"{os.cpu_count()} CPUs, {mem / 1024:.1f} GB RAM, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}, load {load:.1f} at start")


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.2f}"
        return str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def command_line() -> str:
    return " ".join(shlex.quote(a) for a in [Path(sys.executable).name, "-m", *_module_argv()])


def _module_argv() -> list[str]:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    name = spec.name if spec is not None else Path(sys.argv[0]).stem
    return [name, *sys.argv[1:]]


def section(title: str, body: str, headline: str = "", goal: str = "", met: bool | None = None,
            command: str | None = None) -> dict[str, object]:
    """One benchmark's result as data: what bench/results/<name>.json holds and BENCHMARKS.md renders.

    `headline` is the figure the table of contents shows, `goal` the issue's goal beside it and
    `met` whether it is reached (None: no goal to meet).
    """
    return {"title": title, "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit(), "machine": machine(), "command": command or command_line(),
            "headline": headline, "goal": goal, "met": met, "body": body.rstrip()}


def render(result: dict[str, object]) -> str:
    """The markdown of one result: title, date, commit, machine, command, then its figures."""
    return (f"### {result['title']}\n\n{result['date']}, commit `{result['commit']}`, "
            f"{result['machine']}.\n\nCommand: `{result['command']}`\n\n{result['body']}\n")


def publish(title: str, body: str, json_path: Path | None = None, **summary: object) -> str:
    """Print a benchmark's section; with `json_path`, also write it there as data (`section`).

    Nothing is appended to BENCHMARKS.md: `python -m bench.report` renders the page from
    bench/results/*.json (`make bench-report`).
    """
    result = section(title, body, **summary)  # type: ignore[arg-type]
    text = render(result)
    print(text)
    if json_path is not None:
        save(json_path, result)
    return text


def save(json_path: Path, result: dict[str, object]) -> None:
    """Write one result where `make bench-report` reads it (one object, indented, a final newline)."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
