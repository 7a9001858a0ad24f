"""The index's own format version, kept in a small JSON file beside Whoosh's files.

The index package reads and writes private details of whoosh-reloaded 2.7.5 (the
W3 posting-block pickles, term-info layout, reader and writer attributes): an
index written by another Whoosh, or by another version of this package, may
read wrong rather than fail. So every index carries `FORMAT_FILE`:

    {"format": 2, "whoosh": "2.7.5", "schema": [field names]}

written when the index is created, checked whenever it is opened (readers and
the writer); a mismatch raises `IndexDamaged` with the way out
(`webcrawler index --reindex`). An index created before the file existed (a
table of contents, no file) is format 1: what this package wrote before the file
existed. Format 2 added the facet fields (site, kind, lang), so format 1 indexes,
with or without the file, are refused until rebuilt.

A sharded index (`shards.py`) has no Whoosh files of its own: its directory holds
the shard layout, the same record plus `"shards": S, "shard_by": "doc_id"`, and
one ordinary index per shard in `shard-<K>/`. See docs/index.md.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import whoosh
from whoosh.index import Index

from webcrawler.index.format.schema import build_schema
from webcrawler.index.models import IndexDamaged

log = logging.getLogger(__name__)

FORMAT_FILE = "webcrawler-index.json"
FORMAT_VERSION = 2  # 2: the facet fields site, kind, lang
WHOOSH_VERSION = "2.7.5"  # the whoosh-reloaded release pinned in pyproject.toml
SHARD_BY = "doc_id"  # a document's shard: doc_id modulo the number of shards (shards.py)


def installed_whoosh() -> str:
    return whoosh.versionstring()


def expected() -> dict:
    """What an index written by this package, on the pinned Whoosh, says of itself."""
    return {"format": FORMAT_VERSION, "whoosh": WHOOSH_VERSION, "schema": sorted(build_schema().names())}


def write_format(index_dir: Path) -> None:
    """Write the format file (atomically: a reader never sees half of it)."""
    path = Path(index_dir) / FORMAT_FILE
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(expected()) + "\n")
    os.replace(partial, path)


def write_layout(index_dir: Path, shards: int) -> None:
    """Record that `index_dir` is split into `shards` shard indexes (atomically)."""
    Path(index_dir).mkdir(parents=True, exist_ok=True)
    path = Path(index_dir) / FORMAT_FILE
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps({**expected(), "shards": shards, "shard_by": SHARD_BY}) + "\n")
    os.replace(partial, path)


def shard_dir(index_dir: Path, shard: int) -> Path:
    """Where shard `shard` of a sharded index lives: an ordinary index of its own."""
    return Path(index_dir) / f"shard-{shard}"


def index_dirs(index_dir: Path) -> list[Path]:
    """Every index directory `index_dir` is made of: itself, or its S shards."""
    shards = shard_count(index_dir)
    return [Path(index_dir)] if shards == 1 else [shard_dir(index_dir, k) for k in range(shards)]


def shard_count(index_dir: Path) -> int:
    """How many shards the index in `index_dir` is split into: 1 for one index (or none yet).
    Raises IndexDamaged for a layout record this webcrawler cannot read."""
    path = Path(index_dir) / FORMAT_FILE
    try:
        found = json.loads(path.read_text())
    except FileNotFoundError:
        return 1
    except (OSError, ValueError):
        raise IndexDamaged(path, "has a format file that cannot be read") from None
    if not isinstance(found, dict) or "shards" not in found:
        return 1
    shards = found["shards"]
    rest = {k: v for k, v in found.items() if k not in ("shards", "shard_by")}
    if rest != expected() or found.get("shard_by") != SHARD_BY or not isinstance(shards, int) \
            or shards < 1:
        raise IndexDamaged(path, f"is in another format ({_describe(found)}; this webcrawler "
                                 f"reads format {FORMAT_VERSION} on whoosh {WHOOSH_VERSION})")
    return shards


def check_whoosh(index_dir: Path) -> None:
    """Refuse to touch any index with a Whoosh other than the pinned one."""
    if installed_whoosh() != WHOOSH_VERSION:
        raise IndexDamaged(
            index_dir, f"needs whoosh-reloaded {WHOOSH_VERSION} but {installed_whoosh()} is installed",
            remedy=f"pip install whoosh-reloaded=={WHOOSH_VERSION} (docs/index.md: checking a release)")


def check_format(index_dir: Path, ix: Index, adopt: bool) -> None:
    """Raise IndexDamaged unless the index in `index_dir` is in our format (`adopt`, the
    writer's flag, no longer adopts anything: an index without the file is format 1)."""
    check_whoosh(index_dir)
    path = Path(index_dir) / FORMAT_FILE
    if not path.exists():
        _check_legacy(index_dir, ix)
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        raise IndexDamaged(path, "has a format file that cannot be read") from None
    if not isinstance(found, dict) or found != expected():
        raise IndexDamaged(path, f"is in another format ({_describe(found)}; this webcrawler "
                                 f"reads format {FORMAT_VERSION} on whoosh {WHOOSH_VERSION})")


def _check_legacy(index_dir: Path, ix: Index) -> None:
    """An index without a format file: format 1 at best, which this webcrawler cannot read."""
    release = ".".join(map(str, ix.release))
    if release != WHOOSH_VERSION:
        raise IndexDamaged(index_dir, f"has no {FORMAT_FILE} and was written by whoosh {release} "
                                      "with another schema or Whoosh than this webcrawler's")
    raise IndexDamaged(index_dir, f"has no {FORMAT_FILE}: it is in format 1 (whoosh {release}), "
                                  f"without the facet fields of format {FORMAT_VERSION}")


def _describe(found: object) -> str:
    if not isinstance(found, dict):
        return "not a format record"
    if "shards" in found:
        return f"split into {found['shards']!r} shards by {found.get('shard_by')!r}"
    return f"format {found.get('format')!r} written with whoosh {found.get('whoosh')!r}"
