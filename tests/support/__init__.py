"""What the tests and the benchmarks stand on, outside the product: loopback webs (the generated
web and its server process, the changing web, the flaky web, replies and documents to serve),
the in-process agent pool, a throwaway PostgreSQL cluster, a Dask agent cluster, TLS
certificates, a small tmpfs and `wait_until`.

The loopback web server itself (`webcrawler/demoweb/server.py`) is the product's, since
`webcrawler demo` and the examples serve their webs with it.
"""
