"""A small tmpfs for tests that need a disk to fill up for real.

A full disk is met only on a real file system: a mock of `write` would not show
what SQLite, Whoosh and the workbench's state files do when ENOSPC arrives at
any of their writes. Root can mount a tmpfs of a few megabytes in a test's own
directory; CI runs as root, so a failed mount fails the test instead of skipping it.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (as mount takes it: "1m", "4m") mounted on the new directory `where`
    for the duration; unmounted afterwards whatever happened."""
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    assert done.returncode == 0, f"this test mounts a small tmpfs (as root): {done.stderr}"
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
