"""Fixtures every test directory may use: the databases webcrawler runs on.

`database_url` runs a test once on SQLite (a file in the test's tmp_path) and once on a
real PostgreSQL: a throwaway cluster started here once per session (initdb + pg_ctl in a
temporary directory, unix socket only), one new database per test. The PostgreSQL run is
skipped only when the PostgreSQL binaries are absent and WEBCRAWLER_REQUIRE_POSTGRES is
unset; CI sets it, so there a missing PostgreSQL fails the run instead of hiding it.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres import Cluster, find_binaries

REQUIRE = "WEBCRAWLER_REQUIRE_POSTGRES"

# A shell starts a background job (`make test &`, a CI step run by some runners) with Ctrl-C
# ignored, every process it starts inherits that, and Python then installs no KeyboardInterrupt:
# the tests that press Ctrl-C on a server they started would wait for it in vain. The tests run
# as from a terminal, where Ctrl-C is Python's own.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL server for this session (started on first use, stopped at the end)."""
    bindir = find_binaries()
    if bindir is None:
        if os.environ.get(REQUIRE):
            pytest.fail(f"{REQUIRE} is set but no PostgreSQL binaries (initdb, pg_ctl) were found")
        pytest.skip("PostgreSQL is not installed (initdb, pg_ctl); set "
                    f"{REQUIRE}=1 to make this a failure")
    # Not under pytest's tmp_path: its parents are private to root, and the server runs
    # as the postgres user when the tests run as root.
    with Cluster(bindir, Path(tempfile.mkdtemp(prefix="webcrawler-pg-"))) as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLAlchemy URL of an empty database: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db' / 'webcrawler.db'}"
    cluster: Cluster = request.getfixturevalue("postgres")
    return cluster.new_database()
