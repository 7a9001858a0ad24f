"""The crawl's children start from a forkserver that has the agents' code loaded already, and
the engine itself never loads what only the agents or a rarely used option need."""

import subprocess
import sys
from pathlib import Path

PROBE = '''
import sys


def report(conn):
    conn.send("webcrawler.agents.worker" in sys.modules and "webcrawler.agents.fetch" in sys.modules)
'''

# The index writer starts the forkserver (first), then an agent comes from it.
MAIN = '''
import sys
from webcrawler.processes import child_context

sys.path.insert(0, sys.argv[1])
import probe

def child_has_worker():
    ctx = child_context()
    parent, child = ctx.Pipe()
    process = ctx.Process(target=probe.report, args=(child,))
    process.start()
    answer = parent.recv() if parent.poll(60) else None
    process.join(10)
    return answer

if __name__ == "__main__":
    assert "webcrawler.agents.worker" not in sys.modules  # the parent never imports it
    print(child_has_worker(), child_has_worker())
'''


def test_a_child_starts_with_the_agents_code_loaded(tmp_path: Path) -> None:
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "main.py").write_text(MAIN)
    out = subprocess.run([sys.executable, str(tmp_path / "main.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.split() == ["True", "True"]


def test_the_engine_starts_without_the_agents_fetcher_or_the_rarely_used() -> None:
    """`webcrawler index` imports its command, the store and the index sink; the agents'
    fetcher (requests, urllib3, lxml), PostgreSQL's dialect and the metrics server's
    prometheus-client, the workbench definitions' patterns (the `regex` module) and the
    recrawl's setup (an incremental crawl's) are start-up it pays only where they are used."""
    unwanted = ("webcrawler.agents.fetch", "requests", "urllib3", "lxml", "prometheus_client",
                "sqlalchemy.dialects.postgresql", "webcrawler.workbench.definition", "regex",
                "webcrawler.recrawl.setup", "webcrawler.recrawl.auto_plan")
    code = ("import sys, webcrawler.cli.main, webcrawler.commands.index, "
            "webcrawler.engine.pipeline.index_sink; "
            f"print(' '.join(m for m in {unwanted!r} if m in sys.modules) or 'none')")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True).stdout.split()
    assert loaded == ["none"]


# A script run as the main module, as the `webcrawler` console script is: each time it is
# imported as another module (an agent re-importing its parent's main module) it leaves a file.
SCRIPT = '''
import os
import sys
from pathlib import Path

if __name__ != "__main__":  # a child has its parent's sys.argv
    Path(sys.argv[1], f"imported-{os.getpid()}").touch()

if __name__ == "__main__":
    from webcrawler.config.agent_config import agent_config
    from webcrawler.engine.loop.pool import AgentPool
    from webcrawler.settings import Settings

    s = Settings()
    pool = AgentPool(2, agent_config(s), s.robots_token, deadline=s.deadline())
    pool.shutdown()
    print("started", len(list(Path(sys.argv[1]).iterdir())))
'''


def test_the_agents_never_import_the_engines_main_module_again(tmp_path: Path) -> None:
    """The engine's main module (the `webcrawler` script, a crawler script) is not named to
    an agent: it would import it again (the command line's imports, paid by every agent)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    (tmp_path / "script.py").write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(tmp_path / "script.py"), str(marks)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.split() == ["started", "0"]


# An engine's part of a crawl beside its index writer: NumPy imported (the sketch's), pages
# sent to the writer and acknowledged by it; then the threads this process ever ran.
ONE_THREAD = '''
import os
import sys
from pathlib import Path

import webcrawler.text.word_hashes  # noqa: F401 - NumPy, as the engine's sketch imports it
from webcrawler.database.schema import connect
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.protocol.messages import Document

if __name__ == "__main__":
    work = Path(sys.argv[1])
    store = CrawlStore(connect(f"sqlite:///{work / 'db.sqlite'}"))
    sink = IndexSink(store, work / "index")
    for n in (1, 2):
        url = f"http://127.0.10.72:8080/p{n}"
        sink.add(n, Document(job_id=n, url=url, final_url=url, status=200, content_type="text/html",
                             charset="utf-8", title=f"Page {n}", text=f"words number{n}"))
        store.conn.commit()
        sink.commit()
    sink.close()
    store.close()
    print(len(os.listdir("/proc/self/task")), sink.failed)
'''


def test_the_engine_runs_no_thread_beside_its_own_to_feed_the_index(tmp_path: Path) -> None:
    """Neither NumPy's BLAS pool nor a queue's feeder thread: a process that has started a
    thread pays glibc's allocator lock on every `malloc` after (docs/measurements.md)."""
    (tmp_path / "engine.py").write_text(ONE_THREAD)
    out = subprocess.run([sys.executable, str(tmp_path / "engine.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.split() == ["1", "False"]
