"""A real-time job's process tree: started in its own session, ended as a whole.

`webcrawler search` starts agents, a multiprocessing forkserver, its resource
tracker and an indexer process; killing only the child leaves them behind.
So the child leads a new session (and process group), and ending a job
signals the whole group: SIGTERM, a grace period, then SIGKILL.

    start(command, stderr) -> Popen      the child, leader of its own process group
    end_group(process, grace)            SIGTERM the group, wait, SIGKILL what is left, reap
    group_members(pgid) -> [pid]         live (non-zombie) processes in the group
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from typing import IO

import psutil

log = logging.getLogger(__name__)


def start(command: list[str], stderr: IO[str]) -> subprocess.Popen[str]:
    """The child in a new session: its pid is the group's id, and no terminal signal reaches it."""
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True,
                            start_new_session=True)


def group_members(pgid: int) -> list[int]:
    """The pids of live processes in process group `pgid` (zombies excluded: they hold nothing)."""
    members = []
    for proc in psutil.process_iter(["pid", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(proc.pid) == pgid:
                members.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return members


def signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already


def end_group(process: subprocess.Popen[str], grace: float) -> None:
    """SIGTERM every process of the job's group, give them `grace` seconds, SIGKILL the rest,
    and reap the child. Safe to call more than once, and after the child has exited."""
    pgid = process.pid
    signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (process.poll() is None or group_members(pgid)):
        time.sleep(0.05)
    if process.poll() is None or group_members(pgid):
        log.warning("real-time job %s did not stop within %.0f s: killing its processes", pgid, grace)
        signal_group(pgid, signal.SIGKILL)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
        log.error("real-time job %s survived SIGKILL", pgid)
