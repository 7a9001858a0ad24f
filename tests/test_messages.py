"""The engine/agent messages survive the pipe: what is unpickled is what was pickled."""

from __future__ import annotations

import dataclasses
import multiprocessing
import pickle

from webcrawler.agents.worker import encode
from webcrawler.protocol.messages import Document, Outlink, Retrieve


def test_a_document_with_every_field_set_crosses_the_pipe_whole():
    links = tuple(Outlink(f"http://127.0.1.1/{k}", f"anchor {k}" if k % 2 else "") for k in range(7))
    values = {f.name: f.type for f in dataclasses.fields(Document)}
    document = Document(
        job_id=7, url="http://127.0.1.1/a", final_url="http://127.0.1.1/b", status=200,
        content_type="text/html", charset="utf-8", title="A title", text="some text " * 50,
        links=links, length=1234, checksum="ab" * 32, elapsed=0.25, noindex=True,
        last_modified="Sun, 29 Nov 2026 12:00:00 GMT", etag='"x"', html="<p>x</p>", sketch=b"\x01" * 64,
        headers=(("Content-Type", "text/html"),), body=b"zlib", sitemaps=("http://127.0.1.1/s.xml",),
        canonical="http://127.0.1.1/c", headings=("H1", "H2"), lastmods=(("http://127.0.1.1/x", 1.5),),
        changefreqs=(("http://127.0.1.1/x", "daily"),), rendered=True)
    assert all(getattr(document, name) != Document.__dataclass_fields__[name].default
               for name in values if name != "job_id")  # every field differs from its default
    again = pickle.loads(pickle.dumps(document, pickle.HIGHEST_PROTOCOL))
    assert again == document
    assert all(type(link) is Outlink for link in again.links)
    assert [link.anchor for link in again.links] == [link.anchor for link in links]
    empty = Document(1, "http://127.0.1.1/", "http://127.0.1.1/", 200, "text/html", "utf-8", "", "")
    assert pickle.loads(pickle.dumps(empty)) == empty


def test_a_job_crosses_the_pipe_whole():
    job = Retrieve(3, "http://127.0.1.1/", kind="robots", etag='"e"', last_modified="x", sketch=True,
                   body=True, robots=(200, "User-agent: *\nDisallow: /private/"))
    assert pickle.loads(pickle.dumps(job)) == job


def test_an_answer_the_agent_encodes_is_what_the_engine_receives():
    document = Document(2, "http://127.0.1.1/", "http://127.0.1.1/", 200, "text/html", "utf-8", "T",
                        "text", links=(Outlink("http://127.0.1.1/a", "a"), Outlink("http://127.0.1.1/b")))
    engine, agent = multiprocessing.Pipe()
    with engine, agent:
        agent.send_bytes(encode(document))  # as agent_main sends it
        assert engine.poll(10)
        received = engine.recv()  # as the engine's pool reads it
    assert received == document and all(type(link) is Outlink for link in received.links)
