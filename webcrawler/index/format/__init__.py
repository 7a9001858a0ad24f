"""The on-disk format: Whoosh's files and the arrays written beside them.

The only room of the index that names Whoosh's internals. What is written (the analyzer's
words, the schema, posting blocks, the flat posting arrays, stored fields, the format record)
and how it is read back fast (memory-mapped storage, block tables, the segment cache) live
here; the other rooms (`words/`, `search/`, `writing/`) build on it. What a Whoosh upgrade
needs is in docs/index.md.
"""
