"""Is the index on disk usable? Checked once at start by `webcrawler index` and
`webcrawler serve`, so that a damaged file gets one clear line naming it (and
`webcrawler index --reindex` as the way out) rather than a traceback or a 500 on
every page.

`check(index_dir)` opens what every query and commit would open: the format
file, the table of contents, and each segment's compound file, its directory
(which must lie inside the file), terms, document lengths and stored fields. It
reads no posting list in full: it costs milliseconds, not a scan. `set_aside`
moves an index out of the way for `--reindex`. Nothing here repairs anything.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from whoosh.filedb.filestore import FileStorage
from whoosh.index import Index
from whoosh.reading import SegmentReader

from webcrawler.index.format.opening import has_index, open_index, refuse_orphan_segments
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.format.segments import Segment, compound_parts, segments
from webcrawler.index.format.storage import SEGMENT_SUFFIX
from webcrawler.index.format.version import index_dirs
from webcrawler.index.models import IndexDamaged

log = logging.getLogger(__name__)

WRITE_LOCK = "MAIN_WRITELOCK"  # Whoosh's lock file for the index's one writer
ATTEMPTS = 5  # a writer's commit can delete the segments of the TOC being checked: look again


def check(index_dir: Path) -> None:
    """Raise IndexDamaged (naming the damaged file) unless the index in `index_dir` opens
    and reads; an absent or empty directory is fine (a new index). Safe beside a running
    writer: a failure on a table of contents that a newer commit replaced is checked again.
    A sharded index (`shards.py`) is checked shard by shard."""
    for directory in index_dirs(index_dir):
        _check_index(directory)


def _check_index(index_dir: Path) -> None:
    index_dir = Path(index_dir)
    for attempt in range(1, ATTEMPTS + 1):
        if not has_index(index_dir):
            refuse_orphan_segments(index_dir)
            return
        generation = _latest_generation(index_dir)
        try:
            _check_commit(index_dir)
            return
        except (IndexDamaged, OSError) as error:
            if attempt < ATTEMPTS and _latest_generation(index_dir) != generation:
                log.debug("the index changed while it was checked: checking the new commit")
                continue
            if isinstance(error, IndexDamaged):
                raise
            raise IndexDamaged(getattr(error, "filename", None) or index_dir,
                               f"cannot be read ({error.strerror or 'input/output error'})") from None


def _check_commit(index_dir: Path) -> None:
    ix = open_index(index_dir, create=False)
    try:
        for segment in segments(ix):
            _check_segment(ix, segment, index_dir / segment.make_filename(SEGMENT_SUFFIX))
    finally:
        ix.close()


def _latest_generation(index_dir: Path) -> int:
    """The newest table of contents' generation (_MAIN_<generation>.toc; -1: none)."""
    numbers = [p.stem.rsplit("_", 1)[-1] for p in index_dir.glob("_MAIN_*.toc")]
    return max((int(n) for n in numbers if n.isdigit()), default=-1)


def _check_segment(ix: Index, segment: Segment, path: Path) -> None:
    if not path.exists():
        raise IndexDamaged(path, "is missing (the table of contents lists it)")
    try:
        reader = SegmentReader(ix.storage, ix.schema, segment)
    except Exception as error:  # any failure to open is damage; the detail goes to the log
        log.debug("opening %s: %r", path, error)
        raise IndexDamaged(path, "cannot be opened (truncated or overwritten)") from None
    try:
        _read_parts(reader, path)
    except IndexDamaged:
        raise
    except Exception as error:
        log.debug("reading %s: %r", path, error)
        raise IndexDamaged(path, "cannot be read (truncated or overwritten)") from None
    finally:
        reader.close()


def _read_parts(reader: SegmentReader, path: Path) -> None:
    """Touch what queries touch first: the compound directory, lengths, terms, stored fields."""
    size = path.stat().st_size
    for name, offset, length in compound_parts(reader):
        if offset + length > size:
            raise IndexDamaged(path, f"is truncated ({size} bytes; its part {name} ends at "
                                     f"{offset + length})")
    count = reader.doc_count_all()
    if count:
        reader.doc_field_length(count - 1, CONTENT)
        reader.stored_fields(0)
        reader.stored_fields(count - 1)
    list(islice(reader.all_terms(), 1))


def set_aside(index_dir: Path, damaged: bool) -> Path | None:
    """Move the index directory to `index.damaged-<time>` (or `index.previous-<time>`) beside
    it, for a rebuild; None when there is none. Refuses while another process writes it."""
    index_dir = Path(index_dir)
    if not index_dir.exists():
        return None
    with contextlib.ExitStack() as locks:
        for directory in index_dirs(index_dir):  # each shard's writer holds its own lock
            if directory.is_dir():
                locks.enter_context(_write_lock(directory))
        target = _aside_name(index_dir, "damaged" if damaged else "previous")
        os.rename(index_dir, target)
    return target


def _aside_name(index_dir: Path, why: str) -> Path:
    """`index.<why>-<time>`, with `-2`, `-3`, ... when one was set aside in the same second."""
    base = f"{index_dir.name}.{why}-{time.strftime('%Y%m%d-%H%M%S')}"
    target, n = index_dir.with_name(base), 1
    while target.exists():
        n += 1
        target = index_dir.with_name(f"{base}-{n}")
    return target


@contextlib.contextmanager
def _write_lock(index_dir: Path) -> Iterator[None]:
    """Whoosh's write lock of `index_dir`, or IndexDamaged when a writer holds it."""
    lock = FileStorage(str(index_dir)).lock(WRITE_LOCK)
    if not lock.acquire(blocking=False):
        raise IndexDamaged(index_dir, "is being written by another webcrawler process",
                           remedy="stop it (webcrawler index, index-writer or a real-time search) "
                                  "and try again")
    try:
        yield
    finally:
        lock.release()
