"""The protocol room: what the engine and the agents agree on, and both import.

    messages.py   the messages that cross the engine/agent boundary (Retrieve, Answer, Failure, ...)
    urls.py       URL normalisation, and the split of a URL into a server and a document
    robots.py     RFC 9309 robots.txt rules
    addresses.py  the --deny-private rules: which addresses are public, which servers the scope names
    filetypes.py  which files the index can use, by URL extension, Content-Type and first bytes

Pure rules and plain data: no I/O, no HTTP client, nothing of the engine or the agents, so the
engine can apply the agents' rules (scope, file types) without importing the agents.
"""
