"""The index pipeline: from a kept document to the full-text index, without stalling the crawl.

outbox.py holds the rows and the one way to apply them; index_sink.py feeds one index through a
writer process; shard_sink.py and shard_writer.py feed S shards; reindex.py rebuilds the index
from the database.
"""
