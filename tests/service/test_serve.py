"""`companion serve` as a real process: health on the port, kill -9 loses no acknowledged action
and a running countdown resumes from its deadline, and mistakes end with one line and exit 2."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIN = "1234"


class Serve:
    """One `companion serve` process on a free loopback port."""

    def __init__(self, data_dir: Path, *extra: str, port: int = 0):
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_CONFIG_HOME": str(data_dir / "no-config")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(data_dir), *extra],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self.port = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.output.append(line)
            match = re.search(r"Listening on 127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        if self.port is None:
            self.proc.kill()
            raise AssertionError("companion serve did not start:\n" + "".join(self.output))
        # Keep draining the output so the process never blocks on a full pipe.
        threading.Thread(target=lambda: self.output.extend(self.proc.stdout), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body=None, timeout=5):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(15)
        return self.proc.returncode


def test_health_answers_json(tmp_path):
    server = Serve(tmp_path)
    try:
        status, body = server.request("GET", "/api/health")
        assert status == 200 and body["status"] == "ok" and body["database"]["journal_mode"] == "wal"
        for part in ("service", "timer", "gpio", "camera"):
            assert isinstance(body[part]["ok"], bool) and body[part].get("detail", "") != ""
        # No physical timer on this machine (with or without the hardware package): the page simulates one.
        status, table = server.request("POST", "/api/tables", {"game": "pivit-tiles", "players": ["A", "B"]})
        with urllib.request.urlopen(f"{server.url}/tables/{table['id']}", timeout=5) as page:
            assert 'id="simulated-devices"' in page.read().decode()
        text = "".join(server.output)
        assert f"Open http://127.0.0.1:{server.port}/ on a phone" in text
        assert "█" in text or "▀" in text  # the QR code, drawn in the terminal
    finally:
        assert server.stop() == 0


def test_kill_9_loses_no_acknowledged_action_and_the_countdown_resumes(tmp_path):
    server = Serve(tmp_path)
    status, table = server.request("POST", "/api/tables", {
        "game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"timer_seconds": 30, "pin": PIN}})
    assert status == 201
    tid = table["id"]
    for event in ({"type": "start-round"}, {"type": "done", "player": 0},
                  {"type": "verify", "player": 0, "valid": True}):
        assert server.request("POST", f"/api/tables/{tid}/actions", event)[0] == 200
    status, running = server.request("GET", f"/api/tables/{tid}")
    assert running["timer"]["status"] == "running"
    deadline_ms = running["timer"]["deadline_ms"]

    # Bob trades and takes it back, over and over, as fast as the service answers; then the plug is pulled.
    acknowledged: list[str] = []
    refused: list = []
    last_version = [0]
    stop = threading.Event()

    def play():
        n = 0
        while not stop.is_set():
            n += 1
            action_id = f"bob-{n}"
            path, body = ((f"/api/tables/{tid}/actions", {"type": "trade", "player": 1, "action_id": action_id})
                          if n % 2 else (f"/api/tables/{tid}/undo", {"action_id": action_id}))
            try:
                status, answer = server.request("POST", path, body, timeout=2)
            except (OSError, http.client.HTTPException, ValueError):
                return  # the server died mid-request: this one was never acknowledged
            if status != 200:
                refused.append(answer)
                return
            acknowledged.append(action_id)
            last_version[0] = answer["version"]

    player = threading.Thread(target=play)
    player.start()
    time.sleep(0.8)
    server.kill9()
    stop.set()
    player.join(10)
    assert refused == [] and len(acknowledged) > 10

    time.sleep(0.5)  # the table is down for a while; the countdown keeps going
    again = Serve(tmp_path)
    try:
        status, log = again.request("GET", f"/api/tables/{tid}/events")
        logged = {e["action_id"] for e in log["entries"] if e["action_id"]}
        assert set(acknowledged) <= logged
        assert log["version"] >= last_version[0]
        status, table = again.request("GET", f"/api/tables/{tid}")
        timer = table["timer"]
        assert timer["status"] == "running" and timer["key"] == running["timer"]["key"]
        assert abs(timer["deadline_ms"] - deadline_ms) <= 2  # the same deadline, not a fresh minute
        assert timer["remaining_ms"] == pytest.approx(deadline_ms - timer["server_time_ms"], abs=2)
        assert timer["remaining_ms"] < 30000 - 1000
        # The state is the fold of exactly the logged events: Bob's tokens match trades minus undos.
        trades = sum(1 for e in log["entries"] if e["kind"] == "event" and e["body"]["type"] == "trade")
        undos = sum(1 for e in log["entries"] if e["kind"] == "undo")
        assert table["state"]["players"][1]["tokens"] == 2 - (trades - undos)
        assert table["state"]["phase"] == "last-minute"
    finally:
        assert again.stop() == 0


def run_cli(*args, env=None, timeout=30):
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def test_mistakes_end_with_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nprot = 1\n")
    result = run_cli("serve", "--config", str(bad), "--data-dir", str(tmp_path))
    assert result.returncode == 2 and result.stderr.strip().count("\n") == 0
    assert "unknown key 'prot' in [server]" in result.stderr and "Traceback" not in result.stderr

    result = run_cli("serve", "--config", str(tmp_path / "missing.toml"))
    assert result.returncode == 2 and "no such config file" in result.stderr

    result = run_cli("serve", "--port", "70000", "--data-dir", str(tmp_path))
    assert result.returncode == 2 and "0 to 65535" in result.stderr

    not_a_db = tmp_path / "broken"
    not_a_db.mkdir()
    (not_a_db / "companion.db").write_bytes(b"garbage" * 200)
    result = run_cli("serve", "--data-dir", str(not_a_db), "--port", "0", "--host", "127.0.0.1")
    assert result.returncode == 2 and "cannot open the event log" in result.stderr

    server = Serve(tmp_path / "one")
    try:
        # The same data directory twice: one owner only.
        result = run_cli("serve", "--data-dir", str(tmp_path / "one"), "--port", "0", "--host", "127.0.0.1")
        assert result.returncode == 2 and "another `companion serve`" in result.stderr
        # A port that is taken.
        result = run_cli("serve", "--data-dir", str(tmp_path / "two"), "--port", str(server.port),
                         "--host", "127.0.0.1")
        assert result.returncode == 2 and "cannot listen on 127.0.0.1" in result.stderr
        assert "Traceback" not in result.stderr
    finally:
        assert server.stop() == 0


def test_help_lists_the_options():
    result = run_cli("serve", "--help")
    assert result.returncode == 0
    for option in ("--host", "--port", "--data-dir", "--config", "--simulate-hardware"):
        assert option in result.stdout


def test_simulated_hardware_follows_the_service_countdown(tmp_path):
    """--simulate-hardware: the hardware package's simulated Pico display and GPIO buzzer follow the countdown."""
    pytest.importorskip("hardware.setup", reason="the hardware package is not installed")
    server = Serve(tmp_path, "--simulate-hardware")
    try:
        status, table = server.request("POST", "/api/tables", {
            "game": "pivit-tiles", "players": ["Ann", "Bob"], "options": {"timer_seconds": 1, "pin": PIN}})
        tid = table["id"]
        for event in ({"type": "start-round"}, {"type": "done", "player": 0},
                      {"type": "verify", "player": 0, "valid": True}):
            assert server.request("POST", f"/api/tables/{tid}/actions", event)[0] == 200
        deadline = time.monotonic() + 10
        health = {}
        while time.monotonic() < deadline:
            status, health = server.request("GET", "/api/health")
            if health["timer"].get("device", {}).get("status") == "expired" and health["gpio"].get("alarms"):
                break
            time.sleep(0.2)
        assert health["timer"]["simulated"] is True and health["timer"]["device"]["status"] == "expired"
        assert health["gpio"]["alarms"] == 1
        assert server.request("GET", f"/api/tables/{tid}")[1]["timer"]["status"] == "expired"
    finally:
        assert server.stop() == 0
    assert "Traceback" not in "".join(server.output)


def test_a_taken_port_ends_before_the_camera_is_opened(tmp_path, monkeypatch):
    """The camera is opened in a thread (cv2's import is slow) only once the port is bound: a
    thread still inside cv2's import when a taken port ends the process made the C++ runtime
    abort it (exit -6 instead of 2, now and then, in test_mistakes_end_with_one_line_and_exit_2)."""
    import socket

    from companion.camera_checks import CameraChecks
    from companion.cli import main

    opened = []
    monkeypatch.setattr(CameraChecks, "open_camera_in_background", lambda self, config: opened.append(config))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        status = main(["serve", "--data-dir", str(tmp_path / "data"), "--host", "127.0.0.1",
                       "--port", str(taken.getsockname()[1])])
    assert status == 2 and opened == []
