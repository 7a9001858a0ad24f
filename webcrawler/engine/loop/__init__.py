"""The crawl loop: the one loop that asks the agents for URLs, and what it does with each answer.

crawl.py holds `CrawlLoop`; documents.py is the path every kept document takes; the rest are
the parts the loop consults (retries, robots.txt, sitemaps, traps, scope, canonical and
near-duplicate pages) or reports through (progress, metrics, outcome); pool.py is the local
pool of agent processes; index_hooks.py is what `webcrawler index` does with the answers.
"""
