"""The words of a query and of the index: the query language, the index's vocabulary, and the
tools built on them (spelling, stemming, the thesaurus, completion and its co-occurrence).

Built on the format room (`format/`); the search room (`search/`) uses them.
"""
