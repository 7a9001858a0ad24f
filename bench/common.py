"""What every benchmark shares: the machine, the commit, medians, tables, BENCHMARKS.md.

Sections are appended to BENCHMARKS.md in one write on a file opened for
appending (other benchmarks append too), and the file is created with a short
header when missing.
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "BENCHMARKS.md"
HEADER = ("# Benchmarks\n\nFigures measured on this project's machines; each section says when, "
          "at which commit, on what, and the command that produced it. Newest last.\n")


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


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


def append_section(title: str, body: str, command: str | None = None) -> str:
    """Append one section (title, date, commit, machine, command, body); return its text."""
    when = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    text = (f"\n## {title}\n\n{when}, commit `{commit()}`, {machine()}.\n\n"
            f"Command: `{command or command_line()}`\n\n{body.rstrip()}\n")
    try:
        fd = os.open(BENCHMARKS, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, HEADER.encode())
        os.close(fd)
    except FileExistsError:
        pass
    fd = os.open(BENCHMARKS, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    return text


def publish(title: str, body: str, append: bool = True) -> str:
    """Print a benchmark's section; with `append`, also add it to BENCHMARKS.md first."""
    text = append_section(title, body) if append else body
    print(text)
    return text
