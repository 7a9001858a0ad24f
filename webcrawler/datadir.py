"""The data directory's layout, in one place: what lives where under `--data-dir`.

    webcrawler.db (-wal, -shm, -journal)   the crawl's database (SQLite, unless --db names another)
    index/                                 the full-text index (index/shard-K/ if sharded: format/version.py)
    leases/                                politeness across processes: who may ask which server now
    webcrawler.toml                        the optional config file (config/file.py)
    workbench/<crawl id>/                  the workbench's crawls, a folder each (workbench/crawls.py)

Every command finds its parts through `DataDir`, so moving one is one change here.
Paths, and one rule for making them: a data directory holds the text of every page fetched
(credentialed ones too) and its stored responses, so it is created readable by its owner
only (`create_private`, 0700; the SQLite database 0600, database/schema.py). Nothing is read
here, and nothing is imported but os and pathlib.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DATABASE = "webcrawler.db"
CONFIG_FILE = "webcrawler.toml"


PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def create_private(directory: Path) -> Path:
    """Make `directory` and any missing parent, each new one readable by its owner only (an
    existing directory keeps its mode: the operator chose it)."""
    directory = Path(directory)
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    for path in reversed(missing):
        try:
            path.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            continue  # made meanwhile by another process
        os.chmod(path, PRIVATE_DIR)  # whatever the umask
    return directory


@dataclass(frozen=True)
class DataDir:
    """The parts of the data directory at `root`."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @property
    def database(self) -> Path:
        """The SQLite database file (used unless a --db URL names another database)."""
        return self.root / DATABASE

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL of `database`."""
        return f"sqlite:///{self.database}"

    @property
    def database_files(self) -> tuple[Path, ...]:
        """The database and the files SQLite keeps beside it while it writes."""
        return (self.database, *(self.root / f"{DATABASE}-{end}" for end in ("wal", "shm", "journal")))

    @property
    def index(self) -> Path:
        return self.root / "index"

    @property
    def leases(self) -> Path:
        return self.root / "leases"

    @property
    def config_file(self) -> Path:
        return self.root / CONFIG_FILE

    @property
    def workbench(self) -> Path:
        """Where the workbench keeps its crawls, one folder each."""
        return self.root / "workbench"
