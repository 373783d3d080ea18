"""A real `companion club serve` in its own process, on a loopback port of the test's choosing."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ClubProcess:
    def __init__(self, database: str, port: int, pin: str):
        self.database, self.port, self.pin = database, port, pin
        self.url = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        self.proc: subprocess.Popen | None = None

    def start(self) -> "ClubProcess":
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "club", "serve", "--database", self.database, "--host", "127.0.0.1",
             "--port", str(self.port), "--pin", self.pin],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            match = re.search(r"--club-code (\w+)", line)
            if match:
                self.code = match.group(1)
            if "Ctrl+C stops" in line:
                threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True).start()
                return self
        self.proc.kill()
        raise AssertionError("companion club serve did not start:\n" + "".join(self.lines))

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def output(self) -> str:
        return "".join(self.lines)


@contextmanager
def club_process(database: str, port: int | None = None, pin: str = "2468"):
    club = ClubProcess(database, port or free_port(), pin).start()
    try:
        yield club
    finally:
        club.stop()
