"""Commands that wire several subsystems together: above the engine, the recrawl and the index.

    index.py  `webcrawler index`: the data directory's checks, the store, the index sink, the
              incremental crawl's parts and the crawl loop, wired; its summary

The command line (webcrawler/cli/) parses the options and calls in; nothing here parses.
"""
