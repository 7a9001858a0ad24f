"""The search engine: decides what to fetch, runs the agents, writes the database. Never does HTTP.

The crawl loop (crawl.py, `CrawlLoop`) is the only crawl loop; interfaces.py says
what it meets (the store, the pool of agents, the client's hooks). Its clients:
indexing.py (`webcrawler index`, incremental crawls), realtime.py (real-time
search) and, outside this package, the toolkit's crawlers (toolkit/runtime.py).
A kept document takes documents.py's path.
"""
