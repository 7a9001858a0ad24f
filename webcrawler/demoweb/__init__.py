"""The webs the demo and the examples crawl: real HTTP servers on loopback (127.0.0.0/8),
shipped with the product so `webcrawler demo` and examples/ need no network.

    server.py       LoopbackWeb: sites of pages (or handlers) on loopback addresses, HTTP or TLS
    stdlib_docs.py  DemoWeb: the standard library's documentation, rendered by pydoc (`webcrawler demo`)
    toolkitweb.py   the toolkit examples' small web, and an index of it (examples/)

The tests' own webs and harness are in tests/support/, outside the package.
"""
