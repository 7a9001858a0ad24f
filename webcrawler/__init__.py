"""webcrawler: a single-machine search engine for the Web."""
