"""Getting a crawl out: every stored document as JSON Lines or WARC (`webcrawler export`)."""
