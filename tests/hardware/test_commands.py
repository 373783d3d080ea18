"""`companion firmware ...` and `companion timer run` as a person runs them: real processes."""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from firmware import protocol as p

ROOT = Path(__file__).resolve().parents[2]


def companion(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, **kwargs)


def test_firmware_simulate_prints_the_pty_then_what_a_person_sees():
    proc = subprocess.Popen([sys.executable, "-m", "companion", "firmware", "simulate",
                             "--exit-after", "20"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith("PTY /dev/")
        port = serial.Serial(first.split(" ", 1)[1].strip(), 115200, timeout=0.05)
        port.write(p.encode(1, "hello", {"proto": 1}, p.COMMANDS))
        port.write(p.encode(2, "start", {"ms": 1200}, p.COMMANDS))
        lines = []
        while not lines or lines[-1].get("display") != "0:00":
            lines.append(json.loads(proc.stdout.readline()))
        assert lines[-2]["buzzer"] == "on"  # the alarm starts as the display reaches 0:00
        assert all(set(line) in ({"t", "display"}, {"t", "buzzer"}) for line in lines)
        assert [line["display"] for line in lines if "display" in line] == [
            "--:--", "0:02", "0:01", "0:00"]
        # A line on stdin presses the simulated Pico's button.
        proc.stdin.write("press\n")
        proc.stdin.flush()
        reader = p.LineReader(p.EVENTS)
        end = time.monotonic() + 5
        buttons = []
        while not buttons and time.monotonic() < end:
            buttons = [m for m in reader.feed(port.read(256))
                       if isinstance(m, p.Message) and m.verb == "button"]
        assert buttons and buttons[0].args == {"name": "timer", "action": "press"}
        port.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_timer_run_with_the_simulator_returns_at_expiry():
    result = companion("timer", "run", "1.2", "--simulate", "--json", "--gpio", "off")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [(e["source"], e["event"]) for e in events]
    assert ("host", "start") in kinds and ("host", "expired") in kinds
    assert kinds.index(("host", "start")) < kinds.index(("host", "expired"))
    assert ("device", "tick") in kinds and ("device", "expired") in kinds
    notes = [e["detail"] for e in events if e["event"] == "note"]
    assert any("no Pico attached: using the simulator" in n for n in notes)
    shown = [e["display"] for e in events if e["event"] == "display"]
    assert shown[-1] == "0:00"


@pytest.mark.parametrize("args,message", [
    (["timer", "run", "soon"], "companion: SECONDS: 'soon' is not a number of seconds"),
    (["timer", "run", "0"], "companion: SECONDS: 0 is not between 0 and 5999"),
    (["timer", "run", "6000"], "companion: SECONDS: 6000 is not between 0 and 5999"),
    (["timer", "run", "1", "--port", "/dev/no-such-tty"],
     "companion: --port /dev/no-such-tty: no such device"),
    (["timer", "run", "1", "--port", "none", "--gpio", "off"], "companion: no timer attached"),
    (["timer", "run", "1", "--config", "/no/such.toml"], "companion: /no/such.toml: no such config file"),
    (["firmware", "simulate", "--exit-after", "-1"], "companion: --exit-after"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = companion(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_flash_without_mpremote_explains_how_to_install_it(tmp_path):
    if importlib.util.find_spec("mpremote") is not None:
        pytest.skip("mpremote is installed in this environment")
    env = {**os.environ, "PATH": str(tmp_path)}  # no mpremote on PATH
    result = companion("firmware", "flash", env=env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pipx install mpremote" in lines[0]


def test_flash_dry_run_lists_the_mpremote_command():
    result = companion("firmware", "flash", "--dry-run", "--port", "/dev/ttyACM7")
    assert result.returncode == 0
    [line] = result.stdout.splitlines()
    words = line.split()
    assert words[1:5] == ["connect", "/dev/ttyACM7", "fs", "cp"]
    assert words[-3:] == [":", "+", "reset"]
    copied = [Path(w).name for w in words[5:-3]]
    assert copied[-1] == "main.py" and "protocol.py" in copied and "__init__.py" not in copied
    assert all((ROOT / "firmware" / name).is_file() for name in copied)


def test_a_group_without_its_subcommand_shows_its_help():
    result = companion("firmware")
    assert result.returncode == 2
    assert "simulate" in result.stdout and "flash" in result.stdout
