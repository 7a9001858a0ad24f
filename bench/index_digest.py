"""A digest of everything an index build stores, to check that a faster writer writes the same.

    python -m bench.index_digest [--checkout DIR] [--docs 9000] [--batch 1000]

bench/million.py's first `--docs` pages are indexed by `--checkout`'s writer (default: this
checkout; CHECKOUT/.venv's Python, its own `webcrawler` package) in commits of `--batch`,
the tiered merges they trigger included (9,000 in commits of 1,000: one merge of eight
segments, then a ninth). The digest is a BLAKE2b of every segment's stored parts (term
infos, posting lists, the content field's arrays, stored fields, lengths, columns, window
bounds), each part's name and bytes with the random segment ids replaced by the segment's
number, so two builds of the same documents that store the same bytes print the same digest.
Left out: the table of contents (it names the generation) and each compound file's directory
(a pickle whose order varies from run to run).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import subprocess
import tempfile
from pathlib import Path

from bench import million
from bench.common import ROOT
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.segments import compound_parts

BUILD = """
import pickle, sys
from pathlib import Path
from webcrawler.index import open_writer
docs = pickle.loads(Path(sys.argv[1]).read_bytes())
batch = int(sys.argv[2])
with open_writer(Path(sys.argv[3])) as writer:
    for first in range(0, len(docs), batch):
        writer.add(docs[first:first + batch])
        writer.commit()
"""

def build(checkout: Path, pages: Path, batch: int, index_dir: Path) -> None:
    """Index the pickled `pages` into `index_dir` with `checkout`'s writer."""
    python = checkout / ".venv" / "bin" / "python"
    # the caller's hash seed: a merged segment's bytes must not depend on it (they did until
    # merging.write_per_doc added each document's fields in name order)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    subprocess.run([str(python), "-c", BUILD, str(pages), str(batch), str(index_dir)],
                   cwd=checkout, env=env, timeout=3600, check=True)


def digest(index_dir: Path, parts: list[str] | None = None) -> str:
    """The BLAKE2b (8 bytes, hex) of the index's segments: each compound file's parts (its
    directory, a pickle whose order varies, left out) and every other file but the table of
    contents and the lock, segment ids numbered in the table of contents' order. `parts`, when
    given, gets a line per part: its name, size and own digest (to find which part differs)."""
    h = hashlib.blake2b(digest_size=8)
    ix = open_index(index_dir, create=False)
    try:
        with ix.reader() as reader:
            leaves = [leaf for leaf, _offset in reader.leaf_readers()]
            number = {leaf.segment().segment_id().encode(): b"SEG%04d" % n for n, leaf in enumerate(leaves)}

            def normal(data: bytes) -> bytes:
                for segid, name in number.items():
                    data = data.replace(segid, name)
                return data

            def add(name: str, data: bytes) -> None:
                if parts is not None:
                    parts.append(f"{normal(name.encode()).decode()} {len(data)} "
                                 f"{hashlib.blake2b(normal(data), digest_size=8).hexdigest()}")
                h.update(normal(name.encode()) + b"\0" + len(data).to_bytes(8, "big") + normal(data))

            compound = set()
            for leaf in leaves:
                segid = leaf.segment().segment_id()
                path = index_dir / f"{segid}.seg"
                compound.add(path.name)
                whole = path.read_bytes()
                for name, offset, length in sorted(compound_parts(leaf)):
                    add(name, whole[offset:offset + length])
    finally:
        ix.close()
    for path in sorted(index_dir.iterdir(), key=lambda p: normal(p.name.encode())):
        if path.is_file() and path.name not in compound and not path.name.startswith("_") \
                and not path.name.endswith("WRITELOCK"):
            add(path.name, path.read_bytes())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--docs", type=int, default=9000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--parts", action="store_true", help="also list each part's digest")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        pages = Path(tmp) / "pages.pickle"
        pages.write_bytes(pickle.dumps([million.document(n) for n in range(args.docs)]))
        build(args.checkout.resolve(), pages, args.batch, Path(tmp) / "index")
        parts: list[str] | None = [] if args.parts else None
        result = digest(Path(tmp) / "index", parts)
    for line in parts or []:
        print(line)
    print(result)
    return result


if __name__ == "__main__":
    main()
