"""A throwaway PostgreSQL cluster for tests: initdb + pg_ctl into a temporary directory.

The tests that must hold on both databases (the store, an end-to-end crawl)
run once on SQLite and once on a real PostgreSQL started here, on a unix
socket only (no TCP port: nothing listens on the network), with fsync off
since the cluster is thrown away. As root, initdb refuses to run, so the
cluster is made and run by the `postgres` user through `runuser`. Each test
gets a database of its own (`new_database`), so tests never see each other.

    find_binaries() -> Path | None          the directory holding initdb and pg_ctl
    with Cluster(bindir, workdir) as c:     start; stop and wipe on exit
        url = c.new_database()              a fresh, empty database's SQLAlchemy URL
"""

from __future__ import annotations

import os
import shutil
import subprocess
from itertools import count
from pathlib import Path
from types import TracebackType

DEBIAN_BINARIES = Path("/usr/lib/postgresql")
SUPERUSER = "postgres"
STARTUP_SECONDS = 60


def find_binaries() -> Path | None:
    """Where initdb and pg_ctl are: Debian's versioned directory (newest first), else PATH."""
    if DEBIAN_BINARIES.is_dir():
        for version in sorted(DEBIAN_BINARIES.iterdir(), key=_version, reverse=True):
            if (version / "bin" / "initdb").is_file():
                return version / "bin"
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _version(path: Path) -> tuple[int, str]:
    return (int(path.name), "") if path.name.isdigit() else (0, path.name)


class Cluster:
    """One PostgreSQL server in `workdir`, listening on a unix socket in it."""

    def __init__(self, bindir: Path, workdir: Path) -> None:
        self.bindir = bindir
        self.workdir = workdir
        self.datadir = workdir / "cluster"
        self.socketdir = workdir / "socket"
        self._names = count(1)
        self._as_root = os.geteuid() == 0

    def __enter__(self) -> Cluster:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.socketdir.mkdir()
        if self._as_root:  # initdb and postgres refuse to run as root
            shutil.chown(self.workdir, SUPERUSER)
            shutil.chown(self.socketdir, SUPERUSER)
        self._run("initdb", "-D", str(self.datadir), "-U", SUPERUSER, "-A", "trust",
                  "-E", "UTF8", "--locale=C", "--no-sync")
        options = f"-k {self.socketdir} -c listen_addresses='' -F -c max_connections=100"
        self._run("pg_ctl", "-D", str(self.datadir), "-l", str(self.workdir / "server.log"),
                  "-o", options, "-w", "-t", str(STARTUP_SECONDS), "start")
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the server (fast shutdown: open sessions are ended) and wipe its files."""
        if (self.datadir / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.workdir, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL (psycopg 3) of `database` over the unix socket."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.socketdir}"

    def new_database(self) -> str:
        """Create an empty database; return its URL."""
        name = f"test_{next(self._names)}"
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run one statement with psql; its output, unaligned and without headers."""
        return self._run("psql", "-h", str(self.socketdir), "-U", SUPERUSER, "-d", database,
                         "-v", "ON_ERROR_STOP=1", "-Atqc", sql)

    def _run(self, program: str, *args: str) -> str:
        command = [str(self.bindir / program), *args]
        if self._as_root:
            command = ["runuser", "-u", SUPERUSER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=STARTUP_SECONDS + 30,
                              cwd=self.workdir, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
        return done.stdout
