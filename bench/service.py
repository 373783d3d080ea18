"""Benchmark the table service as the phones use it: live-stream latency and read throughput.

Starts a real `companion serve` on a loopback port (its own process, as on the
Pi), opens N phone streams on one Pivit table, then posts actions one at a time
and measures, for each, the time from sending the POST until every phone has
received the new version on its stream. Then measures GET /api/tables/<id>
throughput with a few keep-alive clients. Prints figures; asserts nothing.

    .venv/bin/python bench/service.py [--phones 8 50] [--actions 200] [--get-seconds 3]

Goals on the 2-core build machine (issue 3): p99 <= 50 ms with 8 phones,
<= 200 ms with 50; >= 1,000 reads per second. Only loopback addresses are
used, and every loop is bounded by a count or a deadline.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
PIN = "1234"


def start_server(data_dir: str) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_CONFIG_HOME": os.path.join(data_dir, "no-config")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", HOST, "--port", "0", "--data-dir", data_dir],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        match = re.search(r"Listening on 127\.0\.0\.1:(\d+)", line)
        if match:
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
            return proc, int(match.group(1))
        if not line:
            break
    proc.kill()
    raise SystemExit("bench: companion serve did not start")


def call(conn: http.client.HTTPConnection, method: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body)
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
    response = conn.getresponse()
    payload = response.read()
    if response.status >= 300:
        raise SystemExit(f"bench: {method} {path} answered {response.status}: {payload[:200]!r}")
    return json.loads(payload)


class Phones:
    """N stream connections read by one thread with a selector; records when each version arrives."""

    ID = re.compile(rb"(?:^|\n)id: (\d+)\n")

    def __init__(self, port: int, table_id: str, count: int):
        self.selector = selectors.DefaultSelector()
        self.seen = [-1] * count
        self.tail = [b""] * count
        self.cond = threading.Condition()
        self.stop = False
        for i in range(count):
            sock = socket.create_connection((HOST, port))
            sock.sendall(f"GET /api/tables/{table_id}/stream HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ, i)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop:
            for key, _ in self.selector.select(timeout=0.2):
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    self.selector.unregister(key.fileobj)
                    continue
                i = key.data
                # Keep a little of the previous chunk so an "id:" line split in two is still found.
                text = self.tail[i] + data
                self.tail[i] = text[-32:]
                versions = [int(v) for v in self.ID.findall(text)]
                if versions:
                    with self.cond:
                        self.seen[i] = max(self.seen[i], max(versions))
                        self.cond.notify_all()

    def wait_all(self, version: int, timeout: float) -> float | None:
        """perf_counter time at which every phone held `version`, or None on timeout."""
        deadline = time.perf_counter() + timeout
        with self.cond:
            while min(self.seen) < version:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return time.perf_counter()

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def stream_latency(port: int, phones: int, actions: int) -> dict:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    table = call(conn, "POST", "/api/tables", {"game": "pivit-tiles", "players": ["Ann", "Bob"],
                                                "options": {"pin": PIN, "timer_seconds": 600}})
    tid = table["id"]
    call(conn, "POST", f"/api/tables/{tid}/actions", {"type": "start-round"})
    readers = Phones(port, tid, phones)
    if readers.wait_all(1, timeout=20) is None:
        readers.close()
        raise SystemExit(f"bench: not all {phones} phones connected")
    latencies, missed = [], 0
    for n in range(actions):
        # Bob trades a tile and takes it back: the table changes every time, for ever.
        path, body = ((f"/api/tables/{tid}/actions", {"type": "trade", "player": 1}) if n % 2 == 0
                      else (f"/api/tables/{tid}/undo", {}))
        start = time.perf_counter()
        version = call(conn, "POST", path, body)["version"]
        done = readers.wait_all(version, timeout=5)
        if done is None:
            missed += 1
        else:
            latencies.append((done - start) * 1000)
    readers.close()
    conn.close()
    return {"phones": phones, "actions": actions, "missed": missed,
            "p50_ms": statistics.median(latencies), "p99_ms": percentile(latencies, 99),
            "max_ms": max(latencies)}


def read_throughput(port: int, seconds: float, clients: int) -> dict:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    tid = call(conn, "POST", "/api/tables", {"game": "pivit-tiles", "players": ["Ann", "Bob", "Cy"],
                                              "options": {"pin": PIN}})["id"]
    conn.close()
    counts = [0] * clients
    deadline = time.perf_counter() + seconds

    def reader(i: int) -> None:
        c = http.client.HTTPConnection(HOST, port, timeout=10)
        while time.perf_counter() < deadline:
            c.request("GET", f"/api/tables/{tid}")
            response = c.getresponse()
            response.read()
            counts[i] += response.status == 200
        c.close()

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 10)
    elapsed = time.perf_counter() - start
    return {"clients": clients, "requests": sum(counts), "per_second": sum(counts) / elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, nargs="+", default=[8, 50])
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--get-seconds", type=float, default=3.0)
    parser.add_argument("--get-clients", type=int, default=4)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as data_dir:
        proc, port = start_server(data_dir)
        try:
            print(f"companion serve on {HOST}:{port}, event log in {data_dir} (WAL, synchronous=FULL)")
            print(f"{'phones':>6} {'actions':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'missed':>6}")
            for phones in args.phones:
                r = stream_latency(port, phones, args.actions)
                print(f"{r['phones']:>6} {r['actions']:>7} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} "
                      f"{r['max_ms']:>8.1f} {r['missed']:>6}", flush=True)
            r = read_throughput(port, args.get_seconds, args.get_clients)
            print(f"GET /api/tables/<id>: {r['per_second']:.0f} per second "
                  f"({r['requests']} requests, {r['clients']} keep-alive clients, {args.get_seconds:.0f} s)")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
