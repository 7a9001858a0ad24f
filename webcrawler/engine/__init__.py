"""The search engine: decides what to fetch, runs the agents, writes the database. Never does HTTP.

Four rooms, the contract between them and the records they share, in one order from the
bottom up: each imports only what stands before it (tests/test_boundaries.py).

    records.py      the shared record types: frontier entries, new URLs, server state, found
                    links, and which failures are passing
    interfaces.py   what the crawl loop meets: the store, the pool of agents, the client's hooks
    store/          what is known of servers, URLs and documents: the SQL store (sql.py), the
                    in-memory one (memory.py), the crawl's stored scope
    scheduling/     which server and which document come next, and politeness: scheduler,
                    frontier, sequencers, leases (one request in flight per server), the
                    adaptive delay, and the crawl orders (orders/)
    pipeline/       from a kept document to the full-text index: the outbox, the index sink
                    and its writer process, the shard sink and shard writers, reindex
    loop/           the crawl loop (crawl.py, `CrawlLoop`, the only one) and what it does with
                    an answer: documents.py's path for a kept document, retries, robots.txt,
                    sitemaps, traps, canonical and near-duplicate pages, progress; the agent
                    pool; index_hooks.py, the hooks of `webcrawler index`
    realtime/       real-time search, a client of the loop with its own order and clock

Its other clients, outside this package: `webcrawler index` (webcrawler/commands/index.py wires the
engine, the incremental crawl of webcrawler/recrawl/ and the index together) and the
toolkit's crawlers (toolkit/runtime.py).
"""
