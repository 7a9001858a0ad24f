"""`webcrawler serve` takes its settings from each layer: a real server, started by the real
command, listens where the config file says and answers within the limits that the file,
a variable and a flag set."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


def test_serve_options_from_file_environment_and_flag_take_effect(data_dir: Path) -> None:
    (data_dir / "webcrawler.toml").write_text(
        '[serve]\nhost = "127.0.0.1"\nport = 0\nper_page = 3\nmax_query_length = 100\n'
        "threads = 2\n", encoding="utf-8")
    env = dict(os.environ, WEBCRAWLER_SERVE_MAX_QUERY_LENGTH="12")
    process = subprocess.Popen(
        [sys.executable, "-m", "webcrawler.cli", "serve", "--data-dir", str(data_dir),
         "--max-per-page", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("Search at http://127.0.0.1:"), (line, process.stderr.read())
        api = line.removeprefix("Search at ") + "api/search?q="
        status, page = get(api + "molecular")
        assert status == 200 and page["per_page"] == 3 and len(page["results"]) == 3  # the file
        status, page = get(api + "molecular&n=4")
        assert status == 200 and len(page["results"]) == 4
        assert get(api + "molecular&n=5")[0] == 400  # the flag's --max-per-page 4
        assert get(api + "molecular+bio")[0] == 400  # 13 characters: the variable's limit
        assert get(api + "molecular+bi")[0] == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.communicate()
