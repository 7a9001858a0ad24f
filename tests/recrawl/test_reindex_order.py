"""A page that leaves the index and comes back before the next index batch stays indexed
(the index writer applies a batch's deletes to committed segments only, not to its adds)."""

from __future__ import annotations

from pathlib import Path

from webcrawler.database.schema import connect, sqlite_url
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.index import open_searcher
from webcrawler.protocol.messages import Document


def page(text: str) -> Document:
    url = "http://127.0.11.3:8080/a"
    return Document(job_id=1, url=url, final_url=url, status=200, content_type="text/html",
                    charset="utf-8", title="a page", text=text)


def test_removed_then_added_in_one_batch_is_in_the_index(tmp_path: Path) -> None:
    engine = connect(sqlite_url(tmp_path))
    store = CrawlStore(engine)
    sink = IndexSink(store, tmp_path / "index")
    try:
        sink.add(1, page("pineapple orchard"))
        store.commit()
        sink.commit()
        sink.remove(1)  # a recrawl saw a redirect ...
        sink.add(1, page("mango orchard"))  # ... and the next one the page again
        store.commit()
        sink.close()
    finally:
        store.close()
        engine.dispose()
    with open_searcher(tmp_path / "index") as searcher:
        assert searcher.search("mango").total == 1
        assert searcher.search("pineapple").total == 0
