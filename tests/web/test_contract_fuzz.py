"""Schemathesis against a real `companion serve`: the declared API and the service must agree.

A bounded, seeded run of `st run` (the schemathesis command) on a server on
127.0.0.1 with its own data directory, every check on: no server error, every
status documented, answers and their headers as declared, content types,
valid data accepted, invalid data rejected, 405 for undeclared methods. It
works on one 4-player Pivit tile table whose token it sends (the token stands
for the PIN and is never locked out; the PIN check itself is fuzzed through
POST .../pin). The quick run (20 examples per operation) is in the quick suite; a larger one (300) is `long`.

Two settings say what a schema cannot: a photo's content is judged by the
reader (400 not a usable photo, 422 no grid), and a 413 rejects invalid data
as surely as a 400. Both are in `config()` with their reason.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from .browser import serve_process

HERE = Path(__file__).resolve().parent
ST = Path(sys.executable).with_name("st")
PIN = "2468"
SEED = 15


def config(table_id: str, max_examples: int) -> str:
    return f"""
hooks = "contract_hooks"
seed = {SEED}
workers = 1
max-stream-events = 1
request-timeout = 20

[generation]
max-examples = {max_examples}
database = "none"

[phases.stateful]
enabled = false

[parameters]
"path.table_id" = "{table_id}"

[checks.negative_data_rejection]
# A 413 refuses a body as surely as a 400; a server error never counts as a rejection.
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]

[[operations]]
# A photo's content is judged by the reader, which no schema can say: not a usable photo is 400, no grid 422.
include-path-regex = "/(camera-checks|hand-photos)$"
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "422", "429"]
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real server, with short heartbeats so a stream that has nothing new answers quickly."""
    data = tmp_path_factory.mktemp("fuzz")
    (data / "config" / "companion").mkdir(parents=True)
    (data / "config" / "companion" / "config.toml").write_text("[server]\nheartbeat_seconds = 0.5\n")
    with serve_process(data) as url:
        request = urllib.request.Request(
            url + "/api/tables", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"game": "pivit-tiles", "players": ["Ann", "Bob", "Cy", "Di"], "pin": PIN}).encode())
        with urllib.request.urlopen(request) as response:
            table = json.load(response)
            token = response.headers["X-Table-Token"]
        yield url, table["id"], token


def run_schemathesis(served, tmp_path: Path, max_examples: int) -> dict:
    """`st run` with every check; returns its JSON report, failing the test on any failure or error."""
    url, table_id, token = served
    (tmp_path / "schemathesis.toml").write_text(config(table_id, max_examples))
    report = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parents[1])]), "NO_COLOR": "1"}
    done = subprocess.run(
        [str(ST), "--config-file", str(tmp_path / "schemathesis.toml"), "run", f"{url}/api/openapi.json",
         "--checks", "all", "-H", f"X-Table-Token: {token}", "--report", "json",
         "--report-json-path", str(report), "--no-color"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    output = done.stdout + done.stderr
    (tmp_path / "st.out").write_text(output)
    assert report.exists(), output[-5000:]
    summary = json.loads(report.read_text())
    assert done.returncode == 0, output[-20000:]
    assert summary["failures"] == [] and summary["errors"] == [], output[-20000:]
    assert summary["test_cases"]["unique_failures"] == 0 and summary["test_cases"]["errored"] == 0
    operations = summary["operations"]
    assert operations["tested"] == operations["total"], operations  # every declared operation, the stream too
    print(f"\nschemathesis (seed {SEED}, {max_examples} examples per operation): "
          f"{summary['test_cases']['generated']} cases on {operations['tested']} operations, "
          f"{len(summary['failures'])} failures, {len(summary['errors'])} errors")
    return summary


@pytest.mark.long  # about a minute: the quick suite stays under 10 minutes; .ci/run runs the long pass too
def test_schemathesis_finds_no_server_error_and_no_conformance_failure(served, tmp_path):
    run_schemathesis(served, tmp_path, max_examples=20)


@pytest.mark.long
def test_schemathesis_longer_run(served, tmp_path):
    run_schemathesis(served, tmp_path, max_examples=300)
