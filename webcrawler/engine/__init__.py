"""The search engine: decides what to fetch, runs the agents, writes the database. Never does HTTP."""
