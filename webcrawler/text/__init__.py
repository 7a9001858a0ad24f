"""The text room: what the agents, the engine, the recrawl and the index all do with words.

    tokens.py    the one tokenisation (`\\w+`, lower case, UTF-8): the index's analysis and the sketches
    shingles.py  w-shingle sketches of a page's text, and how much two of them resemble each other
    language.py  which natural language a document is written in (py3langid)

Neutral ground below every subsystem: it imports nothing else of the house.
"""
