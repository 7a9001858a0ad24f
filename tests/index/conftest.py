from __future__ import annotations

from pathlib import Path

import pytest

from webcrawler.index import IndexedDocument, open_searcher, open_writer

TINY = [
    IndexedDocument(
        1, "http://a.test/apple", "Apple pie", "apple pie recipe for apple and cinnamon", "a.test"
    ),
    IndexedDocument(
        2, "http://a.test/cider", "Cider", "apple cider is pressed from apples", "a.test"
    ),
    IndexedDocument(
        3, "http://b.test:8080/pie", "Pies", "pie crust and pie filling", "b.test:8080"
    ),
    IndexedDocument(
        4, "http://docs.b.test/manual", "Motor", "an automobile engine manual", "docs.b.test"
    ),
]


@pytest.fixture
def tiny_index(tmp_path: Path) -> Path:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.add(TINY)
    return index_dir


@pytest.fixture
def tiny(tiny_index: Path):
    with open_searcher(tiny_index) as searcher:
        yield searcher


@pytest.fixture
def tiny_exact(tiny_index: Path):
    """The tiny index searched without stemming: only the forms typed score."""
    with open_searcher(tiny_index, stemming=False) as searcher:
        yield searcher
