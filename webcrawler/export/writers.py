"""Writing records out: JSON Lines for programs, WARC for archivists.

WARC (ISO 28500, written with warcio): each document with a stored response
becomes a `response` record (the status line, headers and body as the crawl
received them; the body is stored after content decoding, so Content-Encoding
and Transfer-Encoding are dropped and Content-Length is the stored body's),
followed by a `metadata` record (application/json: the JSON Lines fields and the
change history) that refers to it. A document without a stored response (a
redirect, one fetched before responses were kept) gets its metadata record only.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from http import HTTPStatus
from typing import BinaryIO, TextIO

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from webcrawler.export.records import Record, iso8601

DROPPED = {"content-encoding", "transfer-encoding", "content-length"}


def write_jsonl(records: Iterable[Record], out: TextIO) -> int:
    """One JSON object a line; returns how many."""
    count = 0
    for record in records:
        out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        count += 1
    return count


def write_warc(records: Iterable[Record], out: BinaryIO) -> int:
    """A gzipped WARC file, record by record; returns how many documents."""
    writer = WARCWriter(out, gzip=True)
    count = 0
    for record in records:
        response_id = None
        if record.response is not None:
            response = _response_record(writer, record)
            writer.write_record(response)
            response_id = response.rec_headers.get_header("WARC-Record-ID")
        writer.write_record(_metadata_record(writer, record, response_id))
        count += 1
    return count


def _response_record(writer: WARCWriter, record: Record):
    stored = record.response
    assert stored is not None
    headers = [(k, v) for k, v in stored.headers if k.lower() not in DROPPED]
    headers.append(("Content-Length", str(len(stored.body))))
    http = StatusAndHeaders(f"{stored.status} {_reason(stored.status)}", headers, protocol="HTTP/1.1")
    return writer.create_warc_record(
        record.url, "response", payload=io.BytesIO(stored.body), length=len(stored.body),
        http_headers=http, warc_headers_dict={"WARC-Date": iso8601(stored.fetched_at) or ""})


def _metadata_record(writer: WARCWriter, record: Record, response_id: str | None):
    fields = record.to_json() | {"state": record.state, "history": record.history}
    body = json.dumps(fields, ensure_ascii=False).encode()
    warc_headers = {"WARC-Date": iso8601(record.fetched_at) or ""}
    if response_id:
        warc_headers["WARC-Concurrent-To"] = response_id
    return writer.create_warc_record(record.url, "metadata", payload=io.BytesIO(body), length=len(body),
                                     warc_content_type="application/json", warc_headers_dict=warc_headers)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
