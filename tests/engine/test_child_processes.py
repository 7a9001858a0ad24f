"""The crawl's children start from a forkserver that has the agents' code loaded already."""

import subprocess
import sys
from pathlib import Path

PROBE = '''
import sys


def report(conn):
    conn.send("webcrawler.agents.worker" in sys.modules)
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
