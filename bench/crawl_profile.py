"""Where a batch crawl's CPU goes, per process: ms a page of the engine, the agents, the writer.

    python -m bench.crawl_profile [--web dev|heldout|tiny] [--rounds 3] [--before DIR]
                                  [--profile docs/profiles] [--json FILE] [--uncompiled]

`bench.throughput`'s crawl (`webcrawler index` on the test web's dev group, or with `--web heldout`
on its held-out generated web, `--delay 0`, every default feature on; with `--web tiny` one
server of the dev group, 16 pages, where start-up and exit are most of what a crawl costs), run through
bench/profile_hooks.py from a script that imports what the `webcrawler` console script imports
(ENGINE_SCRIPT: a child that imports its parent's main module again pays for it as a user's
crawl does): every process of the crawl writes
its own CPU seconds from its start to its end (getrusage), and this process, made the
"subreaper" of the crawl's tree, reaps every descendant (the forkserver and its resource
tracker too) so that `RUSAGE_CHILDREN` holds the whole tree's CPU, start to exit. The rest
(the total less the engine, the agents and the writer) is the forkserver, the resource
tracker and the processes' exits. Medians of `--rounds` rounds; with `--profile DIR` one
more round under cProfile, timed by each main thread's CPU clock (slower: its figures are
shares, not costs), writes each role's profile, the agents' merged, sorted by own time and by
cumulative time, to DIR/<role>.txt. `--before DIR`: another checkout's code (its webcrawler
package, this virtual environment; DIR/bench/profile_hooks.py copied from here) crawls too,
alternating with this one in every round. Both checkouts are byte-compiled first, as an
installed webcrawler is (`--uncompiled`: not, as an editable install under
PYTHONDONTWRITEBYTECODE, where each process compiles every module it imports).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pstats
import re
import resource
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.common import ROOT, byte_compiled, commit, median, publish, table
from bench.process_tree import become_subreaper, reap_all
from bench.throughput import OUR_COMMAND, ensure_testweb, our_command, served

ROLES = ("engine", "agents", "index writer", "the rest")
# The test web's dev group's smallest server (requests' documentation, 16 pages): a crawl whose
# cost is mostly its processes' start-up and exit (issue 36)
TINY = ("http://127.0.1.5:8080/", r"^http://127\.0\.1\.5:8080/")
_FILE_ROLE = {"engine": "engine", "agent": "agents", "writer": "index writer"}
# The engine's main module, as the `webcrawler` console script is (it imports webcrawler.cli,
# then calls it): a child started with it named as its parent's main module imports it again
# and pays what a user's crawl pays for it.
ENGINE_SCRIPT = """import sys

from webcrawler.cli import main  # noqa: F401 - what the console script imports

import bench.profile_hooks as hooks

if __name__ == "__main__":
    hooks.run_engine(sys.argv[1:])
"""


def crawl(work: Path, profile: bool, checkout: Path = ROOT, command: Sequence[str] = OUR_COMMAND
          ) -> tuple[int, dict[str, float], Path]:
    """(pages, CPU seconds by role, the directory of the processes' records) of one crawl of
    `checkout`'s code (`command`: webcrawler's arguments, the test web's dev group by default)."""
    out = Path(tempfile.mkdtemp(prefix="records-", dir=work))
    data = Path(tempfile.mkdtemp(prefix="data-", dir=work))
    env = dict(os.environ, BENCH_PROFILE_DIR=str(out), BENCH_PROFILE="1" if profile else "0",
               PYTHONPATH=str(checkout))
    args = [*command, "--data-dir", str(data)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    script = work / "webcrawler-script.py"
    script.write_text(ENGINE_SCRIPT)
    # a session of its own: its tree is reaped by process group (a generated web this process
    # serves is a child too, and runs on)
    proc = subprocess.Popen([sys.executable, str(script), *args], cwd=checkout, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    stdout, stderr = proc.communicate(timeout=1800)
    reap_all(group=proc.pid)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = re.search(r"documents retrieved\s+(\d+)", stdout)
    if proc.returncode or not match:
        raise RuntimeError(f"the crawl failed:\n{stdout}\n{stderr[-2000:]}")
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    cpu = dict.fromkeys(ROLES, 0.0)
    for record in out.glob("*.json"):
        entry = json.loads(record.read_text())
        cpu[_FILE_ROLE[entry["role"]]] += entry["cpu"]
    cpu["the rest"] = total - sum(cpu[r] for r in ROLES[:3])
    return int(match.group(1)), cpu, out


def write_profiles(records: Path, pages: int, target: Path, top: int = 45) -> list[str]:
    """Each role's profile (the agents' merged) as sorted text in `target`; their names."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for prefix, role in _FILE_ROLE.items():
        files = sorted(str(p) for p in records.glob(f"{prefix}-*.prof"))
        if not files:
            continue
        stats = pstats.Stats(files[0], stream=io.StringIO())
        for more in files[1:]:
            stats.add(more)
        name = role.replace(" ", "-") + ".txt"
        head = (f"# {role}: cProfile of one crawl of {pages} pages ({len(files)} process(es) "
                f"merged), commit {commit()}, by own time\n"
                f"# python -m bench.crawl_profile --profile {os.path.relpath(target, ROOT)}\n")
        (target / name).write_text(head + _sorted(stats, "tottime", top) + "\n# by cumulative time\n"
                                   + _sorted(stats, "cumulative", top))
        written.append(name)
    return written


def _sorted(stats: pstats.Stats, key: str, top: int) -> str:
    buffer = io.StringIO()
    stats.stream = buffer  # type: ignore[attr-defined]
    stats.strip_dirs().sort_stats(key).print_stats(top)
    lines = buffer.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    total = next((line.strip() for line in lines if "function calls" in line), "")
    return total + "\n" + "\n".join(lines[start:]).rstrip() + "\n"


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--web", choices=("dev", "heldout", "tiny"), default="dev",
                        help="the test web's dev group, bench.throughput's held-out generated web, "
                             "or the dev group's smallest server (start-up and exit)")
    parser.add_argument("--profile", type=Path, default=None,
                        help="one more round under cProfile, each role's profile written here")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout (with bench/profile_hooks.py) to crawl alternately")
    parser.add_argument("--uncompiled", action="store_true",
                        help="leave the checkouts without .pyc files (each process compiles the "
                             "sources it imports, as an editable install does)")
    args = parser.parse_args(argv)
    if args.web == "tiny":
        ensure_testweb()
        return _measure(args, our_command(*TINY))
    with served(args.web) as web:
        return _measure(args, our_command(web.seed, web.include))


def _measure(args: argparse.Namespace, command: list[str]) -> str:
    become_subreaper()
    runs = {"this checkout": ROOT.resolve(), **({"before": args.before.resolve()} if args.before else {})}
    if not args.uncompiled:
        for checkout in runs.values():
            byte_compiled(checkout)
    per_page: dict[str, dict[str, list[float]]] = {
        name: {role: [] for role in (*ROLES, "all")} for name in runs}
    pages: dict[str, list[int]] = {name: [] for name in runs}
    with tempfile.TemporaryDirectory(prefix="bench-crawl-profile-") as tmp:
        for number in range(args.rounds):
            for name, checkout in reversed(runs.items()):
                retrieved, cpu, _ = crawl(Path(tmp), False, checkout, command)
                pages[name].append(retrieved)
                for role in ROLES:
                    per_page[name][role].append(cpu[role] / retrieved * 1000)
                per_page[name]["all"].append(sum(cpu.values()) / retrieved * 1000)
                print(f"round {number + 1}, {name}: {retrieved} pages, "
                      + ", ".join(f"{r} {cpu[r]:.2f} s" for r in ROLES)
                      + f", {per_page[name]['all'][-1]:.2f} ms a page, load {os.getloadavg()[0]:.1f}",
                      file=sys.stderr, flush=True)
        written: list[str] = []
        if args.profile is not None:
            retrieved, _, records = crawl(Path(tmp), True, ROOT, command)
            written = write_profiles(records, retrieved, args.profile.resolve())
    return report(args, runs, per_page, pages, written)


def report(args: argparse.Namespace, runs: dict[str, Path], per_page: dict[str, dict[str, list[float]]],
           pages: dict[str, list[int]], written: list[str]) -> str:
    ours = per_page["this checkout"]
    labels = {name: f"{name} `{commit(checkout)}`" for name, checkout in runs.items()}
    rows = [[role, *(f"{median(per_page[name][role]):.2f} ("
                     + ", ".join(f"{v:.2f}" for v in per_page[name][role]) + ")" for name in runs)]
            for role in (*ROLES, "all")]
    counts = ", ".join(f"{labels[name]}: {', '.join(map(str, pages[name]))}" for name in runs)
    body = (f"Pages a crawl ({counts}); {args.rounds} rounds, alternating; CPU ms a page of each "
            "process of the crawl, from its start to its exit (getrusage; the rest: the forkserver, "
            "its resource tracker, exits): median (each round). "
            + ("Each checkout's sources compiled by each process that imports them (no .pyc files)."
               if args.uncompiled else "Each checkout byte-compiled first, as an installed "
               "webcrawler is (bench.common.byte_compiled).") + "\n\n"
            + table(["process", *(labels[name] for name in runs)], rows)
            + ("\n\nProfiles (one more round of this checkout under cProfile): "
               + ", ".join(f"docs/profiles/{name}" for name in written) if written else ""))
    total = median(ours["all"])
    where = {"dev": "", "tiny": ", on the dev group's smallest server (start-up and exit)"}.get(
        args.web, ", on the held-out generated web (bench.throughput.HELDOUT)")
    return publish(f"Where a batch crawl's CPU goes, per process{where}", body, args.json,
                   headline=f"{total:.2f} ms CPU a page (engine {median(ours['engine']):.2f}, "
                            f"agents {median(ours['agents']):.2f}, index writer "
                            f"{median(ours['index writer']):.2f})",
                   goal="at most 3.9 ms of CPU a page over every process (issue 36)", met=total <= 3.9)


if __name__ == "__main__":
    main()
