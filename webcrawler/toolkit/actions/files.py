"""Safe file names for URLs, and writing under one folder only.

A URL is attacker-chosen text: ``/../../etc/passwd``, ``/%2e%2e/``, a 5,000-
character segment, a NUL byte, ``con``, a query full of slashes. `local_name`
maps any URL to a relative path made only of ``[A-Za-z0-9._-]`` segments that
are never ``.`` or ``..``, each at most `MAX_SEGMENT` characters (longer ones
are cut and given a hash, as are queries), so distinct URLs stay distinct.
`inside` refuses any path that would resolve outside the folder anyway (a
symbolic link planted in it, say): the last line of defence, always used.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from webcrawler.errors import UsageError

MAX_SEGMENT = 80
MAX_DEPTH = 20  # path segments kept; deeper ones are folded into a hash
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class UnsafePath(UsageError, ValueError):
    """A path that would leave the folder an action writes to."""


def digest(text: str, length: int = 10) -> str:
    return hashlib.sha1(text.encode("utf-8", errors="replace")).hexdigest()[:length]


def safe_segment(text: str) -> str:
    """One path segment of safe characters, never empty, ``.`` or ``..``, at most MAX_SEGMENT."""
    clean = _UNSAFE.sub("_", unquote(text)).strip(".") or "_"
    if len(clean) > MAX_SEGMENT:
        clean = clean[: MAX_SEGMENT - 11] + "_" + digest(text)
    return clean


def local_name(url: str, suffix: str = ".html") -> PurePosixPath:
    """``host_port/dir/name.html`` for `url`; ``/`` and ``/dir/`` become ``index.html``."""
    parts = urlsplit(url)
    host = safe_segment(parts.netloc.lower().replace(":", "_"))
    segments = [s for s in parts.path.split("/") if s]
    name = "index" if not segments or parts.path.endswith("/") else segments.pop()
    if len(segments) > MAX_DEPTH:
        segments = segments[:MAX_DEPTH] + ["_" + digest("/".join(segments[MAX_DEPTH:]))]
    stem, dot, extension = safe_segment(name).rpartition(".")
    if not dot or not stem:
        stem, extension = safe_segment(name), ""
    if parts.query:
        stem += "_q" + digest(parts.query)
    ending = "." + extension if extension and "." + extension.lower() == suffix else ""
    return PurePosixPath(host, *map(safe_segment, segments), safe_segment(stem + ending) + (
        "" if ending else suffix))


def inside(folder: Path, relative: PurePosixPath | str) -> Path:
    """`folder / relative`, refused (UnsafePath) unless it resolves inside `folder`."""
    root = folder.resolve()
    target = (root / str(relative)).resolve()
    if target == root or root not in target.parents:
        raise UnsafePath(f"{relative} is outside {folder}")
    return target


def write_text(folder: Path, relative: PurePosixPath | str, text: str) -> Path:
    """Write UTF-8 text under `folder` (parents made), atomically, refusing unsafe paths."""
    target = inside(folder, relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".part")
    temporary.write_text(text, encoding="utf-8", errors="replace")
    os.replace(temporary, target)
    return target


def relative_link(from_file: PurePosixPath, to_file: PurePosixPath) -> str:
    """A relative href from one saved file to another (both relative to the folder)."""
    return os.path.relpath(str(to_file), str(from_file.parent) or ".").replace(os.sep, "/")
