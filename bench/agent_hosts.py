"""Dask distributed against Celery+Redis for agents on other hosts (issue 15), on loopback.

    python -m bench.agent_hosts [--tasks 300] [--json FILE]

For each engine, two workers with one thread each on their own loopback
addresses, and:

- round trip: one trivial task submitted and its answer awaited, one at a
  time (what one URL's dispatch costs the engine beyond the fetch), median;
- pipelined: `--tasks` trivial tasks in flight at once, wall time per task;
- a killed worker: a 4 s task runs on worker A, A's process group is killed;
  the time until the scheduler drops A, and until the task has run again on B
  (bounded at 30 s).

Dask's roles are started with our own commands (`webcrawler agent-scheduler`,
`agent-host`); Celery's with `redis-server` and `celery worker --pool threads` (not
dependencies of ours: `apt-get install redis-server`, `pip install "celery[redis]"`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import median, publish, table
from tests.support.cluster import agent_cluster

BOUND = 30.0  # seconds we wait for a killed worker's task to run elsewhere


def dask_figures(tasks: int, logs: Path) -> dict[str, str]:
    from distributed import Client

    from webcrawler.agents.remote import ping

    with agent_cluster(logs, {"127.0.9.52": 1, "127.0.9.53": 1}) as cluster, \
            Client(cluster.scheduler.address, set_as_default=False) as client:
        round_trip = _round_trips(lambda: client.submit(ping, pure=False).result(), tasks)
        start = time.perf_counter()
        client.gather([client.submit(ping, pure=False) for _ in range(tasks)])
        pipelined = (time.perf_counter() - start) / tasks
        victim = cluster.hosts[0]
        future = client.submit(time.sleep, 4.0, workers=[victim.address], allow_other_workers=True,
                               pure=False)
        _wait(lambda: victim.address in {w for w, keys in client.processing().items() if keys})
        time.sleep(0.5)
        victim.kill()
        killed = time.perf_counter()
        _wait(lambda: len(client.scheduler_info()["workers"]) == 1)
        dropped = time.perf_counter() - killed
        future.result(timeout=BOUND)
        rerun = time.perf_counter() - killed - 4.0
    return {"round trip": f"{round_trip * 1000:.2f} ms", "pipelined": f"{pipelined * 1000:.2f} ms",
            "dropped": f"{dropped:.2f} s", "re-run": f"{rerun:.2f} s after the kill"}


def celery_figures(tasks: int, logs: Path) -> dict[str, str]:
    port = 6399
    broker = f"redis://127.0.9.60:{port}/0"
    env = dict(os.environ, BENCH_CELERY_BROKER=broker)
    redis = _spawn(["redis-server", "--bind", "127.0.9.60", "--port", str(port), "--save", "",
                    "--appendonly", "no"], logs / "redis.log", env)
    workers = []
    try:
        time.sleep(1.0)
        os.environ["BENCH_CELERY_BROKER"] = broker
        from bench.celery_app import app, nap, ping

        for name in ("a", "b"):
            workers.append(_spawn([sys.executable, "-m", "celery", "-A", "bench.celery_app", "worker",
                                   "--pool", "threads", "-c", "1", "-n", f"{name}@bench", "-l", "warning"],
                                  logs / f"celery-{name}.log", env))
        _wait(lambda: len(app.control.ping(timeout=0.5)) == 2, 90)
        round_trip = _round_trips(lambda: ping.delay().get(timeout=10), tasks)
        start = time.perf_counter()
        results = [ping.delay() for _ in range(tasks)]
        for result in results:
            result.get(timeout=30)
        pipelined = (time.perf_counter() - start) / tasks
        result = nap.delay(4.0)
        _wait(lambda: result.state == "STARTED")
        host = result.info["hostname"]
        victim = workers[0] if host.startswith("a@") else workers[1]
        time.sleep(0.5)
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        killed = time.perf_counter()
        dropped = _wait(lambda: len(app.control.ping(timeout=0.5)) == 1, BOUND)
        rerun_ok = _wait(lambda: result.state == "SUCCESS" or (
            result.state == "STARTED" and result.info["hostname"] != host), BOUND)
        rerun = time.perf_counter() - killed
        app.close()
    finally:
        for process in [*workers, redis]:
            _end(process)
    return {"round trip": f"{round_trip * 1000:.2f} ms", "pipelined": f"{pipelined * 1000:.2f} ms",
            "dropped": f"{dropped:.2f} s (asked by ping)" if dropped >= 0 else "never by itself",
            "re-run": f"{rerun:.2f} s after the kill" if rerun_ok >= 0 else
            f"not within {BOUND:.0f} s (the broker's visibility timeout: 1 h by default)"}


def _round_trips(call, count: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return median(times)


def _wait(condition, timeout: float = BOUND) -> float:  # type: ignore[no-untyped-def]
    """Seconds until `condition()` held (polled every 50 ms), or -1 after `timeout`."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if condition():
            return time.perf_counter() - start
        time.sleep(0.05)
    return -1.0


def _spawn(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with log.open("w") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    logs = Path(tempfile.mkdtemp(prefix="bench-agent-hosts-"))
    figures = {"Dask distributed": dask_figures(args.tasks, logs),
               "Celery + Redis": celery_figures(args.tasks, logs)}
    keys = ["round trip", "pipelined", "dropped", "re-run"]
    rows = [[name, *(f[k] for k in keys)] for name, f in figures.items()]
    body = table(["engine", "round trip per task (median)", f"{args.tasks} in flight, per task",
                  "killed worker dropped after", "its task re-run"], rows)
    dask = figures["Dask distributed"]
    publish("Agent hosts: Dask distributed against Celery + Redis", body, args.json,
            headline=f"Dask: {dask['round trip']} a round trip, {dask['pipelined']} a task in flight, "
                     f"a killed worker's task re-run {dask['re-run']}",
            goal="measure two engines on dispatch and failure detection, then choose")
    shutil.rmtree(logs, ignore_errors=True)


if __name__ == "__main__":
    main()
