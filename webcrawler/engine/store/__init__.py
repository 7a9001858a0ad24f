"""The crawl's store: what is known of servers, URLs and documents.

sql.py is the database's single writer during a crawl; memory.py keeps the same in memory
(crawls that keep nothing, fast tests); scope.py is the crawl's scope, stored with it.
"""
