"""A sharded index: S ordinary indexes (shards), one writer each, searched as one.

The first wall a growing crawl hits is the one Whoosh writer (100-200 documents a
second). Splitting the documents across S shards gives S writers, each a process
that may run on another host against the shared database (`engine/pipeline/shard_writer.py`).
A document's shard is `doc_id % S`: by document rather than by server, because the
crawl's documents are very unevenly spread over servers (one big site is most of a
crawl) while doc ids are dense and sequential, so shards stay within one document of
each other in size; and a document keeps its id when it is fetched again, so its
replacement always reaches the shard that holds it. Collection statistics are
summed over all shards at query time (`sharded.py`), so nothing in the ranking
depends on which shard a document lives in.

Layout: `index_dir/webcrawler-index.json` records `"shards": S` (`format/version.py`), and
shard K is an ordinary index in `index_dir/shard-K/`. One index (S = 1) is today's
layout, unchanged. This module never searches.
"""

from __future__ import annotations

import logging
from pathlib import Path

from webcrawler.index.format.opening import has_index
from webcrawler.index.format.version import index_dirs, shard_count, shard_dir, write_layout
from webcrawler.index.models import IndexDamaged
from webcrawler.index.writing.writer import IndexWriter, open_writer

log = logging.getLogger(__name__)


def shard_of(doc_id: int, shards: int) -> int:
    """The shard that holds document `doc_id` (stable: the same for every process)."""
    return doc_id % shards


def shards_wanted(index_dir: Path, shards: int) -> int:
    """`shards`, or (0) as many as the index in `index_dir` has: one for a new index."""
    return shards or shard_count(index_dir)


def prepare_layout(index_dir: Path, shards: int) -> None:
    """Make `index_dir` ready for `shards` writers: record the layout when there is none;
    raise IndexDamaged when it holds another layout (one index, or another S)."""
    found = shard_count(index_dir)  # 1: one index, or none yet
    if found == shards:
        return
    rebuild = "or rebuild it with the new number (webcrawler index --reindex)"
    if found > 1:
        raise IndexDamaged(index_dir, f"is split into {found} shards, not {shards}",
                           remedy=f"give --index-shards {found} (a real-time search writes only "
                                  f"an index of one shard), {rebuild}")
    if has_index(index_dir):
        raise IndexDamaged(index_dir, f"holds one index, not {shards} shards",
                           remedy=f"give no --index-shards, {rebuild}")
    write_layout(index_dir, shards)
    log.info("index %s: split into %d shards by doc_id", index_dir, shards)


def open_shard_writer(index_dir: Path, shard: int, shards: int, **kwargs: object) -> IndexWriter:
    """The writer of shard `shard` of `shards` (`prepare_layout` first)."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not one of 0..{shards - 1}")
    prepare_layout(index_dir, shards)
    if shards == 1:
        return open_writer(index_dir, **kwargs)
    return open_writer(shard_dir(index_dir, shard), **kwargs)


def optimize(index_dir: Path, only: int | None = None) -> int:
    """Merge each shard (or the one index) into one segment; `only`: just that shard, on
    the host that writes it. Returns how many indexes were optimized."""
    directories = index_dirs(index_dir)
    if only is not None:
        if not 0 <= only < len(directories) or len(directories) == 1:
            raise IndexDamaged(index_dir, f"has no shard {only} (it has {len(directories)})",
                               remedy="give a shard number the layout has")
        directories = [directories[only]]
    done = 0
    for directory in directories:
        if not has_index(directory):
            continue  # a shard that has no document yet
        with open_writer(directory) as writer:
            writer.optimize()
        done += 1
    return done
