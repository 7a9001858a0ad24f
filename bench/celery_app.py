"""The Celery side of bench/agent_hosts.py: an app on a Redis broker with two trivial tasks.

Configured as a crawl would need it: a task is acknowledged only once done
(`acks_late`) and given back when its worker dies, one task prefetched at a
time. The broker is $BENCH_CELERY_BROKER (a loopback redis-server).
"""

from __future__ import annotations

import os
import time

from celery import Celery

BROKER = os.environ.get("BENCH_CELERY_BROKER", "redis://127.0.9.60:6399/0")

app = Celery("bench_agents", broker=BROKER, backend=BROKER)
app.conf.update(task_acks_late=True, task_reject_on_worker_lost=True, worker_prefetch_multiplier=1,
                task_track_started=True, broker_connection_retry_on_startup=True,
                worker_hijack_root_logger=False)


@app.task
def ping() -> str:
    return "pong"


@app.task
def nap(seconds: float) -> str:
    time.sleep(seconds)
    return "rested"
