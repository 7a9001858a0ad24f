"""The agent process: receive "retrieve this URL" messages over a pipe, answer each one.

`agent_main` is a top-level function taking only picklable arguments, so
the engine can start it under any multiprocessing start method (forkserver
and spawn included). The agent ignores SIGINT: Ctrl-C reaches the whole
process group, and it is the engine's job to shut its agents down in order.
The agent first says `READY` (so start-up time never counts against a
URL's deadline); the loop ends when the engine sends None or closes its end
of the pipe.

The engine imports this module (to name `agent_main` to its children) but never fetches:
the fetcher (requests, urllib3, lxml) is imported when an agent starts, from the
forkserver that loaded it once for every agent (`processes.PRELOADED`), not at the
engine's start-up.
"""

from __future__ import annotations

import logging
import pickle
import signal
from multiprocessing.connection import Connection

from webcrawler.protocol.messages import AgentConfig, Answer, Retrieve

log = logging.getLogger(__name__)

READY = "ready"  # the first message of every agent: it is up and can take work


def agent_main(conn: Connection, config: AgentConfig, robots_token: str = "WebCrawler") -> None:
    """Serve retrieve requests from `conn` until None, EOF or a broken pipe."""
    from webcrawler.agents.fetch import Fetcher

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with Fetcher(config, robots_token, alarm=True) as fetcher:  # the process's own SIGALRM
        try:
            conn.send(READY)
        except (BrokenPipeError, ConnectionResetError):
            return
        while True:
            request = _receive(conn)
            if request is None:
                break
            try:
                conn.send_bytes(encode(fetcher.retrieve(request)))
            except (BrokenPipeError, ConnectionResetError, EOFError):
                break  # the engine went away; nobody is left to answer
    conn.close()


def encode(answer: Answer) -> bytes:
    """An answer pickled to the bytes `Connection.send` would send, which `Connection.recv` reads:
    by `pickle.dumps`, without the `ForkingPickler` that `send` makes a message (its dispatch
    table copied each time) for what only handles and sockets need; answers are plain data."""
    return pickle.dumps(answer)


def _receive(conn: Connection) -> Retrieve | None:
    """The next request, or None when the engine says stop or has closed the pipe."""
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None
