"""Reading webcrawler.toml safely, for the settings (file.py) and the credentials
(credentials.py) alike: the file sits in a data directory that others may write to, so
a symlink to /dev/zero, a FIFO or a huge file must end in one ConfigError line, never in
a hang or a full memory."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from webcrawler.config.kinds import ConfigError

MAX_FILE = 1 << 20  # bytes: a settings file is small; a symlink to /dev/zero is not one


def read_toml(path: Path) -> dict[str, Any]:
    """The file's tables; FileNotFoundError when there is none, ConfigError when it is no
    readable, small, regular TOML file."""
    try:
        text = _read(path)
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise ConfigError(f"{path}: cannot be read ({reason})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply)") from None


def _read(path: Path) -> str:
    """The file's text: a regular file (a device, a FIFO or a directory is refused, also
    behind a symlink) of at most MAX_FILE bytes, read no further than that."""
    with open(path, "rb", opener=_nonblocking) as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ConfigError(f"{path}: not a regular file")
        data = handle.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise ConfigError(f"{path}: larger than {MAX_FILE} bytes: not a settings file")
    return data.decode("utf-8")


def _nonblocking(path: str, flags: int) -> int:
    """Open without waiting: opening a FIFO for reading blocks until a writer comes."""
    return os.open(path, flags | os.O_NONBLOCK)
