"""The database keeps what the index was built from: outbox rows stay, marked INDEXED, once
the index has committed them (what `webcrawler index --reindex` rebuilds from); a document
removed from the index loses its row, so a rebuild does not bring it back."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from webcrawler.database.schema import INDEXED, connect, index_outbox
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.pipeline.outbox import unpack
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.index import open_searcher
from webcrawler.protocol.messages import Document


def page(n: int) -> Document:
    url = f"http://127.0.10.71:8080/p{n}"
    return Document(job_id=n, url=url, final_url=url, status=200, content_type="text/html",
                    charset="utf-8", title=f"Page {n}", text=f"kept words number{n}")


def test_indexed_text_stays_in_the_database_until_its_document_leaves_the_index(tmp_path: Path) -> None:
    engine = connect(f"sqlite:///{tmp_path / 'db.sqlite'}")
    store = CrawlStore(engine)
    sink = IndexSink(store, tmp_path / "index")
    try:
        for n in (1, 2, 3):
            sink.add(n, page(n))
        store.conn.commit()
        sink.commit()
        sink.remove(2)
        store.conn.commit()
        sink.commit()
    finally:
        sink.close()
        store.close()
    with engine.connect() as conn:
        rows = conn.execute(select(index_outbox.c.doc_id, index_outbox.c.batch, index_outbox.c.payload)
                            .order_by(index_outbox.c.doc_id)).all()
    engine.dispose()
    assert [(doc_id, batch) for doc_id, batch, _ in rows] == [(1, INDEXED), (3, INDEXED)]
    assert unpack(rows[1][2]).text == "kept words number3"
    with open_searcher(tmp_path / "index") as searcher:
        assert searcher.search("kept").total == 2
