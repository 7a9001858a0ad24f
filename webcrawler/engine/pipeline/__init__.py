"""The index pipeline: from a kept document to the full-text index, without stalling the crawl.

outbox.py holds the rows and the one way to apply them; index_sink.py feeds one index through a
writer process; shard_sink.py and shard_writer.py feed S shards; reindex.py rebuilds the index
from the database. link_evidence.py reads what the links table says of a document as it is
indexed, and link_refresh.py sends a page to the index again when its in-links change during
the crawl; languages.py keeps each document's language, as the index detected it, in the
database.

The crawl's side (the sinks, link refresh) asks its store only through `interfaces.OutboxBook`
and `LinkBook`; SQL stays with the index writer's read path, the processes that read
committed rows: index_sink.py's writer process, shard_writer.py, reindex.py and what they
read with (link_evidence.py, languages.py, outbox.py's `apply`). The outbox's statements are
engine/store/outbox_rows.py's.
"""
