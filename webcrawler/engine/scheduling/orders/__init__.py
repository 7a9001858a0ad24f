"""The crawl orders: which server is asked next, and which of its documents.

An order is an `Ordering` (engine/scheduling/frontier.py): a server order (a sequencer the
Scheduler feeds with ready servers) and a frontier (a server's next document).
The Scheduler keeps every order polite, and the `RobotsTxt` of engine/loop/robots_txt.py
asks for robots.txt first, whatever the order. Which module is which:

- `batch`: the orders of `webcrawler index --order` (used by every batch crawl):
  `server-first` (Pinkerton 1994, the default: engine/scheduling/scheduler.py's
  `ServerFirstOrder` over the database's breadth-first frontier),
  `breadth-first`, `backlink` and `pagerank` (Cho, Garcia-Molina & Page 1998),
  and `--hot-query`'s hot queue in front of any of them. `make_ordering(name)`.
- `estimates`: IB'(P), IR'(P) and the hot queue, the one implementation the live orders
  and the ordering harness (webcrawler/evaluate/) share.
- `document_keys`: what ranks one queued document against another in those
  orders (depth and `estimates`): key policies.
- `priority_frontier`: the machinery under every order but server-first: per-server
  heaps of queued documents under a key policy (`PriorityFrontier`).
- `best_first`: `BestFirstServers`, the server order that offers the ready server
  holding the best item first; the batch orders, the real-time order and the
  toolkit's ready queue (toolkit/ready.py) all use it.
- `anchor_text`: the real-time search's order (Pinkerton 1994's second
  function, `webcrawler search --realtime`): follow the link whose anchor text
  best matches the query.

The incremental crawl's order (WebFountain's two queues per server) lives with
the rest of the recrawl in webcrawler/recrawl/.
"""
