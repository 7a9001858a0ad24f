"""Loopback webs for tests, benchmarks and the demo: real HTTP servers on 127.0.0.0/8."""
