"""The stored documents, one record each, streamed from the database in id order.

A record is what the crawl holds of a document: its metadata and change history
(the recrawl columns, None on a database made before them), the text
the index holds (the outbox row the index is built from: no whoosh here), and the
newest stored response (for WARC). Rows are read in pages of `PAGE` documents, so
an export never holds a whole crawl in memory. Reading never writes.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import inspect, select
from sqlalchemy.engine import Connection

from webcrawler.database.schema import documents, index_outbox, outbox_text, responses, servers
from webcrawler.database.states import State
from webcrawler.protocol.urls import origin

PAGE = 500
EXPORTED = (State.FETCHED, State.REDIRECTED, "gone")  # documents the crawl retrieved at least once
HISTORY = ("times_trivial", "times_unmodified", "times_not_modified", "change_bucket", "last_change",
           "etag", "last_modified")


@dataclass(frozen=True, slots=True)
class StoredResponse:
    fetched_at: float
    status: int
    headers: list[tuple[str, str]]
    body: bytes  # as received, after content decoding


@dataclass(frozen=True, slots=True)
class Record:
    doc_id: int
    url: str
    final_url: str
    state: str
    status: int | None
    content_type: str | None
    fetched_at: float | None
    times_fetched: int
    times_changed: int
    change_bucket: int | None
    title: str | None
    text: str | None
    history: dict[str, object]
    response: StoredResponse | None

    def to_json(self) -> dict[str, object]:
        """The JSON Lines fields, in the documented order."""
        return {"url": self.url, "final_url": self.final_url, "status": self.status,
                "content_type": self.content_type, "fetched_at": iso8601(self.fetched_at),
                "times_fetched": self.times_fetched, "times_changed": self.times_changed,
                "change_bucket": self.change_bucket, "title": self.title, "text": self.text}


def iso8601(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def read_records(conn: Connection, with_responses: bool = False) -> Iterator[Record]:
    """Every exported document, in id order, one page of rows at a time."""
    have = _present(conn)
    last = 0
    while True:
        rows = conn.execute(_page(have, with_responses, last)).all()
        for row in rows:
            yield _record(row._mapping, have)
        if len(rows) < PAGE:
            return
        last = rows[-1].id


def _present(conn: Connection) -> set[str]:
    """Which optional columns and tables this database has (an older one lacks the recrawl's)."""
    inspector = inspect(conn)
    have = {c["name"] for c in inspector.get_columns("documents")}
    if inspector.has_table("responses"):
        have.add("responses")
    return have


def _page(have: set[str], with_responses: bool, after: int):
    d, s = documents, servers
    columns = [d.c.id, s.c.scheme, s.c.host, s.c.port, d.c.path, d.c.state, d.c.status, d.c.content_type,
               d.c.last_fetch, d.c.times_fetched, d.c.times_changed, d.c.title, d.c.detail,
               index_outbox.c.payload]
    columns += [d.c[name] for name in HISTORY if name in have]
    query = (select(*columns).join(s, s.c.id == d.c.server_id)
             .outerjoin(index_outbox, index_outbox.c.doc_id == d.c.id))
    if with_responses and "responses" in have:
        r = responses
        query = query.add_columns(r.c.fetched_at.label("r_fetched_at"), r.c.status.label("r_status"),
                                  r.c.headers.label("r_headers"), r.c.body.label("r_body"))
        query = query.outerjoin(r, r.c.doc_id == d.c.id)
    return query.where(d.c.state.in_(EXPORTED), d.c.id > after).order_by(d.c.id).limit(PAGE)


def _record(row, have: set[str]) -> Record:
    url = origin(row["scheme"], row["host"], row["port"]) + row["path"]
    redirected = row["state"] == State.REDIRECTED
    return Record(
        doc_id=row["id"], url=url, final_url=row["detail"] if redirected and row["detail"] else url,
        state=row["state"], status=row["status"], content_type=row["content_type"],
        fetched_at=row["last_fetch"], times_fetched=row["times_fetched"], times_changed=row["times_changed"],
        change_bucket=row["change_bucket"] if "change_bucket" in have else None,
        title=row["title"], text=outbox_text(row["payload"]) if row["state"] == State.FETCHED else None,
        history={name: row[name] for name in HISTORY if name in have},
        response=_response(row))


def _response(row) -> StoredResponse | None:
    if row.get("r_body") is None:
        return None
    headers = [(str(k), str(v)) for k, v in json.loads(row["r_headers"])]
    return StoredResponse(row["r_fetched_at"], row["r_status"], headers, zlib.decompress(row["r_body"]))
