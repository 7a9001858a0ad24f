"""Writing the index: its single writer, the shard writers, and the check run before either
side opens the index.

The top room of the index: it builds on the format room (`format/`) and on the ranking
(`search/`) for the window bounds written after each commit.
"""
