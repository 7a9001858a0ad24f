"""Opening the index on disk: its table of contents read, its format checked, or a new one made.

Both sides open the index here: the writer (`writing/writer.py`) to add to it, the searchers
(`search/searcher.py`, `search/sharded.py`) to read it, and the check (`writing/check.py`).
"""

from __future__ import annotations

import logging
from pathlib import Path

from whoosh import index

from webcrawler.index.format.pickled import know_old_names
from webcrawler.index.format.schema import build_schema
from webcrawler.index.format.storage import SEGMENT_SUFFIX, IndexStorage
from webcrawler.index.format.version import check_format, check_whoosh, shard_count, write_format
from webcrawler.index.models import IndexDamaged

log = logging.getLogger(__name__)

TOC_PREFIX = "MAIN"  # Whoosh's default index name: _MAIN_<generation>.toc


def open_index(index_dir: Path, create: bool) -> index.Index:
    """Open the Whoosh index in `index_dir`, creating it (and the directory) when asked.
    Segments are read through `IndexStorage` (memory-mapped, never copied). Raises
    IndexDamaged for an index in another format (`format/version.py`) or whose table of contents
    cannot be read."""
    index_dir = Path(index_dir)
    know_old_names()  # an older table of contents pickles our classes under their old names
    storage = IndexStorage(str(index_dir))
    if has_index(index_dir):
        try:
            ix = storage.open_index()
        except OSError:  # a commit replaced the TOC as it was read: the caller looks again
            raise
        except Exception as error:  # garbage in the TOC: pickle, struct, index errors alike
            log.debug("opening the index in %s: %r", index_dir, error)
            _close_streams(error)
            raise IndexDamaged(index_dir, "has a table of contents (_MAIN_*.toc) that cannot be "
                                          "read") from None
        check_format(index_dir, ix, adopt=create)
        return ix
    refuse_orphan_segments(index_dir)
    if not create:
        raise FileNotFoundError(f"no index in {index_dir}")
    shards = shard_count(index_dir)
    if shards > 1:  # never write one index over a shard layout
        raise IndexDamaged(index_dir, f"is split into {shards} shards",
                           remedy=f"write it with `webcrawler index-writer --shards {shards}`")
    check_whoosh(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    write_format(index_dir)
    return storage.create_index(build_schema())


def _close_streams(error: BaseException) -> None:
    """Close the files Whoosh's TOC.read left open when it raised (its `stream` local):
    otherwise they are closed by the garbage collector, with a ResourceWarning."""
    trace = error.__traceback__
    while trace is not None:
        close = getattr(trace.tb_frame.f_locals.get("stream"), "close", None)
        if callable(close):
            close()
        trace = trace.tb_next


def refuse_orphan_segments(index_dir: Path) -> None:
    """Segments without a table of contents are an index that lost it, not a new index."""
    if Path(index_dir).is_dir() and any(Path(index_dir).glob("*" + SEGMENT_SUFFIX)):
        raise IndexDamaged(index_dir, "has segment files but no table of contents (_MAIN_*.toc)")


def has_index(index_dir: Path) -> bool:
    """Whether `index_dir` holds a Whoosh table of contents (an index, maybe empty)."""
    return Path(index_dir).is_dir() and any(Path(index_dir).glob(f"_{TOC_PREFIX}_*.toc"))
